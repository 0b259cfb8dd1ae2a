package parquet

import (
	"encoding/binary"
	"fmt"
	"io"
	"math/bits"
	"slices"
)

// This file holds the RLE/bit-packed hybrid decoder (levels, dictionary
// indices, booleans) and the encoder of levels and dictionary indices
// that Writer uses, the deprecated BIT_PACKED level decoder, and the small
// helpers every decoder in encoding_*.go shares. All decoders take a page's
// decompressed bytes, which may be hostile: they check lengths before every
// read, never allocate by a length read from the data, and name the encoding
// and the byte offset within the given slice in their errors (wrapping
// io.ErrUnexpectedEOF when the data ends early). On error, the byte count
// they return means nothing and out holds garbage.

const (
	encNameHybrid    = "RLE/bit-packed"
	encNameBitPacked = "BIT_PACKED"
)

// bitWidth returns the number of bits needed for values 0..max (0 for max 0):
// levels are encoded with bitWidth(maxLevel). A negative max gives 0.
func bitWidth(max int) int {
	if max <= 0 {
		return 0
	}
	return bits.Len(uint(max))
}

// encUvarint reads an unsigned LEB128 varint starting at data[off]. n > 0 is
// the number of bytes read; n == 0 means the data ends inside the varint (or
// off is not within data), n < 0 that the value does not fit in 64 bits.
func encUvarint(data []byte, off int) (v uint64, n int) {
	if off < 0 || off >= len(data) {
		return 0, 0
	}
	// Run headers and small counts are nearly always a single byte.
	if data[off] < 0x80 {
		return uint64(data[off]), 1
	}
	var shift uint
	for i := off; i < len(data); i++ {
		b := data[i]
		if shift == 63 && b > 1 {
			// The tenth byte may only supply bit 63.
			return 0, -1
		}
		v |= uint64(b&0x7f) << shift
		if b < 0x80 {
			return v, i - off + 1
		}
		shift += 7
	}
	return 0, 0
}

// encUnzigzag undoes zigzag encoding; the result is the two's complement bit
// pattern, so callers convert with int64() and may add with wrapping.
func encUnzigzag(u uint64) uint64 {
	return u>>1 ^ -(u & 1)
}

// encErrEOF reports that the data ends after have of the need bytes that the
// part named what, starting at byte offset off, takes.
func encErrEOF(enc, what string, off, have, need int) error {
	return fmt.Errorf("parquet: %s: %s at offset %d: data ends after %d of %d bytes: %w",
		enc, what, off, max(have, 0), need, io.ErrUnexpectedEOF)
}

// encErrVarint turns encUvarint's failure n (0 or negative) into an error.
func encErrVarint(enc, what string, off, n int) error {
	if n == 0 {
		return fmt.Errorf("parquet: %s: %s at offset %d: data ends inside varint: %w",
			enc, what, off, io.ErrUnexpectedEOF)
	}
	return fmt.Errorf("parquet: %s: %s at offset %d: varint overflows 64 bits", enc, what, off)
}

// decodeHybrid decodes len(out) values of the RLE/bit-packed hybrid encoding
// (without the 4-byte length prefix: the caller strips it) of the given bit
// width (0..32) and returns the bytes consumed: through the end of the last
// run used, or to len(data) if that run claims more bytes than are left but
// the values needed are all there. Runs may go on past len(out) (a bit-packed
// run pads its last group of 8, a writer may overshoot): only what is needed
// is read, so a run header claiming 2^31 values costs nothing extra. With bit
// width 0 every value is 0; run headers, which writers still emit, are
// consumed while present, and missing or truncated ones are tolerated.
// Values with bit 31 set (width 32) come out negative.
func decodeHybrid(data []byte, bitWidth int, out []int32) (int, error) {
	if bitWidth < 0 || bitWidth > 32 {
		return 0, fmt.Errorf("parquet: %s: bit width %d not in 0..32", encNameHybrid, bitWidth)
	}
	if bitWidth == 0 {
		clear(out)
		return hybridSkipHeaders(data, len(out)), nil
	}
	valueBytes := (bitWidth + 7) / 8
	n, pos := 0, 0
	for n < len(out) {
		hdr := pos
		h, k := encUvarint(data, pos)
		if k <= 0 {
			return pos, encErrVarint(encNameHybrid, "run header", hdr, k)
		}
		pos += k
		want := len(out) - n
		if h&1 == 0 {
			// RLE run: one value of ceil(bitWidth/8) bytes, little endian.
			if len(data)-pos < valueBytes {
				return pos, encErrEOF(encNameHybrid, "RLE run value", pos, len(data)-pos, valueBytes)
			}
			var v uint32
			for i := valueBytes - 1; i >= 0; i-- {
				v = v<<8 | uint32(data[pos+i])
			}
			if bitWidth < 32 && v>>bitWidth != 0 {
				// Writers never do this; letting it through would hand the
				// caller a level or index wider than it sized things for.
				return pos, fmt.Errorf("parquet: %s: RLE run value at offset %d: %d does not fit in %d bits",
					encNameHybrid, pos, v, bitWidth)
			}
			pos += valueBytes
			m := want
			if c := h >> 1; c < uint64(want) {
				m = int(c)
			}
			fill := out[n : n+m]
			for i := range fill {
				fill[i] = int32(v)
			}
			n += m
			continue
		}
		// Bit-packed run of h>>1 groups of 8 values, bitWidth bytes a group.
		groups := h >> 1
		m := want
		if groups < uint64(want+7)/8 {
			m = int(groups) * 8
		}
		need := (m*bitWidth + 7) / 8
		if len(data)-pos < need {
			return pos, encErrEOF(encNameHybrid, "bit-packed values", pos, len(data)-pos, need)
		}
		unpackLSB32(out[n:n+m], data[pos:], bitWidth)
		n += m
		// Compare before multiplying: groups comes from the data.
		if groups <= uint64(len(data)-pos)/uint64(bitWidth) {
			pos += int(groups) * bitWidth
		} else {
			pos = len(data)
		}
	}
	return pos, nil
}

// A hybridReader decodes the RLE/bit-packed hybrid encoding a few values
// at a time, as decodeHybrid does all at once: a page's levels and
// dictionary indices are decoded in batches, so that the memory they take
// does not grow with the count of entries a page claims (a run of a few
// bytes may claim millions). Its values, errors and the bytes it needs
// are decodeHybrid's, however the values are split between reads.
type hybridReader struct {
	data   []byte
	width  int
	pos    int      // of the next run header, or in a bit-packed run of its next group
	rle    uint64   // values of the current RLE run not yet read
	val    int32    // the RLE run's value
	groups uint64   // groups of the current bit-packed run not yet unpacked
	buf    [8]int32 // a group unpacked for a read that ended inside it
	bufOff int      // buf[bufOff:bufLen] are its values not yet read
	bufLen int
}

// init starts reading data, values of width bits (0..32).
func (h *hybridReader) init(data []byte, width int) {
	*h = hybridReader{data: data, width: width}
}

// read decodes the next len(out) values.
func (h *hybridReader) read(out []int32) error {
	w := h.width
	if w < 0 || w > 32 {
		return fmt.Errorf("parquet: %s: bit width %d not in 0..32", encNameHybrid, w)
	}
	if w == 0 {
		// Run headers carry nothing, and nothing follows them.
		clear(out)
		return nil
	}
	i := 0
	for i < len(out) {
		switch {
		case h.bufOff < h.bufLen:
			n := copy(out[i:], h.buf[h.bufOff:h.bufLen])
			h.bufOff += n
			i += n
		case h.rle > 0:
			m := len(out) - i
			if h.rle < uint64(m) {
				m = int(h.rle)
			}
			fill := out[i : i+m]
			for k := range fill {
				fill[k] = h.val
			}
			h.rle -= uint64(m)
			i += m
		case h.groups > 0:
			// Whole groups go straight to out, as many as are wanted and
			// present; a group wanted in part goes through buf.
			g := min((len(out)-i)/8, (len(h.data)-h.pos)/w)
			if h.groups < uint64(g) {
				g = int(h.groups)
			}
			if g > 0 {
				unpackLSB32(out[i:i+8*g], h.data[h.pos:], w)
				h.pos += g * w
				h.groups -= uint64(g)
				i += 8 * g
				continue
			}
			if err := h.unpackGroup(min(len(out)-i, 8)); err != nil {
				return err
			}
		default:
			if err := h.runHeader(); err != nil {
				return err
			}
		}
	}
	return nil
}

// unpackGroup unpacks the bit-packed run's next group into buf, of which
// the next want values are read. Only the bytes of the values read must be
// present: a writer may leave the last group's padding out.
func (h *hybridReader) unpackGroup(want int) error {
	w := h.width
	src := h.data[h.pos:]
	valid := 8
	if len(src) < w {
		valid = len(src) * 8 / w
		if want > valid {
			return encErrEOF(encNameHybrid, "bit-packed values", h.pos, len(src), (want*w+7)/8)
		}
		// unpackLSB32 reads whole words: give it the bytes padded.
		var pad [32]byte
		copy(pad[:], src)
		src = pad[:]
	}
	unpackLSB32(h.buf[:valid], src, w)
	h.pos += min(w, len(h.data)-h.pos)
	h.groups--
	h.bufOff, h.bufLen = 0, valid
	return nil
}

// runHeader starts the next run.
func (h *hybridReader) runHeader() error {
	hdr, k := encUvarint(h.data, h.pos)
	if k <= 0 {
		return encErrVarint(encNameHybrid, "run header", h.pos, k)
	}
	h.pos += k
	if hdr&1 == 1 {
		h.groups = hdr >> 1
		return nil
	}
	w := h.width
	valueBytes := (w + 7) / 8
	if len(h.data)-h.pos < valueBytes {
		return encErrEOF(encNameHybrid, "RLE run value", h.pos, len(h.data)-h.pos, valueBytes)
	}
	var v uint32
	for i := valueBytes - 1; i >= 0; i-- {
		v = v<<8 | uint32(h.data[h.pos+i])
	}
	if w < 32 && v>>w != 0 {
		return fmt.Errorf("parquet: %s: RLE run value at offset %d: %d does not fit in %d bits",
			encNameHybrid, h.pos, v, w)
	}
	h.pos += valueBytes
	h.rle, h.val = hdr>>1, int32(v)
	return nil
}

// hybridSkipHeaders walks the run headers of a bit width 0 hybrid encoding
// covering count values and returns the bytes they take. Width 0 runs carry
// no value bytes, so only headers are read; it stops quietly at the end of
// the data or at a broken header, because with width 0 the values are known
// without them.
func hybridSkipHeaders(data []byte, count int) int {
	pos := 0
	for count > 0 {
		h, k := encUvarint(data, pos)
		if k <= 0 {
			break
		}
		pos += k
		c := h >> 1
		if h&1 == 1 {
			// Groups of 8; saturate rather than overflow.
			if c > uint64(count) {
				c = uint64(count)
			} else {
				c *= 8
			}
		}
		if c >= uint64(count) {
			break
		}
		count -= int(c)
	}
	return pos
}

// unpackLSB32 unpacks len(out) values of w bits (1..32), packed LSB first as
// in the hybrid encoding, from src, which holds at least
// ceil(len(out)*w/8) bytes (it may hold more: it is usually the rest of the
// page).
func unpackLSB32(out []int32, src []byte, w int) {
	switch w {
	case 8: // the usual dictionary index width for small dictionaries
		src = src[:len(out)]
		for i, b := range src {
			out[i] = int32(b)
		}
		return
	case 16:
		src = src[:2*len(out)]
		for i := range out {
			out[i] = int32(binary.LittleEndian.Uint16(src[2*i:]))
		}
		return
	case 32:
		src = src[:4*len(out)]
		for i := range out {
			out[i] = int32(binary.LittleEndian.Uint32(src[4*i:]))
		}
		return
	}
	mask := uint64(1)<<w - 1
	i := 0
	// The value at bit offset o is in the 8 bytes from o/8, shifted right by
	// o%8 (at most 7+32 bits, so one load suffices). That load is in bounds
	// while o/8+8 <= len(src), i.e. for i <= ((len(src)-7)*8-1)/w.
	if len(src) >= 8 {
		fast := min(len(out), ((len(src)-7)*8-1)/w+1)
		for ; i < fast; i++ {
			o := i * w
			out[i] = int32(binary.LittleEndian.Uint64(src[o>>3:]) >> (o & 7) & mask)
		}
	}
	if i == len(out) {
		return
	}
	// The last values start within 8 bytes of the end: read them from a
	// zero-padded copy (values past the data would only see the padding,
	// but the caller guarantees there are none).
	base := (i * w) >> 3
	var pad [16]byte
	copy(pad[:], src[base:])
	for ; i < len(out); i++ {
		o := i*w - base*8
		out[i] = int32(binary.LittleEndian.Uint64(pad[o>>3:]) >> (o & 7) & mask)
	}
}

// decodeBitPackedLevels decodes len(out) levels of the deprecated BIT_PACKED
// encoding: values of bitWidth (0..32) bits packed back to back, MSB first,
// with no header. It returns the bytes consumed, ceil(len(out)*bitWidth/8).
func decodeBitPackedLevels(data []byte, bitWidth int, out []int32) (int, error) {
	if bitWidth < 0 || bitWidth > 32 {
		return 0, fmt.Errorf("parquet: %s: bit width %d not in 0..32", encNameBitPacked, bitWidth)
	}
	if bitWidth == 0 {
		clear(out)
		return 0, nil
	}
	// Compare counts rather than multiply len(out) first.
	if len(out) > len(data)/bitWidth*8+(len(data)%bitWidth*8)/bitWidth {
		return 0, encErrEOF(encNameBitPacked, "values", 0, len(data), (len(out)*bitWidth+7)/8)
	}
	need := (len(out)*bitWidth + 7) / 8
	unpackMSB32(out, data[:need], bitWidth)
	return need, nil
}

// unpackMSB32 unpacks len(out) values of w bits (1..32), packed MSB first,
// from src, which holds at least ceil(len(out)*w/8) bytes.
func unpackMSB32(out []int32, src []byte, w int) {
	shr := uint(64 - w)
	i := 0
	// As in unpackLSB32, but the value is the top bits of a big-endian load
	// shifted left by o%8.
	if len(src) >= 8 {
		fast := min(len(out), ((len(src)-7)*8-1)/w+1)
		for ; i < fast; i++ {
			o := i * w
			out[i] = int32(binary.BigEndian.Uint64(src[o>>3:]) << (o & 7) >> shr)
		}
	}
	if i == len(out) {
		return
	}
	base := (i * w) >> 3
	var pad [16]byte
	copy(pad[:], src[base:])
	for ; i < len(out); i++ {
		o := i*w - base*8
		out[i] = int32(binary.BigEndian.Uint64(pad[o>>3:]) << (o & 7) >> shr)
	}
}

// appendHybrid appends the RLE/bit-packed hybrid encoding of vals, each
// below 1<<width (width 1 to 32): levels, or dictionary indices. A run of
// eight or more equal values is an RLE run, the rest are bit-packed eight
// to a group. The last group is padded with zeros, which a reader,
// knowing how many values the page holds, ignores. A bit-packed run must
// be whole groups, so a long run that starts inside a group gives that
// group its first few values.
func appendHybrid[T uint8 | uint32](dst []byte, vals []T, width int) []byte {
	start := 0 // the first value not yet encoded
	for i := 0; i < len(vals); {
		r := 1
		for i+r < len(vals) && vals[i+r] == vals[i] {
			r++
		}
		if r < 8 {
			i += r
			continue
		}
		if k := (i - start) % 8; k != 0 {
			i += 8 - k // r > 8-k: a run of at least one is left
			continue
		}
		dst = appendBitPacked(dst, vals[start:i], width)
		dst = binary.AppendUvarint(dst, uint64(r)<<1)
		for j := 0; j < width; j += 8 { // the value in ceil(width/8) bytes
			dst = append(dst, byte(uint32(vals[i])>>j))
		}
		i += r
		start = i
	}
	return appendBitPacked(dst, vals[start:], width)
}

// appendBitPacked appends vals as one bit-packed run, least significant
// bit first, in groups of eight: width bytes a group.
func appendBitPacked[T uint8 | uint32](dst []byte, vals []T, width int) []byte {
	if len(vals) == 0 {
		return dst
	}
	groups := (len(vals) + 7) / 8
	dst = binary.AppendUvarint(dst, uint64(groups)<<1|1)
	at := len(dst)
	dst = slices.Grow(dst, groups*width)[:at+groups*width]
	out := dst[at:]
	// acc holds fewer than 8 bits between values, so a value of up to 32
	// bits always fits beside them.
	var acc uint64
	n, o := 0, 0 // bits in acc, bytes written
	for _, v := range vals {
		acc |= uint64(v) << n
		for n += width; n >= 8; n -= 8 {
			out[o] = byte(acc)
			acc >>= 8
			o++
		}
	}
	for ; o < len(out); o++ { // the last value's bits, then the padding
		out[o] = byte(acc)
		acc >>= 8
	}
	return dst
}
