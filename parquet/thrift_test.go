package parquet

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"strings"
	"testing"
)

// tenc builds Compact Protocol bytes by hand, for tests: the decoder's
// inputs, valid or not. Its methods chain.
type tenc struct {
	b    []byte
	last []int16 // the previous field id of each open struct
	long bool    // write every field header in the long form
}

func newEnc() *tenc { return &tenc{last: []int16{0}} }

func (e *tenc) raw(b ...byte) *tenc { e.b = append(e.b, b...); return e }

func (e *tenc) uvarint(u uint64) *tenc { e.b = binary.AppendUvarint(e.b, u); return e }

func (e *tenc) zigzag(v int64) *tenc { return e.uvarint(uint64(v<<1) ^ uint64(v>>63)) }

// header writes a field header: the short form when the id is 1 to 15
// past the previous one, else the long form.
func (e *tenc) header(id int16, t compactType) *tenc {
	top := len(e.last) - 1
	if d := int(id) - int(e.last[top]); d > 0 && d <= 15 && !e.long {
		e.raw(byte(d)<<4 | byte(t))
	} else {
		e.raw(byte(t)).zigzag(int64(id))
	}
	e.last[top] = id
	return e
}

func (e *tenc) i8(id int16, v int8) *tenc   { return e.header(id, ctI8).raw(byte(v)) }
func (e *tenc) i16(id int16, v int16) *tenc { return e.header(id, ctI16).zigzag(int64(v)) }
func (e *tenc) i32(id int16, v int32) *tenc { return e.header(id, ctI32).zigzag(int64(v)) }
func (e *tenc) i64(id int16, v int64) *tenc { return e.header(id, ctI64).zigzag(v) }
func (e *tenc) str(id int16, s string) *tenc {
	return e.header(id, ctBinary).uvarint(uint64(len(s))).raw([]byte(s)...)
}
func (e *tenc) double(id int16, v float64) *tenc {
	e.header(id, ctDouble)
	e.b = binary.LittleEndian.AppendUint64(e.b, math.Float64bits(v))
	return e
}
func (e *tenc) boolean(id int16, v bool) *tenc {
	if v {
		return e.header(id, ctTrue)
	}
	return e.header(id, ctFalse)
}

// begin opens a struct field; elem opens a struct that is a list's
// element (or the top struct); end closes either with the stop byte.
func (e *tenc) begin(id int16) *tenc { return e.header(id, ctStruct).elem() }
func (e *tenc) elem() *tenc          { e.last = append(e.last, 0); return e }
func (e *tenc) end() *tenc           { e.last = e.last[:len(e.last)-1]; return e.raw(0) }

// empty writes a field that is an empty struct.
func (e *tenc) empty(id int16) *tenc { return e.begin(id).end() }

func (e *tenc) listHeader(elem compactType, n int) *tenc {
	if n < 15 {
		return e.raw(byte(n)<<4 | byte(elem))
	}
	return e.raw(0xf0 | byte(elem)).uvarint(uint64(n))
}

func (e *tenc) list(id int16, elem compactType, n int) *tenc {
	return e.header(id, ctList).listHeader(elem, n)
}

func (e *tenc) mapHeader(k, v compactType, n int) *tenc {
	if n == 0 {
		return e.raw(0)
	}
	return e.uvarint(uint64(n)).raw(byte(k)<<4 | byte(v))
}

func (e *tenc) bytes() []byte { return bytes.Clone(e.b) }

func TestThriftUvarint(t *testing.T) {
	tests := []struct {
		in      []byte
		want    uint64
		err     string
		eof     bool
		wantOff int
	}{
		{in: []byte{0}, want: 0, wantOff: 1},
		{in: []byte{0x7f}, want: 127, wantOff: 1},
		{in: []byte{0xdf, 0x89, 0x03}, want: 50399, wantOff: 3},
		{in: binary.AppendUvarint(nil, math.MaxUint64), want: math.MaxUint64, wantOff: 10},
		// Not the shortest form, but 10 bytes at most: accepted.
		{in: []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00}, want: 0, wantOff: 10},
		{in: nil, err: "varint at offset 0", eof: true},
		{in: []byte{0x80, 0x80}, err: "varint at offset 0", eof: true},
		{in: []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02}, err: "overflows 64 bits"},
		{in: []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00}, err: "longer than 10 bytes"},
	}
	for _, tt := range tests {
		r := thriftReader{b: tt.in}
		got, err := r.uvarint("test")
		checkThriftErr(t, err, tt.err, tt.eof)
		if tt.err == "" && (got != tt.want || r.off != tt.wantOff) {
			t.Errorf("uvarint(% x) = %d at %d, want %d at %d", tt.in, got, r.off, tt.want, tt.wantOff)
		}
	}
}

// checkThriftErr checks err against want ("" for none): err's text must hold
// want, and wrap io.ErrUnexpectedEOF exactly when eof.
func checkThriftErr(t *testing.T, err error, want string, eof bool) {
	t.Helper()
	switch {
	case want == "" && err != nil:
		t.Errorf("unexpected error: %v", err)
	case want == "":
	case err == nil:
		t.Errorf("no error, want one containing %q", want)
	case !strings.Contains(err.Error(), want):
		t.Errorf("error %q does not contain %q", err, want)
	case errors.Is(err, io.ErrUnexpectedEOF) != eof:
		t.Errorf("error %q: wraps io.ErrUnexpectedEOF is %v, want %v", err, !eof, eof)
	}
}

func TestThriftVarintSizes(t *testing.T) {
	tests := []struct {
		v    int64
		size int
		ok   bool
	}{
		{0, 32, true}, {-1, 32, true}, {1, 32, true},
		{math.MaxInt32, 32, true}, {math.MinInt32, 32, true},
		{math.MaxInt32 + 1, 32, false}, {math.MinInt32 - 1, 32, false},
		{math.MaxInt16, 16, true}, {math.MinInt16, 16, true}, {math.MaxInt16 + 1, 16, false},
		{math.MaxInt64, 64, true}, {math.MinInt64, 64, true},
	}
	for _, tt := range tests {
		r := thriftReader{b: newEnc().zigzag(tt.v).b}
		got, err := r.varint("test", tt.size)
		if tt.ok && (err != nil || got != tt.v) {
			t.Errorf("varint(%d, %d bits) = %d, %v", tt.v, tt.size, got, err)
		}
		if !tt.ok && (err == nil || !strings.Contains(err.Error(), "overflows")) {
			t.Errorf("varint(%d, %d bits): error %v, want an overflow", tt.v, tt.size, err)
		}
	}
}

func TestThriftFieldHeader(t *testing.T) {
	tests := []struct {
		name   string
		in     []byte
		last   int16
		wantID int16
		wantT  compactType
		err    string
		eof    bool
	}{
		{name: "short", in: []byte{0x15}, wantID: 1, wantT: ctI32},
		{name: "short delta", in: []byte{0xfc}, last: 3, wantID: 18, wantT: ctStruct},
		{name: "long", in: newEnc().raw(byte(ctI64)).zigzag(300).b, last: 7, wantID: 300, wantT: ctI64},
		{name: "long negative", in: newEnc().raw(byte(ctBinary)).zigzag(-2).b, wantID: -2, wantT: ctBinary},
		{name: "long backwards", in: newEnc().raw(byte(ctTrue)).zigzag(1).b, last: 9, wantID: 1, wantT: ctTrue},
		{name: "stop", in: []byte{0}, last: 9, wantT: ctStop},
		{name: "uuid", in: []byte{0x1d}, wantID: 1, wantT: ctUUID},
		{name: "type 14", in: []byte{0x1e}, err: "unknown compact type 14"},
		{name: "type 15", in: []byte{0x1f}, err: "unknown compact type 15"},
		{name: "stop with delta", in: []byte{0x10}, err: "unknown compact type 0"},
		{name: "empty", in: nil, err: "field header at offset 0", eof: true},
		{name: "long cut", in: []byte{0x05}, err: "field id: varint at offset 1", eof: true},
		{name: "long too big", in: newEnc().raw(byte(ctI32)).zigzag(40000).b, err: "overflows 16 bits"},
		{name: "delta overflow", in: []byte{0x15}, last: math.MaxInt16, err: "overflows i16"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := thriftReader{b: tt.in}
			last := tt.last
			id, typ, err := r.fieldHeader(&last)
			checkThriftErr(t, err, tt.err, tt.eof)
			if tt.err != "" {
				return
			}
			if id != tt.wantID || typ != tt.wantT || r.off != len(tt.in) {
				t.Errorf("got id %d type %v off %d, want %d %v %d", id, typ, r.off, tt.wantID, tt.wantT, len(tt.in))
			}
			if typ != ctStop && last != id {
				t.Errorf("last = %d, want %d", last, id)
			}
		})
	}
}

func TestThriftListAndMapHeaders(t *testing.T) {
	pad := make([]byte, 40)
	tests := []struct {
		name  string
		in    []byte
		isMap bool
		wantT compactType
		wantN int
		err   string
		eof   bool
	}{
		{name: "short", in: append([]byte{0x35}, pad...), wantT: ctI32, wantN: 3},
		{name: "short 14", in: append([]byte{0xe8}, pad...), wantT: ctBinary, wantN: 14},
		{name: "long 15", in: append([]byte{0xfc, 15}, pad...), wantT: ctStruct, wantN: 15},
		{name: "long 20", in: append([]byte{0xf6, 20}, pad...), wantT: ctI64, wantN: 20},
		{name: "empty", in: []byte{0x0c}, wantT: ctStruct},
		{name: "empty of no type (fastparquet)", in: []byte{0x00}, wantT: ctStop},
		{name: "bool elements as 1", in: []byte{0x21, 1, 0}, wantT: ctTrue, wantN: 2},
		{name: "bool elements as 2", in: []byte{0x22, 1, 2}, wantT: ctFalse, wantN: 2},
		{name: "stop elements", in: []byte{0x10, 0}, err: "unknown element type 0"},
		{name: "elements 14", in: []byte{0x1e, 0}, err: "unknown element type 14"},
		{name: "short too many", in: []byte{0x35, 1, 2}, err: "list size 3 at offset 0 exceeds the 2 bytes left", eof: true},
		{name: "doubles need 8 bytes", in: append([]byte{0x27}, make([]byte, 15)...), err: "list size 2 at offset 0 exceeds the 15 bytes left", eof: true},
		{name: "huge", in: newEnc().raw(0xf5).uvarint(1<<30).raw(1, 2, 3).b, err: "list size 1073741824 at offset 1 exceeds the 3 bytes left", eof: true},
		{name: "over int32", in: newEnc().raw(0xf5).uvarint(1 << 31).b, err: "list size 2147483648 at offset 1 is over 2^31-1"},
		{name: "cut", in: nil, err: "list header at offset 0", eof: true},
		{name: "map", in: append([]byte{2, 0x85}, pad...), isMap: true, wantT: ctI32, wantN: 2},
		{name: "empty map", in: []byte{0}, isMap: true},
		{name: "map too many", in: []byte{3, 0x88, 1, 2, 3, 4, 5}, isMap: true, err: "map size 3 at offset 0 exceeds the 5 bytes left", eof: true},
		{name: "map key type", in: []byte{1, 0xe5, 1, 1}, isMap: true, err: "unknown key or value type in 0xe5"},
		{name: "map value type", in: []byte{1, 0x50, 1, 1}, isMap: true, err: "unknown key or value type in 0x50"},
		{name: "map cut", in: []byte{1}, isMap: true, err: "map size 1 at offset 0 exceeds the 0 bytes left", eof: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := thriftReader{b: tt.in}
			var typ compactType
			var n int
			var err error
			if tt.isMap {
				_, typ, n, err = r.mapHeader()
			} else {
				typ, n, err = r.listHeader()
			}
			checkThriftErr(t, err, tt.err, tt.eof)
			if tt.err == "" && (typ != tt.wantT || n != tt.wantN) {
				t.Errorf("got %v × %d, want %v × %d", typ, n, tt.wantT, tt.wantN)
			}
		})
	}
}

func TestThriftBinary(t *testing.T) {
	r := thriftReader{b: newEnc().uvarint(5).raw([]byte("hello")...).uvarint(0).uvarint(1000).raw([]byte("short")...).b}
	if s, err := r.str(); s != "hello" || err != nil {
		t.Fatalf("str = %q, %v", s, err)
	}
	if s, err := r.str(); s != "" || err != nil {
		t.Fatalf("empty str = %q, %v", s, err)
	}
	_, err := r.str()
	checkThriftErr(t, err, "string length 1000 at offset 7 exceeds the 5 bytes left", true)
	r = thriftReader{b: newEnc().uvarint(math.MaxUint32).b}
	_, err = r.str()
	checkThriftErr(t, err, "string length 4294967295 at offset 0 is over 2^31-1", false)
}

// everyType appends, as fields of the struct being written, one field
// of every compact type with values that exercise the skipping of each,
// starting at field id from; it is what a newer writer's unknown fields
// could look like.
func (e *tenc) everyType(from int16) *tenc {
	e.boolean(from, true).boolean(from+1, false).i8(from+2, -3).i16(from+3, -300)
	e.i32(from+4, math.MinInt32).i64(from+5, math.MaxInt64).double(from+6, 2.5)
	e.str(from+7, "unknown").header(from+8, ctUUID).raw(make([]byte, 16)...)
	// A list of 20 bools (long form), a set of lists of doubles, a map
	// from i32 to structs, a map of bools, an empty map, a struct of all
	// of these again, a list of empty lists.
	e.list(from+9, ctTrue, 20).raw(bytes.Repeat([]byte{1, 2}, 10)...)
	e.header(from+10, ctSet).listHeader(ctList, 2).listHeader(ctDouble, 1).raw(make([]byte, 8)...).listHeader(ctDouble, 0)
	e.header(from+11, ctMap).mapHeader(ctI32, ctStruct, 2)
	e.zigzag(1).elem().str(1, "v").i32(2, 7).end().zigzag(-1).elem().end()
	e.header(from+12, ctMap).mapHeader(ctTrue, ctFalse, 2).raw(1, 0, 0, 1)
	e.header(from+13, ctMap).mapHeader(0, 0, 0)
	e.list(from+14, ctList, 2).listHeader(ctI64, 0).listHeader(ctI8, 1).raw(9)
	e.header(from+15, ctStruct).elem().list(1, ctBinary, 1).uvarint(1).raw('x').begin(2).begin(3).i64(4, 1).end().end().end()
	return e
}

func TestThriftSkipEveryType(t *testing.T) {
	for _, long := range []bool{false, true} {
		e := newEnc()
		e.long = long
		e.elem()
		e.everyType(1)
		e.everyType(100)
		e.end()
		e.raw(0xaa) // not part of the struct
		r := thriftReader{b: e.b}
		if err := r.skipStruct(); err != nil {
			t.Fatalf("long %v: %v", long, err)
		}
		if r.off != len(e.b)-1 || r.depth != 0 {
			t.Fatalf("long %v: skipped to %d at depth %d, want %d at 0", long, r.off, r.depth, len(e.b)-1)
		}
		// Every cut short version fails for want of bytes, not otherwise.
		for i := range len(e.b) - 1 {
			r := thriftReader{b: e.b[:i]}
			err := r.skipStruct()
			if !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Fatalf("long %v: cut at %d: %v, want io.ErrUnexpectedEOF", long, i, err)
			}
		}
	}
}

func TestThriftSkipRejects(t *testing.T) {
	nest := func(n int, open, close []byte) []byte {
		return append(bytes.Repeat(open, n), bytes.Repeat(close, n)...)
	}
	tests := []struct {
		name string
		in   []byte
		err  string
		eof  bool
	}{
		{name: "32 structs", in: nest(32, []byte{0x1c}, []byte{0})[1:]},
		{name: "33 structs", in: nest(33, []byte{0x1c}, []byte{0})[1:], err: "value at offset 32 nests deeper than 32"},
		{name: "1000 structs", in: nest(1000, []byte{0x1c}, []byte{0}), err: "nests deeper than 32"},
		{name: "1000 lists", in: append([]byte{0x19}, nest(1000, []byte{0x19}, nil)...), err: "nests deeper than 32"},
		{name: "1000 maps", in: append([]byte{0x1b}, nest(1000, []byte{1, 0xbb}, nil)...), err: "nests deeper than 32"},
		{name: "bad nested type", in: []byte{0x1c, 0x1e, 0, 0}, err: "field 1: field header 0x1e at offset 1: unknown compact type 14"},
		{name: "bad element type", in: []byte{0x19, 0x1f, 0}, err: "field 1: list header 0x1f at offset 1: unknown element type 15"},
		{name: "string past end", in: []byte{0x18, 100, 'a', 0}, err: "field 1: binary length 100 at offset 1 exceeds the 2 bytes left", eof: true},
		{name: "double cut", in: []byte{0x17, 1, 2, 3}, err: "field 1: double at offset 1 needs 8 bytes, 3 left", eof: true},
		{name: "uuid cut", in: append([]byte{0x1d}, make([]byte, 15)...), err: "field 1: uuid at offset 1 needs 16 bytes, 15 left", eof: true},
		{name: "varint overflow", in: append([]byte{0x16}, bytes.Repeat([]byte{0xff}, 11)...), err: "field 1: i64: varint at offset 1 is longer than 10 bytes"},
		{name: "no stop", in: []byte{0x15, 2}, err: "field header at offset 2", eof: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := thriftReader{b: tt.in}
			err := r.skipStruct()
			checkThriftErr(t, err, tt.err, tt.eof)
		})
	}
}

func TestThriftReadStruct(t *testing.T) {
	info := structInfo{name: "Test", fields: []string{1: "a", 3: "c"}, required: 1<<1 | 1<<3}
	read := func(b []byte) (a int32, c string, err error) {
		r := thriftReader{b: b}
		err = r.readStruct(&info, func(id int16, t compactType) (err error) {
			if id == 1 {
				a, err = r.fieldI32(t)
			} else {
				c, err = r.fieldString(t)
			}
			return err
		})
		return a, c, err
	}
	// Unknown fields (2, 4 and on) are skipped, in any order of ids.
	e := newEnc().elem().str(3, "x").i64(2, 5)
	e.everyType(4).i32(1, -7).end()
	if a, c, err := read(e.b); a != -7 || c != "x" || err != nil {
		t.Errorf("got %d %q %v", a, c, err)
	}
	_, _, err := read(newEnc().elem().i32(1, 1).end().b)
	checkThriftErr(t, err, "Test at offset 0 lacks required field 3 (c)", false)
	_, _, err = read(newEnc().elem().i64(1, 1).end().b)
	checkThriftErr(t, err, "field 1 (a): wire type i64 at offset 0, want i32", false)
	_, _, err = read(newEnc().elem().boolean(3, true).end().b)
	checkThriftErr(t, err, "field 3 (c): wire type bool at offset 0, want binary", false)
}

func TestThriftFieldList(t *testing.T) {
	read := func(b []byte) ([]string, error) {
		r := thriftReader{b: b}
		_, typ, err := r.fieldHeader(new(int16))
		if err != nil {
			return nil, err
		}
		return fieldList(&r, typ, ctBinary, (*thriftReader).str)
	}
	got, err := read(newEnc().list(1, ctBinary, 2).uvarint(1).raw('a').uvarint(2).raw('b', 'c').b)
	if err != nil || len(got) != 2 || got[0] != "a" || got[1] != "bc" {
		t.Errorf("got %q, %v", got, err)
	}
	// An empty list's element type does not matter.
	if got, err := read(newEnc().list(1, ctI32, 0).b); err != nil || len(got) != 0 {
		t.Errorf("empty: got %q, %v", got, err)
	}
	_, err = read(newEnc().list(1, ctI32, 1).raw(2).b)
	checkThriftErr(t, err, "list at offset 1 has i32 elements, want binary", false)
	_, err = read(newEnc().header(1, ctSet).listHeader(ctBinary, 0).b)
	checkThriftErr(t, err, "wire type set at offset 0, want list", false)
	_, err = read(newEnc().list(1, ctBinary, 2).uvarint(1).raw('a').uvarint(5).raw('b').b)
	checkThriftErr(t, err, "element 1: string length 5 at offset 4 exceeds the 1 bytes left", true)
}

func TestThriftFieldValues(t *testing.T) {
	b := newEnc().boolean(1, true).boolean(2, false).i8(3, -128).i32(4, -5).i64(5, 1<<40).str(6, "é").b
	r := thriftReader{b: b}
	var last int16
	next := func() compactType {
		_, typ, err := r.fieldHeader(&last)
		if err != nil {
			t.Fatal(err)
		}
		return typ
	}
	if v, err := r.fieldBool(next()); !v || err != nil {
		t.Errorf("bool true: %v %v", v, err)
	}
	if v, err := r.fieldBool(next()); v || err != nil {
		t.Errorf("bool false: %v %v", v, err)
	}
	if v, err := r.fieldI8(next()); v != -128 || err != nil {
		t.Errorf("i8: %v %v", v, err)
	}
	if v, err := r.fieldI32(next()); v != -5 || err != nil {
		t.Errorf("i32: %v %v", v, err)
	}
	if v, err := r.fieldI64(next()); v != 1<<40 || err != nil {
		t.Errorf("i64: %v %v", v, err)
	}
	if v, err := r.fieldString(next()); v != "é" || err != nil {
		t.Errorf("string: %q %v", v, err)
	}
	if _, err := r.fieldBool(ctI32); err == nil || !strings.Contains(err.Error(), "wire type i32 at offset 13, want bool") {
		t.Errorf("bool from i32: %v", err)
	}
}

func TestCompactTypeString(t *testing.T) {
	for typ, want := range map[compactType]string{ctStop: "stop", ctTrue: "bool", ctStruct: "struct", ctUUID: "uuid", 14: "type(14)"} {
		if got := typ.String(); got != want {
			t.Errorf("%d: %q, want %q", uint8(typ), got, want)
		}
	}
}
