package parquet

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"slices"
)

// A columnReader reads one column chunk entry by entry: each entry a
// value, a null, or an empty list, with its repetition level. It decodes
// a page's entries a batch at a time, levels then values, converting the
// values to the column's Kind: the memory a page takes is its bytes and a
// batch, whatever number of entries it claims (runs of a few bytes may
// claim millions, as a page of nulls or a long list of one value does).
type columnReader struct {
	col   *Column
	pages pageReader
	left  int64 // entries the chunk's metadata promises that are not yet read

	// The dictionary, converted to the column's Kind.
	hasDict bool
	dictI   []int64
	dictF   []float32
	dictB   [][]byte
	dictBuf []byte // the dictionary page's bytes, which dictB slices
	// dictBad holds the dictionary's values that have no Example value
	// (a placeholder stands in their place), in order: a row that takes
	// one fails, not the page.
	dictBad []valueError

	// The current page.
	offset     int64 // of its header, for errors
	pageLeft   int   // entries not yet in a batch
	repL, defL levelReader
	vr         valueReader

	// The current batch of the page's entries.
	rep, def []int32
	n, pos   int // entries, and the next
	vals     values
	vi       int // the next value
	// bad, if set, is the error of the page's value after those in
	// vals, which has no Example value (the values after it are not
	// read): the row that takes it fails with bad, so that the error
	// names that row rather than the page's first.
	bad error

	// Scratch for decoding.
	idx  []int32
	phys physical
}

// entryBatch is the most entries of a page decoded at a time. It is a
// multiple of 8, so that each batch of BIT_PACKED levels starts on a
// byte.
const entryBatch = 4096

// values holds decoded values of one Kind.
type values struct {
	i []int64
	f []float32
	b [][]byte
}

// physical holds decoded values before conversion to a Kind.
type physical struct {
	i32  []int32
	i64  []int64
	f32  []float32
	f64  []float64
	bits []bool
	b    [][]byte
	i96  [][12]byte
	buf  []byte
}

// nextPage reads the chunk's next data page, reading a dictionary page
// first if there is one. It returns io.EOF after the last page.
func (c *columnReader) nextPage() error {
	for {
		p, err := c.pages.next()
		c.offset = p.offset
		if err != nil {
			return err
		}
		switch {
		case p.h.Type == pageDictionary && p.h.Dictionary != nil:
			if err := c.readDictionary(p); err != nil {
				return err
			}
		case p.h.Type == pageData && p.h.Data != nil:
			h := p.h.Data
			return c.readData(p.data, int(h.NumValues), h.Encoding, levelsV1Of(h))
		case p.h.Type == pageDataV2 && p.h.DataV2 != nil:
			h := p.h.DataV2
			return c.readData(p.data, int(h.NumValues), h.Encoding, levelsV2Of(h))
		case p.h.Type == pageDictionary, p.h.Type == pageData, p.h.Type == pageDataV2:
			return fmt.Errorf("%v page without its header", p.h.Type)
		}
		// Index pages and page types added later hold no values.
	}
}

// levelLayout is how a data page stores its levels: a v1 page in the
// given encodings, RLE with a length prefix or BIT_PACKED; a v2 page
// always RLE, without prefixes, in as many bytes as its header says.
type levelLayout struct {
	v2             bool
	repEnc, defEnc encoding
	repLen, defLen int
}

func levelsV1Of(h *dataPageHeader) levelLayout {
	return levelLayout{repEnc: h.RepetitionLevelEncoding, defEnc: h.DefinitionLevelEncoding}
}

func levelsV2Of(h *dataPageHeaderV2) levelLayout {
	return levelLayout{v2: true, repLen: int(h.RepetitionLevelsByteLength), defLen: int(h.DefinitionLevelsByteLength)}
}

// readData starts a data page of n entries: it finds where its levels
// and values are, and decodes none of them yet.
func (c *columnReader) readData(data []byte, n int, enc encoding, lay levelLayout) error {
	if n < 0 {
		return fmt.Errorf("data page of %d values", n)
	}
	if int64(n) > c.left {
		return fmt.Errorf("data page has %d values, its column chunk %d more", n, c.left)
	}
	c.left -= int64(n)
	c.pageLeft, c.n, c.pos, c.vi, c.bad = n, 0, 0, 0, nil
	c.vals.reset()
	col := c.col
	var err error
	if lay.v2 {
		repLen, defLen := lay.repLen, lay.defLen // checked against the page by decompress
		if col.maxRep > 0 {
			c.repL.initHybrid(data[:repLen], col.maxRep)
		}
		if col.maxDef > 0 {
			c.defL.initHybrid(data[repLen:repLen+defLen], col.maxDef)
		}
		data = data[repLen+defLen:]
	} else {
		if col.maxRep > 0 {
			if data, err = c.repL.initV1(data, lay.repEnc, col.maxRep, n); err != nil {
				return fmt.Errorf("repetition levels: %w", err)
			}
		}
		if col.maxDef > 0 {
			if data, err = c.defL.initV1(data, lay.defEnc, col.maxDef, n); err != nil {
				return fmt.Errorf("definition levels: %w", err)
			}
		}
	}
	c.vr = valueReader{enc: enc, data: data, deltas: c.vr.deltas}
	if enc == encPlainDictionary || enc == encRLEDictionary {
		if !c.hasDict {
			return fmt.Errorf("dictionary-encoded page without a dictionary")
		}
		return nil
	}
	// Decoding no values checks that the column's type takes the encoding.
	return c.decodePhysical(0)
}

// nextBatch decodes the page's next entries, at most entryBatch: their
// levels, then their values into c.vals.
func (c *columnReader) nextBatch() error {
	if c.bad != nil {
		// Not reached: the row that takes the bad value fails.
		return c.bad
	}
	k := min(c.pageLeft, entryBatch)
	c.pageLeft -= k
	c.n, c.pos, c.vi = k, 0, 0
	col := c.col
	c.rep, c.def = c.rep[:0], c.def[:0]
	if col.maxRep > 0 {
		c.rep = resize(c.rep, k)
		if err := c.repL.read(c.rep); err != nil {
			return fmt.Errorf("repetition levels: %w", err)
		}
		for _, r := range c.rep {
			if r > col.maxRep || r < 0 {
				return fmt.Errorf("repetition level %d above the column's %d", r, col.maxRep)
			}
		}
	}
	count := k
	if col.maxDef > 0 {
		c.def = resize(c.def, k)
		if err := c.defL.read(c.def); err != nil {
			return fmt.Errorf("definition levels: %w", err)
		}
		count = 0
		for _, d := range c.def {
			if d == col.maxDef {
				count++
			} else if d > col.maxDef || d < 0 {
				return fmt.Errorf("definition level %d above the column's %d", d, col.maxDef)
			}
		}
	}
	return c.decodeValues(count)
}

// decodeValues decodes the page's next count values into c.vals.
func (c *columnReader) decodeValues(count int) error {
	c.vals.reset()
	if count == 0 {
		return nil
	}
	v := &c.vr
	if v.enc == encPlainDictionary || v.enc == encRLEDictionary {
		if !v.started {
			if len(v.data) == 0 {
				return fmt.Errorf("dictionary indices: no bytes for %d values", count)
			}
			width := int(v.data[0])
			if width > 32 {
				return fmt.Errorf("dictionary indices of %d bits", width)
			}
			v.hybrid.init(v.data[1:], width)
			v.started = true
		}
		c.idx = resize(c.idx, count)
		if err := v.hybrid.read(c.idx); err != nil {
			return fmt.Errorf("dictionary indices: %w", err)
		}
		return c.gather()
	}
	if err := c.decodePhysical(count); err != nil {
		return err
	}
	if err := c.appendConverted(&c.vals); err != nil {
		if ve, ok := err.(*valueError); ok {
			c.bad = ve.err
			return nil
		}
		return err
	}
	return nil
}

// A levelReader reads a data page's repetition or definition levels a
// batch at a time.
type levelReader struct {
	hybrid hybridReader
	// BIT_PACKED levels (v1 pages, deprecated): packed, MSB first, at
	// data[at*width/8:]; reads are whole bytes, as batches are multiples
	// of 8 entries but the last.
	packed bool
	data   []byte
	width  int
	at     int
}

func (l *levelReader) initHybrid(data []byte, maxLevel int32) {
	l.packed = false
	l.hybrid.init(data, bitWidth(int(maxLevel)))
}

// initV1 splits the levels of n entries of a v1 data page, in the RLE
// encoding with a length prefix or BIT_PACKED, off data.
func (l *levelReader) initV1(data []byte, enc encoding, maxLevel int32, n int) ([]byte, error) {
	width := bitWidth(int(maxLevel))
	switch enc {
	case encRLE:
		if len(data) < 4 {
			return nil, fmt.Errorf("levels: %d bytes, too short for their length", len(data))
		}
		size := binary.LittleEndian.Uint32(data)
		if uint64(size) > uint64(len(data)-4) {
			return nil, fmt.Errorf("levels of %d bytes in a page of %d", size, len(data)-4)
		}
		l.initHybrid(data[4:4+size], maxLevel)
		return data[4+size:], nil
	case encBitPacked:
		// Compare counts rather than multiply n first.
		if n > len(data)/width*8+(len(data)%width*8)/width {
			return nil, encErrEOF(encNameBitPacked, "values", 0, len(data), (n*width+7)/8)
		}
		size := (n*width + 7) / 8
		*l = levelReader{packed: true, data: data[:size], width: width}
		return data[size:], nil
	}
	return nil, fmt.Errorf("levels in %v encoding are %w", enc, ErrUnsupported)
}

// read decodes the next len(out) levels.
func (l *levelReader) read(out []int32) error {
	if !l.packed {
		return l.hybrid.read(out)
	}
	// initV1 checked that the page holds every level.
	unpackMSB32(out, l.data[l.at*l.width/8:], l.width)
	l.at += len(out)
	return nil
}

// A valueReader reads a data page's values a batch at a time. Decoding
// starts at the first value read, so that a page of nulls, which has no
// values, needs no bytes for them either.
type valueReader struct {
	enc     encoding
	data    []byte
	started bool
	pos     int          // PLAIN: the next value's byte, a BOOLEAN's bit; BYTE_STREAM_SPLIT: its index
	stride  int          // BYTE_STREAM_SPLIT: the values in each stream
	hybrid  hybridReader // dictionary indices; RLE booleans
	// The DELTA_* readers, made for the first page that needs them and
	// kept across pages (with DELTA_BYTE_ARRAY's buffer): they are large
	// beside a columnReader, most of whose pages never use them.
	deltas *deltaReaders
}

type deltaReaders struct {
	delta deltaReader // DELTA_BINARY_PACKED
	dla   deltaLengthReader
	dba   deltaByteArrayReader
}

// A valueError is a conversion's failure at one value, the values before
// it converted: a data page's is reported at the row that takes the value
// (columnReader.bad).
type valueError struct {
	at  int
	err error
}

func (e *valueError) Error() string { return fmt.Sprintf("value %d: %v", e.at, e.err) }
func (e *valueError) Unwrap() error { return e.err }

// gather looks the page's dictionary indices up. An index outside the
// dictionary ends the page's values there (columnReader.bad).
func (c *columnReader) gather() error {
	size := max(len(c.dictI), len(c.dictF), len(c.dictB))
	idx := c.idx
	for j, k := range idx {
		if k < 0 || int(k) >= size {
			c.bad = fmt.Errorf("dictionary index %d of a dictionary of %d values", k, size)
			idx = idx[:j]
			break
		}
		if len(c.dictBad) > 0 && c.badInDict(k) {
			idx = idx[:j]
			break
		}
	}
	c.vals.reset()
	switch c.col.Kind {
	case Int64:
		for _, k := range idx {
			c.vals.i = append(c.vals.i, c.dictI[k])
		}
	case Float:
		for _, k := range idx {
			c.vals.f = append(c.vals.f, c.dictF[k])
		}
	default:
		for _, k := range idx {
			c.vals.b = append(c.vals.b, c.dictB[k])
		}
	}
	return nil
}

// readDictionary decodes a dictionary page (always PLAIN values).
func (c *columnReader) readDictionary(p page) error {
	if c.hasDict {
		return fmt.Errorf("a second dictionary page")
	}
	h := p.h.Dictionary
	if h.Encoding != encPlain && h.Encoding != encPlainDictionary {
		return fmt.Errorf("a dictionary in %v encoding is %w", h.Encoding, ErrUnsupported)
	}
	// The values alias the page's bytes, which the next page overwrites.
	c.dictBuf = append(c.dictBuf[:0], p.data...)
	// Decoded whole: its values are bounded by its bytes.
	n := int(h.NumValues)
	if min := c.minPlainSize(); n < 0 || min == 0 && n > 8*len(c.dictBuf) || min > 0 && n > len(c.dictBuf)/min {
		return fmt.Errorf("dictionary: PLAIN: %d values in %d bytes", n, len(c.dictBuf))
	}
	// Decoded, a value takes more than its bytes: a bit becomes a bool
	// and an int64, a short byte array two slices. The page limit bounds
	// that memory as it bounds a row's, or a dictionary of a few KB would
	// take GBs.
	if limit := c.pages.limits.maxPage; n > limit/c.dictValueSize() {
		return fmt.Errorf("dictionary: %d values take %d bytes decoded, over the %d-byte page limit (MaxPageSize)", n, n*c.dictValueSize(), limit)
	}
	c.vr = valueReader{enc: encPlain, data: c.dictBuf, deltas: c.vr.deltas}
	if err := c.decodePhysical(n); err != nil {
		return fmt.Errorf("dictionary: %w", err)
	}
	var v values
	c.dictBad = c.dictBad[:0]
	at := 0 // the dictionary index of phys's first value
	for {
		err := c.appendConverted(&v)
		if err == nil {
			break
		}
		ve, ok := err.(*valueError)
		if !ok || len(c.dictBad) == maxDictBad {
			return fmt.Errorf("dictionary: %w", err)
		}
		// A zero stands in the bad value's place, and the values after
		// it are converted on their own.
		c.dictBad = append(c.dictBad, valueError{at + ve.at, ve.err})
		switch c.col.Kind {
		case Int64:
			v.i = append(v.i, 0)
		case Float:
			v.f = append(v.f, 0)
		default:
			v.b = append(v.b, nil)
		}
		at += ve.at + 1
		c.dropPhysical(ve.at + 1)
	}
	c.dictI, c.dictF, c.dictB, c.hasDict = v.i, v.f, v.b, true
	return nil
}

// dropPhysical drops c.phys's first n values.
func (c *columnReader) dropPhysical(n int) {
	p := &c.phys
	switch c.col.physical {
	case typeBoolean:
		p.bits = p.bits[n:]
	case typeInt32:
		p.i32 = p.i32[n:]
	case typeInt64:
		p.i64 = p.i64[n:]
	case typeInt96:
		p.i96 = p.i96[n:]
	case typeFloat:
		p.f32 = p.f32[n:]
	case typeDouble:
		p.f64 = p.f64[n:]
	default:
		p.b = p.b[n:]
	}
}

// badInDict reports whether dictionary value k has no Example value, and
// if so makes its error the page's c.bad.
func (c *columnReader) badInDict(k int32) bool {
	i, found := slices.BinarySearchFunc(c.dictBad, int(k), func(e valueError, k int) int { return cmp.Compare(e.at, k) })
	if found {
		c.bad = fmt.Errorf("dictionary value %d: %w", k, c.dictBad[i].err)
	}
	return found
}

// maxDictBad bounds the dictionary values without an Example value that
// are told apart, each with its error: a dictionary with more is refused
// whole.
const maxDictBad = 64

func (v *values) reset() { v.i, v.f, v.b = v.i[:0], v.f[:0], v.b[:0] }

// dictValueSize is the memory a dictionary value takes decoded: its
// physical value (a bytes value's slice; its bytes are the page's) and its
// Example value.
func (c *columnReader) dictValueSize() int {
	size := 24 // a slice
	switch c.col.physical {
	case typeBoolean:
		size = 1
	case typeInt32, typeFloat:
		size = 4
	case typeInt64, typeDouble:
		size = 8
	case typeInt96:
		size = 12
	}
	switch c.col.Kind {
	case Int64:
		return size + 8
	case Float:
		return size + 4
	}
	return size + 24
}

// minPlainSize is the fewest bytes a PLAIN value of the column takes,
// which bounds the values a page can claim before anything is allocated.
func (c *columnReader) minPlainSize() int {
	switch c.col.physical {
	case typeBoolean:
		return 0 // a bit; checked as bits below
	case typeInt32, typeFloat, typeByteArray:
		return 4
	case typeInt64, typeDouble:
		return 8
	case typeInt96:
		return 12
	}
	return int(c.col.leaf.TypeLength)
}

// decodePhysical decodes the page's next count values into c.phys.
func (c *columnReader) decodePhysical(count int) error {
	v := &c.vr
	if v.deltas == nil && (v.enc == encDeltaBinaryPacked || v.enc == encDeltaLengthByteArray || v.enc == encDeltaByteArray) {
		v.deltas = new(deltaReaders)
	}
	if count > 0 && !v.started {
		if err := c.startValues(); err != nil {
			return fmt.Errorf("%v values: %w", v.enc, err)
		}
		v.started = true
	}
	var data []byte // PLAIN's bytes from the next value; the other encodings' readers hold theirs
	if v.enc == encPlain && c.col.physical != typeBoolean {
		data = v.data[v.pos:]
	}
	p := &c.phys
	var n int // PLAIN bytes read
	var err error
	switch c.col.physical {
	case typeBoolean:
		p.bits = resize(p.bits, count)
		switch v.enc {
		case encPlain:
			err = v.plainBools(p.bits)
		case encRLE:
			c.idx = resize(c.idx, count)
			if err = v.hybrid.read(c.idx); err == nil {
				for i, x := range c.idx {
					p.bits[i] = x != 0
				}
			}
		default:
			return c.badEncoding(v.enc)
		}
	case typeInt32:
		p.i32 = resize(p.i32, count)
		switch v.enc {
		case encPlain:
			n, err = decodePlainInt32(data, p.i32)
		case encDeltaBinaryPacked:
			p.i64 = resize(p.i64, count)
			if err = v.deltas.delta.read(p.i64); err == nil {
				for i, x := range p.i64 {
					p.i32[i] = int32(x)
				}
			}
		case encByteStreamSplit:
			_, err = decodeByteStreamSplitInt32(v.data, v.stride, v.pos, p.i32)
			v.pos += count
		default:
			return c.badEncoding(v.enc)
		}
	case typeInt64:
		p.i64 = resize(p.i64, count)
		switch v.enc {
		case encPlain:
			n, err = decodePlainInt64(data, p.i64)
		case encDeltaBinaryPacked:
			err = v.deltas.delta.read(p.i64)
		case encByteStreamSplit:
			_, err = decodeByteStreamSplitInt64(v.data, v.stride, v.pos, p.i64)
			v.pos += count
		default:
			return c.badEncoding(v.enc)
		}
	case typeInt96:
		if v.enc != encPlain {
			return c.badEncoding(v.enc)
		}
		p.i96 = resize(p.i96, count)
		n, err = decodePlainInt96(data, p.i96)
	case typeFloat:
		p.f32 = resize(p.f32, count)
		switch v.enc {
		case encPlain:
			n, err = decodePlainFloat(data, p.f32)
		case encByteStreamSplit:
			_, err = decodeByteStreamSplitFloat(v.data, v.stride, v.pos, p.f32)
			v.pos += count
		default:
			return c.badEncoding(v.enc)
		}
	case typeDouble:
		p.f64 = resize(p.f64, count)
		switch v.enc {
		case encPlain:
			n, err = decodePlainDouble(data, p.f64)
		case encByteStreamSplit:
			_, err = decodeByteStreamSplitDouble(v.data, v.stride, v.pos, p.f64)
			v.pos += count
		default:
			return c.badEncoding(v.enc)
		}
	case typeByteArray, typeFixedLenByteArray:
		p.b = resize(p.b, count)
		size := int(c.col.leaf.TypeLength)
		fixed := c.col.physical == typeFixedLenByteArray
		switch {
		case v.enc == encPlain && fixed:
			n, err = decodePlainFixed(data, size, p.b)
		case v.enc == encPlain:
			n, err = decodePlainByteArray(data, p.b)
		case v.enc == encDeltaLengthByteArray && !fixed:
			err = v.deltas.dla.read(p.b)
		case v.enc == encDeltaByteArray:
			if err = v.deltas.dba.read(p.b); err == nil && fixed {
				err = checkFixed(p.b, size)
			}
		case v.enc == encByteStreamSplit && fixed:
			if size <= 0 {
				return fmt.Errorf("FIXED_LEN_BYTE_ARRAY of length %d", size) // refused with the schema
			}
			// At most the page's bytes: count <= stride = len(data)/size.
			if count > v.stride-v.pos {
				return fmt.Errorf("%v values: %d values past the %d of the page", v.enc, v.pos+count, v.stride)
			}
			p.buf = resize(p.buf, size*count)
			_, err = decodeByteStreamSplitFixed(v.data, size, v.stride, v.pos, p.b, p.buf)
			v.pos += count
		default:
			return c.badEncoding(v.enc)
		}
	default:
		return fmt.Errorf("physical type %v is %w", c.col.physical, ErrUnsupported)
	}
	v.pos += n
	if err != nil {
		return fmt.Errorf("%v values: %w", v.enc, err)
	}
	return nil
}

// startValues reads what comes before a data page's values, at its
// first value read.
func (c *columnReader) startValues() error {
	v := &c.vr
	switch v.enc {
	case encRLE: // booleans: a 4-byte length, then the hybrid encoding of width 1
		if len(v.data) < 4 {
			return fmt.Errorf("RLE booleans: %d bytes", len(v.data))
		}
		n := binary.LittleEndian.Uint32(v.data)
		if uint64(n) > uint64(len(v.data)-4) {
			return fmt.Errorf("RLE booleans of %d bytes in %d", n, len(v.data)-4)
		}
		v.hybrid.init(v.data[4:4+n], 1)
	case encDeltaBinaryPacked:
		return v.deltas.delta.init(v.data, 0, encNameDelta)
	case encDeltaLengthByteArray:
		return v.deltas.dla.init(v.data)
	case encDeltaByteArray:
		return v.deltas.dba.init(v.data, c.pages.limits.maxPage)
	case encByteStreamSplit:
		// The streams are as long as the page has values, which the
		// levels tell only as they are read: the page's bytes tell now.
		size := c.minPlainSize()
		if size <= 0 {
			return fmt.Errorf("values of %d bytes", size) // refused with the schema
		}
		if len(v.data)%size != 0 {
			return fmt.Errorf("%d bytes are not streams of %d-byte values", len(v.data), size)
		}
		v.stride = len(v.data) / size
	}
	return nil
}

// plainBools decodes PLAIN booleans, bit-packed LSB first, from bit
// v.pos.
func (v *valueReader) plainBools(out []bool) error {
	if len(out) > 8*len(v.data)-v.pos {
		return encErrEOF(encNamePlain, "booleans", v.pos/8, len(v.data)-v.pos/8, (v.pos+len(out)+7)/8-v.pos/8)
	}
	for i := range out {
		b := v.pos + i
		out[i] = v.data[b>>3]>>(b&7)&1 != 0
	}
	v.pos += len(out)
	return nil
}

func checkFixed(b [][]byte, size int) error {
	for _, v := range b {
		if len(v) != size {
			return fmt.Errorf("a value of %d bytes in a column of %d", len(v), size)
		}
	}
	return nil
}

func (c *columnReader) badEncoding(enc encoding) error {
	return fmt.Errorf("%v values in %v encoding are %w", c.col.physical, enc, ErrUnsupported)
}

// appendConverted appends c.phys's values to v, in the column's Kind. A
// value that has no Example value fails it with a *valueError, v holding
// the values before it.
func (c *columnReader) appendConverted(v *values) error {
	p := &c.phys
	conv := c.col.conv
	switch conv.op {
	case opBool:
		for _, b := range p.bits {
			var x int64
			if b {
				x = 1
			}
			v.i = append(v.i, x)
		}
	case opInt32:
		for _, x := range p.i32 {
			v.i = append(v.i, int64(x))
		}
	case opUint32:
		for _, x := range p.i32 {
			v.i = append(v.i, int64(uint32(x)))
		}
	case opInt64:
		v.i = append(v.i, p.i64...)
	case opUint64:
		for k, x := range p.i64 {
			if x < 0 {
				v.i = append(v.i, p.i64[:k]...)
				return &valueError{k, fmt.Errorf("unsigned value %d is above int64's range", uint64(x))}
			}
		}
		v.i = append(v.i, p.i64...)
	case opInt96:
		for k := range p.i96 {
			ns, ok := int96Nanos(&p.i96[k])
			if !ok {
				return &valueError{k, fmt.Errorf("INT96 timestamp %x is outside int64 nanoseconds", p.i96[k])}
			}
			v.i = append(v.i, ns)
		}
	case opFloat:
		v.f = append(v.f, p.f32...)
	case opDouble:
		for _, x := range p.f64 {
			v.f = append(v.f, float32(x))
		}
	case opFloat16:
		for k, b := range p.b {
			if len(b) != 2 {
				return &valueError{k, fmt.Errorf("FLOAT16 value of %d bytes", len(b))}
			}
			v.f = append(v.f, float16(b))
		}
	case opDecimalInt:
		scale := pow10[conv.scale]
		if c.col.physical == typeInt32 {
			for _, x := range p.i32 {
				v.f = append(v.f, float32(float64(x)/scale))
			}
		} else {
			for _, x := range p.i64 {
				v.f = append(v.f, float32(float64(x)/scale))
			}
		}
	case opDecimalBytes:
		for _, b := range p.b {
			v.f = append(v.f, decimalBytes(b, conv.scale))
		}
	case opBytes:
		v.b = append(v.b, p.b...)
	default:
		return fmt.Errorf("no conversion for %v", c.col.physical)
	}
	return nil
}

// resize returns s with n elements, reallocating only when it is too
// small.
func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}
