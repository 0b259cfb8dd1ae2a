package parquet

import (
	"encoding/binary"
	"fmt"
	"math"
)

// DELTA_BINARY_PACKED and the two byte-array encodings built on it.
//
// Layout (Encodings.md): a header <block size> <miniblocks per block>
// <total value count> <first value (zigzag)>, all ULEB128, then blocks of
// <min delta (zigzag ULEB128)> <one bit-width byte per miniblock>
// <miniblocks>. A miniblock holds blockSize/miniblocks deltas (a multiple of
// 32) minus min delta, bit-packed LSB first, padded to its full size (the
// reader only needs the bytes of real values, so an unpadded last miniblock
// is accepted). In the last block, miniblocks after the one holding the last value are absent,
// though their bit-width bytes are present (with arbitrary values).
// Arithmetic wraps as two's complement, so it is done in uint64.

const (
	encNameDelta       = "DELTA_BINARY_PACKED"
	encNameDeltaLength = "DELTA_LENGTH_BYTE_ARRAY"
	encNameDeltaBytes  = "DELTA_BYTE_ARRAY"

	// deltaMaxBlockSize bounds the block size: writers use 128 to 1024, and
	// the bound keeps miniblock byte sizes (values/8*64) within 32 bits.
	deltaMaxBlockSize = 1 << 24
	// deltaMaxCount bounds the total value count: page value counts are
	// int32 in the format, and parquet-java reads this field into an int.
	deltaMaxCount = math.MaxInt32
	// deltaChunk is how many lengths the byte-array decoders decode at a
	// time into a buffer on the stack.
	deltaChunk = 128
)

// deltaReader decodes one DELTA_BINARY_PACKED stream incrementally, so the
// byte-array decoders can read lengths in chunks without allocating.
type deltaReader struct {
	data      []byte
	name      string // names the stream in errors
	pos       int    // offset in data of the next unread byte
	miniCount int    // miniblocks per block
	miniSize  int    // values per miniblock, a multiple of 32
	total     int    // values in the stream, from the header
	deltas    int    // deltas (values after the first) not yet unpacked
	first     bool   // the header's first value has not been returned yet
	prev      uint64 // last value unpacked
	minDelta  uint64 // of the current block
	widthsOff int    // offset in data of the current block's bit widths
	mini      int    // miniblocks of the current block started so far
	width     int    // bit width of the current miniblock
	groups    int    // 32-value groups of the current miniblock not yet unpacked
	miniEnd   int    // where the current miniblock ends as laid out; may pass len(data)
	bufOff    int    // buf[bufOff:bufLen] holds values unpacked but not yet returned
	bufLen    int
	buf       [32]int64
}

// deltaHeaderFields names the header fields in errors.
var deltaHeaderFields = [4]string{"block size", "miniblock count", "total value count", "first value"}

// init parses the header of the stream starting at data[off].
func (d *deltaReader) init(data []byte, off int, name string) error {
	*d = deltaReader{data: data, name: name, pos: off}
	var hdr, at [4]uint64
	for i := range hdr {
		v, k := encUvarint(data, d.pos)
		if k <= 0 {
			return encErrVarint(name, deltaHeaderFields[i], d.pos, k)
		}
		hdr[i], at[i] = v, uint64(d.pos)
		d.pos += k
	}
	blockSize, miniCount, total := hdr[0], hdr[1], hdr[2]
	if blockSize == 0 || blockSize%128 != 0 || blockSize > deltaMaxBlockSize {
		return fmt.Errorf("parquet: %s: block size at offset %d: %d is not a positive multiple of 128 up to %d",
			name, at[0], blockSize, deltaMaxBlockSize)
	}
	if miniCount == 0 || blockSize%miniCount != 0 || blockSize/miniCount%32 != 0 {
		return fmt.Errorf("parquet: %s: miniblock count at offset %d: %d does not split blocks of %d values into multiples of 32",
			name, at[1], miniCount, blockSize)
	}
	if total > deltaMaxCount {
		return fmt.Errorf("parquet: %s: total value count at offset %d: %d exceeds %d",
			name, at[2], total, deltaMaxCount)
	}
	d.miniCount = int(miniCount)
	d.miniSize = int(blockSize / miniCount)
	d.total = int(total)
	d.first = total > 0
	d.deltas = max(d.total-1, 0)
	d.prev = encUnzigzag(hdr[3])
	d.mini = d.miniCount // the first miniblock starts a block
	d.miniEnd = d.pos
	return nil
}

// errCount reports a stream holding fewer values than the caller needs.
func (d *deltaReader) errCount(need int) error {
	return fmt.Errorf("parquet: %s: header holds %d values, %d needed", d.name, d.total, need)
}

// blockHeader parses the block header at data[pos] and returns its min delta,
// the offset of its bit widths and the offset of its first miniblock.
func (d *deltaReader) blockHeader(pos int) (minDelta uint64, widthsOff, next int, err error) {
	v, k := encUvarint(d.data, pos)
	if k <= 0 {
		return 0, 0, 0, encErrVarint(d.name, "block min delta", pos, k)
	}
	pos += k
	if len(d.data)-pos < d.miniCount {
		return 0, 0, 0, encErrEOF(d.name, "miniblock bit widths", pos, len(d.data)-pos, d.miniCount)
	}
	return encUnzigzag(v), pos, pos + d.miniCount, nil
}

// miniWidth returns the bit width of miniblock i of the block whose widths
// start at widthsOff. Widths are only checked for miniblocks that hold
// values: those of absent trailing miniblocks may be garbage.
func (d *deltaReader) miniWidth(widthsOff, i int) (int, error) {
	w := int(d.data[widthsOff+i])
	if w > 64 {
		return 0, fmt.Errorf("parquet: %s: miniblock bit width at offset %d: %d exceeds 64",
			d.name, widthsOff+i, w)
	}
	return w, nil
}

// startMini moves to the next miniblock, reading a block header first when
// the current block is done.
func (d *deltaReader) startMini() error {
	if d.mini == d.miniCount {
		var err error
		if d.minDelta, d.widthsOff, d.pos, err = d.blockHeader(d.pos); err != nil {
			return err
		}
		d.mini = 0
	}
	w, err := d.miniWidth(d.widthsOff, d.mini)
	if err != nil {
		return err
	}
	d.mini++
	d.width = w
	d.groups = d.miniSize / 32
	d.miniEnd = d.pos + d.miniSize/8*w
	return nil
}

// unpackGroup unpacks the next 32 values of the current miniblock into dst
// and returns how many of them are real (fewer than 32 only at the end of
// the stream, where the rest is padding).
func (d *deltaReader) unpackGroup(dst *[32]int64) (int, error) {
	k := min(32, d.deltas)
	w := d.width
	avail := len(d.data) - d.pos
	// Only the bytes of real values must be present: a writer that does not
	// pad the last miniblock loses nothing.
	if need := (k*w + 7) / 8; avail < need {
		return 0, encErrEOF(d.name, "miniblock values", d.pos, avail, need)
	}
	src := d.data[d.pos:]
	if avail < 4*w+8 {
		// unpackDeltas loads 8 bytes at a time up to 8 bytes past the
		// group: near the end of the data, read from a zero-padded copy.
		var pad [4*64 + 8]byte
		copy(pad[:], src)
		src = pad[:]
	}
	d.prev = unpackDeltas(dst, src, w, d.minDelta, d.prev)
	d.pos += 4 * w
	d.deltas -= k
	d.groups--
	return k, nil
}

// unpackDeltas unpacks 32 values of w bits (0..64) packed LSB first from src
// (at least 4*w+8 bytes), adds minDelta to each and accumulates them from
// prev into dst; it returns the last value. Each value is one unaligned
// 64-bit load, shift and mask: the packed groups are small, so this beats
// keeping a bit buffer.
func unpackDeltas(dst *[32]int64, src []byte, w int, minDelta, prev uint64) uint64 {
	switch {
	case w == 0:
		for j := range dst {
			prev += minDelta
			dst[j] = int64(prev)
		}
	case w <= 56:
		// offset%8 + w <= 63: the value lies within one 8-byte load.
		mask := uint64(1)<<w - 1
		src = src[:4*w+8]
		for j := range dst {
			o := j * w
			prev += minDelta + binary.LittleEndian.Uint64(src[o>>3:])>>(o&7)&mask
			dst[j] = int64(prev)
		}
	case w < 64:
		// The value may spill into a ninth byte; when o%8 == 0 the shift
		// by 64 yields 0, as Go defines.
		mask := uint64(1)<<w - 1
		src = src[:4*w+8]
		for j := range dst {
			o := j * w
			b, s := o>>3, uint(o&7)
			x := binary.LittleEndian.Uint64(src[b:])>>s | uint64(src[b+8])<<(64-s)
			prev += minDelta + x&mask
			dst[j] = int64(prev)
		}
	default:
		src = src[:256]
		for j := range dst {
			prev += minDelta + binary.LittleEndian.Uint64(src[8*j:])
			dst[j] = int64(prev)
		}
	}
	return prev
}

// read returns the next len(out) values; the caller makes sure the stream
// holds them (len(out) <= total minus the values already read).
func (d *deltaReader) read(out []int64) error {
	if len(out) == 0 {
		return nil
	}
	i := 0
	if d.first {
		out[0] = int64(d.prev)
		d.first = false
		i = 1
	}
	if d.bufOff < d.bufLen {
		n := copy(out[i:], d.buf[d.bufOff:d.bufLen])
		d.bufOff += n
		i += n
	}
	for i < len(out) {
		if d.deltas == 0 {
			return fmt.Errorf("parquet: %s: read past the last of %d values", d.name, d.total)
		}
		if d.groups == 0 {
			if err := d.startMini(); err != nil {
				return err
			}
		}
		if len(out)-i >= 32 && d.deltas >= 32 {
			// Whole groups go straight to out.
			if _, err := d.unpackGroup((*[32]int64)(out[i:])); err != nil {
				return err
			}
			i += 32
			continue
		}
		k, err := d.unpackGroup(&d.buf)
		if err != nil {
			return err
		}
		n := copy(out[i:], d.buf[:k])
		d.bufOff, d.bufLen = n, k
		i += n
	}
	return nil
}

// end returns the offset just past the stream, as the spec lays it out: the
// rest of the current miniblock and the miniblocks holding the values not
// yet read are skipped by their headers and bit widths, without unpacking;
// miniblocks after the last value are absent. It does not change d.
func (d *deltaReader) end() (int, error) {
	pos, deltas := d.pos, d.deltas
	if d.groups > 0 {
		// Inside a miniblock, which is laid out padded to its full size.
		if in := min(deltas, d.groups*32); in > 0 {
			if need := (in*d.width + 7) / 8; len(d.data)-pos < need {
				return 0, encErrEOF(d.name, "miniblock values", pos, len(d.data)-pos, need)
			}
			deltas -= in
		}
		pos = d.miniEnd
	}
	mini, widthsOff := d.mini, d.widthsOff
	// Each block takes at least 2 bytes, so this loop is bounded by
	// len(data), whatever count the header claims.
	for deltas > 0 {
		if mini == d.miniCount {
			var err error
			if _, widthsOff, pos, err = d.blockHeader(pos); err != nil {
				return 0, err
			}
			mini = 0
		}
		w, err := d.miniWidth(widthsOff, mini)
		if err != nil {
			return 0, err
		}
		mini++
		in := min(deltas, d.miniSize)
		if need := (in*w + 7) / 8; len(d.data)-pos < need {
			return 0, encErrEOF(d.name, "miniblock values", pos, len(d.data)-pos, need)
		}
		pos += d.miniSize / 8 * w
		deltas -= in
	}
	// Only the last miniblock may be cut short (unpadded); see unpackGroup.
	return min(pos, len(d.data)), nil
}

// decodeDeltaBinaryPacked decodes len(out) values of a DELTA_BINARY_PACKED
// stream (int64; for INT32 columns the caller narrows, which the wrapping
// arithmetic makes exact). The header's total count must be at least
// len(out); values past len(out) are not decoded, but their blocks are
// walked so that the bytes consumed always reach the exact end of the
// stream, as DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY need.
func decodeDeltaBinaryPacked(data []byte, out []int64) (int, error) {
	if len(out) == 0 && len(data) == 0 {
		return 0, nil
	}
	var d deltaReader
	if err := d.init(data, 0, encNameDelta); err != nil {
		return 0, err
	}
	if d.total < len(out) {
		return 0, d.errCount(len(out))
	}
	if err := d.read(out); err != nil {
		return 0, err
	}
	return d.end()
}

// decodeDeltaLengthByteArray decodes len(out) values of
// DELTA_LENGTH_BYTE_ARRAY: DELTA_BINARY_PACKED lengths, then the values'
// bytes back to back. out[i] aliases data, its capacity cut to its length.
// It returns the bytes consumed, through the last value's bytes.
func decodeDeltaLengthByteArray(data []byte, out [][]byte) (int, error) {
	if len(out) == 0 && len(data) == 0 {
		return 0, nil
	}
	var r deltaLengthReader
	if err := r.init(data); err != nil {
		return 0, err
	}
	if r.lens.total < len(out) {
		return 0, r.lens.errCount(len(out))
	}
	if err := r.read(out); err != nil {
		return 0, err
	}
	return r.pos, nil
}

// A deltaLengthReader reads DELTA_LENGTH_BYTE_ARRAY values a few at a
// time, as decodeDeltaLengthByteArray does all at once.
type deltaLengthReader struct {
	lens deltaReader
	data []byte
	pos  int // of the next value's bytes
	i    int // the next value's index, for errors
}

func (r *deltaLengthReader) init(data []byte) error {
	*r = deltaLengthReader{data: data}
	if err := r.lens.init(data, 0, encNameDeltaLength+": lengths"); err != nil {
		return err
	}
	// The bytes start where the lengths end; finding that first lets the
	// lengths be decoded and used in one pass, a chunk at a time.
	var err error
	r.pos, err = r.lens.end()
	return err
}

// read returns the next len(out) values; out[i] aliases the data, its
// capacity cut to its length.
func (r *deltaLengthReader) read(out [][]byte) error {
	var lens [deltaChunk]int64
	data := r.data
	for k := 0; k < len(out); {
		chunk := lens[:min(deltaChunk, len(out)-k)]
		if err := r.lens.read(chunk); err != nil {
			return err
		}
		for _, n := range chunk {
			if n < 0 {
				return fmt.Errorf("parquet: %s: value %d at offset %d: negative length %d",
					encNameDeltaLength, r.i, r.pos, n)
			}
			if n > int64(len(data)-r.pos) {
				return encErrEOF(encNameDeltaLength, fmt.Sprintf("value %d", r.i), r.pos, len(data)-r.pos, int(n))
			}
			end := r.pos + int(n)
			out[k] = data[r.pos:end:end]
			r.pos = end
			r.i++
			k++
		}
	}
	return nil
}

// decodeDeltaByteArray decodes len(out) values of DELTA_BYTE_ARRAY:
// DELTA_BINARY_PACKED prefix lengths, then the suffixes as
// DELTA_LENGTH_BYTE_ARRAY; value i is value i-1's first prefix[i] bytes
// followed by suffix i. The values are built into one new buffer, allocated
// once their total size is known and at most maxBytes (prefixes let a small
// input describe quadratically many bytes). It returns the bytes consumed,
// through the last suffix used.
func decodeDeltaByteArray(data []byte, out [][]byte, maxBytes int) (int, error) {
	if len(out) == 0 && len(data) == 0 {
		return 0, nil
	}
	var r deltaByteArrayReader
	if err := r.init(data, maxBytes); err != nil {
		return 0, err
	}
	if r.pre.total < len(out) {
		return 0, r.pre.errCount(len(out))
	}
	if r.suf.total < len(out) {
		return 0, r.suf.errCount(len(out))
	}
	if err := r.read(out); err != nil {
		return 0, err
	}
	return r.pos, nil
}

// A deltaByteArrayReader reads DELTA_BYTE_ARRAY values a few at a time,
// as decodeDeltaByteArray does all at once. The values of a read are
// built into a buffer the next read reuses; all the values it builds
// together take at most its limit.
type deltaByteArrayReader struct {
	pre, suf deltaReader
	data     []byte
	pos      int // of the next suffix
	i        int // the next value's index, for errors
	limit    int
	built    int    // bytes of the values built so far
	buf      []byte // the last read's values, the last of them at its end
	last     int    // the length of the last value read
}

const (
	encNameDeltaPrefixes = encNameDeltaBytes + ": prefix lengths"
	encNameDeltaSuffixes = encNameDeltaBytes + ": suffix lengths"
)

func (r *deltaByteArrayReader) init(data []byte, maxBytes int) error {
	*r = deltaByteArrayReader{data: data, limit: max(maxBytes, 0), buf: r.buf[:0]}
	if err := r.pre.init(data, 0, encNameDeltaPrefixes); err != nil {
		return err
	}
	sufOff, err := r.pre.end()
	if err != nil {
		return err
	}
	if err := r.suf.init(data, sufOff, encNameDeltaSuffixes); err != nil {
		return err
	}
	r.pos, err = r.suf.end()
	return err
}

// read returns the next len(out) values, which are valid until the next
// read.
func (r *deltaByteArrayReader) read(out [][]byte) error {
	data := r.data
	// Pass 1: check the lengths, point out[i] at suffix i and add up the
	// sizes of the values, without building anything yet. The prefixes
	// are read again in pass 2 rather than kept, from a copy of their
	// reader.
	var pl, sl [deltaChunk]int64
	pre := r.pre
	total, prevLen, pos, i := 0, r.last, r.pos, r.i
	for k := 0; k < len(out); {
		c := min(deltaChunk, len(out)-k)
		if err := r.pre.read(pl[:c]); err != nil {
			return err
		}
		if err := r.suf.read(sl[:c]); err != nil {
			return err
		}
		for j := range c {
			p, s := pl[j], sl[j]
			// prevLen is 0 for the first value, so its prefix must be 0.
			if p < 0 || p > int64(prevLen) {
				return fmt.Errorf("parquet: %s: value %d (suffix at offset %d): prefix length %d not in 0..%d",
					encNameDeltaBytes, i, pos, p, prevLen)
			}
			if s < 0 {
				return fmt.Errorf("parquet: %s: value %d at offset %d: negative suffix length %d",
					encNameDeltaBytes, i, pos, s)
			}
			if s > int64(len(data)-pos) {
				return encErrEOF(encNameDeltaBytes, fmt.Sprintf("value %d suffix", i), pos, len(data)-pos, int(s))
			}
			end := pos + int(s)
			out[k] = data[pos:end:end]
			pos = end
			// p <= prevLen <= limit and s <= len(data): no overflow.
			n := int(p) + int(s)
			if n > r.limit-r.built-total {
				return fmt.Errorf("parquet: %s: value %d (suffix at offset %d): values exceed the limit of %d bytes",
					encNameDeltaBytes, i, pos-int(s), r.limit)
			}
			total += n
			prevLen = n
			i++
			k++
		}
	}

	// Pass 2: build the values after the last one read, which the first
	// may take a prefix of.
	r.pre = pre
	last := r.buf[len(r.buf)-r.last:]
	if need := r.last + total; cap(r.buf) < need {
		r.buf = make([]byte, need)
		copy(r.buf, last)
	} else {
		copy(r.buf, last) // may overlap: copy moves
		r.buf = r.buf[:need]
	}
	prev := r.buf[:r.last]
	o := r.last
	for k := 0; k < len(out); {
		c := min(deltaChunk, len(out)-k)
		if err := r.pre.read(pl[:c]); err != nil {
			return err
		}
		for _, p := range pl[:c] {
			s := out[k]
			end := o + int(p) + len(s)
			v := r.buf[o:end:end]
			copy(v, prev[:p])
			copy(v[p:], s)
			out[k], prev, o = v, v, end
			k++
		}
	}
	r.pos, r.i, r.last = pos, i, prevLen
	r.built += total
	return nil
}
