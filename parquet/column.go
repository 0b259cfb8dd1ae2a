package parquet

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"slices"
)

// A columnReader reads one column chunk entry by entry: each entry a
// value, a null, or an empty list, with its repetition level. It
// decodes a page at a time into values of the column's Kind.
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
	offset   int64 // of its header, for errors
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

// minPageEntries is the fewest entries a page may claim whatever its
// size: a page of nulls is a few bytes of levels for any number of rows.
const minPageEntries = 1 << 20

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

// readData decodes a data page's levels and values.
func (c *columnReader) readData(data []byte, n int, enc encoding, lay levelLayout) error {
	if n < 0 || n > max(8*len(data), minPageEntries) {
		return fmt.Errorf("data page of %d bytes claims %d values", len(data), n)
	}
	if int64(n) > c.left {
		return fmt.Errorf("data page has %d values, its column chunk %d more", n, c.left)
	}
	c.left -= int64(n)
	c.n, c.pos, c.vi, c.bad = n, 0, 0, nil
	col := c.col
	var err error
	c.rep, c.def = c.rep[:0], c.def[:0]
	if lay.v2 {
		repLen, defLen := lay.repLen, lay.defLen // checked against the page by decompress
		if col.maxRep > 0 {
			c.rep = resize(c.rep, n)
			if _, err = decodeHybrid(data[:repLen], bitWidth(int(col.maxRep)), c.rep); err != nil {
				return fmt.Errorf("repetition levels: %w", err)
			}
		}
		if col.maxDef > 0 {
			c.def = resize(c.def, n)
			if _, err = decodeHybrid(data[repLen:repLen+defLen], bitWidth(int(col.maxDef)), c.def); err != nil {
				return fmt.Errorf("definition levels: %w", err)
			}
		}
		data = data[repLen+defLen:]
	} else {
		if col.maxRep > 0 {
			c.rep = resize(c.rep, n)
			if data, err = levelsV1(data, lay.repEnc, col.maxRep, c.rep); err != nil {
				return fmt.Errorf("repetition levels: %w", err)
			}
		}
		if col.maxDef > 0 {
			c.def = resize(c.def, n)
			if data, err = levelsV1(data, lay.defEnc, col.maxDef, c.def); err != nil {
				return fmt.Errorf("definition levels: %w", err)
			}
		}
	}
	count := n
	if col.maxDef > 0 {
		count = 0
		for _, d := range c.def {
			if d == col.maxDef {
				count++
			} else if d > col.maxDef || d < 0 {
				return fmt.Errorf("definition level %d above the column's %d", d, col.maxDef)
			}
		}
	}
	if col.maxRep > 0 {
		for _, r := range c.rep {
			if r > col.maxRep || r < 0 {
				return fmt.Errorf("repetition level %d above the column's %d", r, col.maxRep)
			}
		}
	}
	return c.decodeValues(data, enc, count)
}

// decodeValues decodes count values of a data page into c.vals.
func (c *columnReader) decodeValues(data []byte, enc encoding, count int) error {
	switch enc {
	case encPlainDictionary, encRLEDictionary:
		if !c.hasDict {
			return fmt.Errorf("dictionary-encoded page without a dictionary")
		}
		if count == 0 {
			c.vals.reset()
			return nil
		}
		if len(data) == 0 {
			return fmt.Errorf("dictionary indices: no bytes for %d values", count)
		}
		width := int(data[0])
		if width > 32 {
			return fmt.Errorf("dictionary indices of %d bits", width)
		}
		c.idx = resize(c.idx, count)
		if _, err := decodeHybrid(data[1:], width, c.idx); err != nil {
			return fmt.Errorf("dictionary indices: %w", err)
		}
		return c.gather()
	}
	if err := c.decodePhysical(data, enc, count); err != nil {
		return err
	}
	if err := c.convert(&c.vals); err != nil {
		if ve, ok := err.(*valueError); ok {
			c.bad = ve.err
			return nil
		}
		return err
	}
	return nil
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
	if err := c.decodePhysical(c.dictBuf, encPlain, int(h.NumValues)); err != nil {
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

// decodePhysical decodes count values in encoding enc into c.phys.
func (c *columnReader) decodePhysical(data []byte, enc encoding, count int) error {
	if count < 0 {
		return fmt.Errorf("%d values", count)
	}
	if enc == encPlain {
		min := c.minPlainSize()
		if min == 0 && count > 8*len(data) || min > 0 && count > len(data)/min {
			return fmt.Errorf("PLAIN: %d values in %d bytes", count, len(data))
		}
	}
	p := &c.phys
	var err error
	switch c.col.physical {
	case typeBoolean:
		p.bits = resize(p.bits, count)
		switch enc {
		case encPlain:
			_, err = decodePlainBool(data, p.bits)
		case encRLE:
			err = c.rleBools(data)
		default:
			return c.badEncoding(enc)
		}
	case typeInt32:
		p.i32 = resize(p.i32, count)
		switch enc {
		case encPlain:
			_, err = decodePlainInt32(data, p.i32)
		case encDeltaBinaryPacked:
			p.i64 = resize(p.i64, count)
			if _, err = decodeDeltaBinaryPacked(data, p.i64); err == nil {
				for i, v := range p.i64 {
					p.i32[i] = int32(v)
				}
			}
		case encByteStreamSplit:
			_, err = decodeByteStreamSplitInt32(data, p.i32)
		default:
			return c.badEncoding(enc)
		}
	case typeInt64:
		p.i64 = resize(p.i64, count)
		switch enc {
		case encPlain:
			_, err = decodePlainInt64(data, p.i64)
		case encDeltaBinaryPacked:
			_, err = decodeDeltaBinaryPacked(data, p.i64)
		case encByteStreamSplit:
			_, err = decodeByteStreamSplitInt64(data, p.i64)
		default:
			return c.badEncoding(enc)
		}
	case typeInt96:
		if enc != encPlain {
			return c.badEncoding(enc)
		}
		p.i96 = resize(p.i96, count)
		_, err = decodePlainInt96(data, p.i96)
	case typeFloat:
		p.f32 = resize(p.f32, count)
		switch enc {
		case encPlain:
			_, err = decodePlainFloat(data, p.f32)
		case encByteStreamSplit:
			_, err = decodeByteStreamSplitFloat(data, p.f32)
		default:
			return c.badEncoding(enc)
		}
	case typeDouble:
		p.f64 = resize(p.f64, count)
		switch enc {
		case encPlain:
			_, err = decodePlainDouble(data, p.f64)
		case encByteStreamSplit:
			_, err = decodeByteStreamSplitDouble(data, p.f64)
		default:
			return c.badEncoding(enc)
		}
	case typeByteArray, typeFixedLenByteArray:
		p.b = resize(p.b, count)
		size := int(c.col.leaf.TypeLength)
		fixed := c.col.physical == typeFixedLenByteArray
		switch {
		case enc == encPlain && fixed:
			_, err = decodePlainFixed(data, size, p.b)
		case enc == encPlain:
			_, err = decodePlainByteArray(data, p.b)
		case enc == encDeltaLengthByteArray && !fixed:
			_, err = decodeDeltaLengthByteArray(data, p.b)
		case enc == encDeltaByteArray:
			_, err = decodeDeltaByteArray(data, p.b, c.pages.limits.maxPage)
			if err == nil && fixed {
				err = checkFixed(p.b, size)
			}
		case enc == encByteStreamSplit && fixed:
			if count > len(data)/size {
				return fmt.Errorf("BYTE_STREAM_SPLIT: %d values of %d bytes in %d bytes", count, size, len(data))
			}
			p.buf = resize(p.buf, size*count)
			_, err = decodeByteStreamSplitFixed(data, size, p.b, p.buf)
		default:
			return c.badEncoding(enc)
		}
	default:
		return fmt.Errorf("physical type %v is %w", c.col.physical, ErrUnsupported)
	}
	if err != nil {
		return fmt.Errorf("%v values: %w", enc, err)
	}
	return nil
}

// rleBools decodes booleans in the RLE encoding: a 4-byte length, then
// the hybrid encoding of width 1.
func (c *columnReader) rleBools(data []byte) error {
	if len(data) < 4 {
		return fmt.Errorf("RLE booleans: %d bytes", len(data))
	}
	n := binary.LittleEndian.Uint32(data)
	if uint64(n) > uint64(len(data)-4) {
		return fmt.Errorf("RLE booleans of %d bytes in %d", n, len(data)-4)
	}
	p := &c.phys
	c.idx = resize(c.idx, len(p.bits))
	if _, err := decodeHybrid(data[4:4+n], 1, c.idx); err != nil {
		return err
	}
	for i, v := range c.idx {
		p.bits[i] = v != 0
	}
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

// convert turns c.phys's values into v, in the column's Kind. A value
// that has no Example value fails it with a *valueError, v holding the
// values before it.
func (c *columnReader) convert(v *values) error {
	v.reset()
	return c.appendConverted(v)
}

// appendConverted appends c.phys's values to v, as convert.
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
