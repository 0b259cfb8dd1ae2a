package parquet

// A decoder of the Thrift Compact Protocol, as Parquet writes its footer
// and page headers with it. The input is untrusted: a corrupt or hostile
// file must produce an error, never a panic, an allocation sized by a
// number read from the input before that number is checked against the
// bytes that are left, or recursion without a bound.
//
// Errors name what was being read and its byte offset within the input
// slice. An error that more input could cure (the bytes end inside a
// value, or a length points past the end) wraps io.ErrUnexpectedEOF, so
// that a caller reading a stream can fetch more bytes and try again.

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/bits"
	"unsafe"
)

// compactType is a Compact Protocol type id: the low nibble of a field
// header, and the element types of list, set and map headers.
type compactType uint8

const (
	ctStop   compactType = 0
	ctTrue   compactType = 1 // a bool field that is true; as an element type, bool
	ctFalse  compactType = 2 // a bool field that is false; as an element type, bool too
	ctI8     compactType = 3
	ctI16    compactType = 4
	ctI32    compactType = 5
	ctI64    compactType = 6
	ctDouble compactType = 7
	ctBinary compactType = 8
	ctList   compactType = 9
	ctSet    compactType = 10
	ctMap    compactType = 11
	ctStruct compactType = 12
	ctUUID   compactType = 13 // 16 bytes; newer than Parquet, skipped like any other
)

var compactTypeNames = [...]string{
	ctStop: "stop", ctTrue: "bool", ctFalse: "bool", ctI8: "i8", ctI16: "i16",
	ctI32: "i32", ctI64: "i64", ctDouble: "double", ctBinary: "binary",
	ctList: "list", ctSet: "set", ctMap: "map", ctStruct: "struct", ctUUID: "uuid",
}

func (t compactType) String() string {
	if int(t) < len(compactTypeNames) {
		return compactTypeNames[t]
	}
	return fmt.Sprintf("type(%d)", uint8(t))
}

// valid reports whether t can be a field's or an element's type. Types
// 14 and 15 are undefined; the stop type ends a struct and is no value.
func (t compactType) valid() bool { return t >= ctTrue && t <= ctUUID }

// minSize is the fewest bytes an element of type t takes. Checking a
// list's count times minSize against the bytes left bounds every
// allocation and loop by the input's size. Bools in lists take a byte.
func (t compactType) minSize() int {
	switch t {
	case ctDouble:
		return 8
	case ctUUID:
		return 16
	}
	return 1
}

// maxThriftDepth bounds the nesting of structs, lists, sets and maps.
// Parquet's deepest values (SchemaElement, LogicalType, TimestampType,
// TimeUnit, MilliSeconds; or FileMetaData, RowGroup, ColumnChunk,
// ColumnMetaData, Statistics, with their lists) nest under 10 deep; the
// bound keeps the skipping of unknown values from recursing without end.
const maxThriftDepth = 32

// thriftReader reads Compact Protocol values from b, starting at off.
type thriftReader struct {
	b        []byte
	off      int
	depth    int // structs, lists, sets and maps open now
	fieldOff int // where the current field's header began, for errors
	// budget bounds the memory the lists read take, in bytes (0: no
	// bound), and used counts it: an element of a few bytes on the wire
	// can be a struct of a few hundred in memory.
	budget, used int64
}

func (r *thriftReader) left() int { return len(r.b) - r.off }

func (r *thriftReader) readByte(what string) (byte, error) {
	if r.off >= len(r.b) {
		return 0, fmt.Errorf("%s at offset %d: %w", what, r.off, io.ErrUnexpectedEOF)
	}
	c := r.b[r.off]
	r.off++
	return c, nil
}

// fixed returns the next n bytes, a slice of the input.
func (r *thriftReader) fixed(what string, n int) ([]byte, error) {
	if n > r.left() {
		return nil, fmt.Errorf("%s at offset %d needs %d bytes, %d left: %w",
			what, r.off, n, r.left(), io.ErrUnexpectedEOF)
	}
	p := r.b[r.off : r.off+n : r.off+n]
	r.off += n
	return p, nil
}

// uvarint reads an unsigned LEB128 varint of at most 10 bytes whose
// value fits in 64 bits.
func (r *thriftReader) uvarint(what string) (uint64, error) {
	u, n := binary.Uvarint(r.b[r.off:])
	switch {
	case n == 0 && r.left() < binary.MaxVarintLen64:
		return 0, fmt.Errorf("%s: varint at offset %d: %w", what, r.off, io.ErrUnexpectedEOF)
	case n <= 0:
		return 0, fmt.Errorf("%s: varint at offset %d is longer than 10 bytes or overflows 64 bits", what, r.off)
	}
	r.off += n
	return u, nil
}

// varint reads a zigzag varint of an integer of the given bit size.
// A value too big for the size is an error, not truncated: the
// reference implementations would have read a different value.
func (r *thriftReader) varint(what string, size int) (int64, error) {
	start := r.off
	u, err := r.uvarint(what)
	if err != nil {
		return 0, err
	}
	if size < 64 && u>>size != 0 {
		return 0, fmt.Errorf("%s: varint at offset %d overflows %d bits", what, start, size)
	}
	return int64(u>>1) ^ -int64(u&1), nil
}

// count reads a varint count (a byte length, or a list's or map's
// size) of elements taking at least per bytes each, and checks that
// they fit in the bytes left before anyone allocates for them.
func (r *thriftReader) count(what string, per int) (int, error) {
	start := r.off
	u, err := r.uvarint(what)
	if err != nil {
		return 0, err
	}
	if u > math.MaxInt32 {
		return 0, fmt.Errorf("%s %d at offset %d is over 2^31-1", what, u, start)
	}
	return r.fits(what, int(u), per, start)
}

// fits checks that n elements of at least per bytes each fit in the
// bytes left; a count that does not may be a truncated input. (It
// divides, for n*per could overflow a 32-bit int.)
func (r *thriftReader) fits(what string, n, per, start int) (int, error) {
	if n > r.left()/per {
		return 0, fmt.Errorf("%s %d at offset %d exceeds the %d bytes left: %w",
			what, n, start, r.left(), io.ErrUnexpectedEOF)
	}
	return n, nil
}

func (r *thriftReader) i32() (int32, error) {
	v, err := r.varint("i32", 32)
	return int32(v), err
}

func (r *thriftReader) i64() (int64, error) { return r.varint("i64", 64) }

// binary returns the bytes of a binary value, a slice of the input.
func (r *thriftReader) binary(what string) ([]byte, error) {
	n, err := r.count(what, 1)
	if err != nil {
		return nil, err
	}
	return r.fixed(what, n)
}

// str returns a string value, copied: the input may be a reused buffer.
func (r *thriftReader) str() (string, error) {
	p, err := r.binary("string length")
	return string(p), err
}

// fieldHeader reads a field header, or the stop byte that ends a
// struct (then t is ctStop). The short form carries the id as a delta
// from the struct's previous field id, *last, which it updates.
func (r *thriftReader) fieldHeader(last *int16) (id int16, t compactType, err error) {
	r.fieldOff = r.off
	c, err := r.readByte("field header")
	if err != nil {
		return 0, 0, err
	}
	t, delta := compactType(c&0x0f), int(c>>4)
	switch {
	case c == 0:
		return 0, ctStop, nil
	case !t.valid():
		return 0, 0, fmt.Errorf("field header 0x%02x at offset %d: unknown compact type %d", c, r.fieldOff, t)
	case delta != 0:
		if n := int(*last) + delta; n <= math.MaxInt16 {
			*last = int16(n)
			return *last, t, nil
		}
		return 0, 0, fmt.Errorf("field header at offset %d: field id %d+%d overflows i16", r.fieldOff, *last, delta)
	}
	v, err := r.varint("field id", 16)
	if err != nil {
		return 0, 0, err
	}
	*last = int16(v)
	return *last, t, nil
}

// listHeader reads the header of a list or a set: the elements' type
// and their count, checked against the bytes left.
func (r *thriftReader) listHeader() (compactType, int, error) {
	start := r.off
	c, err := r.readByte("list header")
	if err != nil {
		return 0, 0, err
	}
	t := compactType(c & 0x0f)
	// fastparquet writes an empty list's header as 0x00, of no element
	// type: an empty list's type is not checked.
	if c == 0 {
		return t, 0, nil
	}
	if !t.valid() {
		return 0, 0, fmt.Errorf("list header 0x%02x at offset %d: unknown element type %d", c, start, t)
	}
	if c>>4 != 15 {
		n, err := r.fits("list size", int(c>>4), t.minSize(), start)
		return t, n, err
	}
	n, err := r.count("list size", t.minSize())
	return t, n, err
}

// mapHeader reads a map's header: its size, then (if it has entries)
// the key and value types, checked against the bytes left.
func (r *thriftReader) mapHeader() (k, v compactType, n int, err error) {
	start := r.off
	if n, err = r.count("map size", 2); err != nil || n == 0 {
		return 0, 0, 0, err
	}
	c, err := r.readByte("map types")
	if err != nil {
		return 0, 0, 0, err
	}
	k, v = compactType(c>>4), compactType(c&0x0f)
	if !k.valid() || !v.valid() {
		return 0, 0, 0, fmt.Errorf("map header at offset %d: unknown key or value type in 0x%02x", start, c)
	}
	n, err = r.fits("map size", n, k.minSize()+v.minSize(), start)
	return k, v, n, err
}

// enter notes that a struct, list, set or map opens, and refuses to
// nest deeper than maxThriftDepth; leave closes it.
func (r *thriftReader) enter() error {
	if r.depth >= maxThriftDepth {
		return fmt.Errorf("value at offset %d nests deeper than %d structs, lists, sets and maps", r.off, maxThriftDepth)
	}
	r.depth++
	return nil
}

func (r *thriftReader) leave() { r.depth-- }

// skip reads past one value of type t. A bool is a byte of its own as
// an element, but lives in the field header as a field's value.
func (r *thriftReader) skip(t compactType, elem bool) error {
	var err error
	switch t {
	case ctTrue, ctFalse:
		if elem {
			_, err = r.readByte("bool")
		}
	case ctI8:
		_, err = r.readByte("i8")
	case ctI16, ctI32, ctI64:
		_, err = r.uvarint(t.String())
	case ctDouble, ctUUID:
		_, err = r.fixed(t.String(), t.minSize())
	case ctBinary:
		_, err = r.binary("binary length")
	case ctList, ctSet:
		err = r.skipList()
	case ctMap:
		err = r.skipMap()
	case ctStruct:
		err = r.skipStruct()
	default:
		err = fmt.Errorf("value at offset %d: unknown compact type %d", r.off, t)
	}
	return err
}

func (r *thriftReader) skipList() error {
	if err := r.enter(); err != nil {
		return err
	}
	defer r.leave()
	t, n, err := r.listHeader()
	for i := 0; i < n && err == nil; i++ {
		err = r.skip(t, true)
	}
	return err
}

func (r *thriftReader) skipMap() error {
	if err := r.enter(); err != nil {
		return err
	}
	defer r.leave()
	k, v, n, err := r.mapHeader()
	for i := 0; i < n && err == nil; i++ {
		if err = r.skip(k, true); err == nil {
			err = r.skip(v, true)
		}
	}
	return err
}

// anyStruct knows no fields, so that readStruct skips them all.
var anyStruct = structInfo{name: "struct"}

func (r *thriftReader) skipStruct() error { return r.readStruct(&anyStruct, nil) }

// structInfo describes a Thrift struct for readStruct.
type structInfo struct {
	name     string   // the struct's name in parquet.thrift, for errors
	fields   []string // field names by id; "" (or beyond the end): unknown
	required uint64   // bit i set: field i is required
}

func (s *structInfo) field(id int16) string {
	if id < 0 || int(id) >= len(s.fields) {
		return ""
	}
	return s.fields[id]
}

// readStruct reads a struct's fields up to its stop byte, handing each
// field that s knows to fn, which must read its value; unknown fields
// are skipped, so that files from newer writers still read. It then
// checks that every required field came.
func (r *thriftReader) readStruct(s *structInfo, fn func(id int16, t compactType) error) error {
	start := r.off
	if err := r.enter(); err != nil {
		return err
	}
	defer r.leave()
	var last int16
	var seen uint64
	for {
		id, t, err := r.fieldHeader(&last)
		if err != nil {
			return err
		}
		if t == ctStop {
			break
		}
		name := s.field(id)
		if name == "" {
			if err := r.skip(t, false); err != nil {
				return fmt.Errorf("field %d: %w", id, err)
			}
			continue
		}
		if err := fn(id, t); err != nil {
			return fmt.Errorf("field %d (%s): %w", id, name, err)
		}
		seen |= 1 << id
	}
	if missing := s.required &^ seen; missing != 0 {
		id := bits.TrailingZeros64(missing)
		return fmt.Errorf("%s at offset %d lacks required field %d (%s)", s.name, start, id, s.fields[id])
	}
	return nil
}

// want checks a known field's wire type: a field of another type than
// parquet.thrift declares is corruption, not something to skip.
func (r *thriftReader) want(t, w compactType) error {
	if t == w {
		return nil
	}
	return fmt.Errorf("wire type %v at offset %d, want %v", t, r.fieldOff, w)
}

// The field readers check the field's wire type t, then read its value.

func (r *thriftReader) fieldBool(t compactType) (bool, error) {
	if t != ctTrue && t != ctFalse {
		return false, r.want(t, ctTrue)
	}
	return t == ctTrue, nil
}

func (r *thriftReader) fieldI8(t compactType) (int8, error) {
	if err := r.want(t, ctI8); err != nil {
		return 0, err
	}
	c, err := r.readByte("i8")
	return int8(c), err
}

func (r *thriftReader) fieldI32(t compactType) (int32, error) {
	if err := r.want(t, ctI32); err != nil {
		return 0, err
	}
	return r.i32()
}

func (r *thriftReader) fieldI64(t compactType) (int64, error) {
	if err := r.want(t, ctI64); err != nil {
		return 0, err
	}
	return r.i64()
}

func (r *thriftReader) fieldString(t compactType) (string, error) {
	if err := r.want(t, ctBinary); err != nil {
		return "", err
	}
	return r.str()
}

// fieldList reads a list field whose elements are of type elem, reading
// each with read. Memory grows with the elements read, not with the
// count in the header: a hostile count of tiny elements would otherwise
// reserve far more than the input's size.
func fieldList[T any](r *thriftReader, t, elem compactType, read func(*thriftReader) (T, error)) ([]T, error) {
	if err := r.want(t, ctList); err != nil {
		return nil, err
	}
	if err := r.enter(); err != nil {
		return nil, err
	}
	defer r.leave()
	start := r.off
	et, n, err := r.listHeader()
	if err != nil {
		return nil, err
	}
	// An empty list's element type is never looked at; do not fail on it.
	if n > 0 && et != elem {
		return nil, fmt.Errorf("list at offset %d has %v elements, want %v", start, et, elem)
	}
	list := make([]T, 0, min(n, 64))
	for i := range n {
		v, err := read(r)
		if err != nil {
			return nil, fmt.Errorf("element %d: %w", i, err)
		}
		if r.budget > 0 {
			if r.used += int64(unsafe.Sizeof(v)); r.used > r.budget {
				return nil, fmt.Errorf("list at offset %d: the metadata's lists take over %d bytes of memory, %d times their %d bytes in the file", start, r.budget, r.budget/int64(len(r.b)), len(r.b))
			}
		}
		list = append(list, v)
	}
	return list, nil
}

// fieldStruct checks that a field is a struct before fn reads it.
func (r *thriftReader) fieldStruct(t compactType, s *structInfo, fn func(id int16, t compactType) error) error {
	if err := r.want(t, ctStruct); err != nil {
		return err
	}
	return r.readStruct(s, fn)
}
