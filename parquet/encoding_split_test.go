package parquet

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// testEncSplit scatters n values of size bytes (concatenated in plain) into
// size streams, as BYTE_STREAM_SPLIT does.
func testEncSplit(plain []byte, size int) []byte {
	n := len(plain) / size
	out := make([]byte, len(plain))
	for i := range n {
		for j := range size {
			out[j*n+i] = plain[i*size+j]
		}
	}
	return out
}

func TestDecodeByteStreamSplitExample(t *testing.T) {
	// Encodings.md: elements AA BB CC DD, 00 11 22 33, A3 B4 C5 D6 become
	// AA 00 A3 BB 11 B4 CC 22 C5 DD 33 D6.
	data := []byte{0xAA, 0x00, 0xA3, 0xBB, 0x11, 0xB4, 0xCC, 0x22, 0xC5, 0xDD, 0x33, 0xD6}
	i32 := make([]int32, 3)
	n, err := decodeByteStreamSplitInt32(data, len(i32), 0, i32)
	want := []int32{int32(binary.LittleEndian.Uint32([]byte{0xAA, 0xBB, 0xCC, 0xDD})), 0x33221100, int32(binary.LittleEndian.Uint32([]byte{0xA3, 0xB4, 0xC5, 0xD6}))}
	if err != nil || n != 12 || !slices.Equal(i32, want) {
		t.Fatalf("got %x consumed %d: %v", i32, n, err)
	}
	f32 := make([]float32, 3)
	if _, err := decodeByteStreamSplitFloat(data, len(f32), 0, f32); err != nil || math.Float32bits(f32[1]) != 0x33221100 {
		t.Fatalf("float: %v %v", f32, err)
	}
	fixed := make([][]byte, 3)
	buf := make([]byte, 12)
	if n, err := decodeByteStreamSplitFixed(data, 4, len(fixed), 0, fixed, buf); err != nil || n != 12 || !bytes.Equal(fixed[2], []byte{0xA3, 0xB4, 0xC5, 0xD6}) || cap(fixed[0]) != 4 {
		t.Fatalf("fixed: %x %d %v", fixed, n, err)
	}
	// pyarrow 26.0.1, FLOAT column [1.5, -2.25, 3.0] with
	// column_encoding={'x': 'BYTE_STREAM_SPLIT'}: the page's value bytes.
	page := []byte{0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xc0, 0x10, 0x40, 0x3f, 0xc0, 0x40}
	if _, err := decodeByteStreamSplitFloat(page, len(f32), 0, f32); err != nil || !slices.Equal(f32, []float32{1.5, -2.25, 3}) {
		t.Fatalf("pyarrow float: %v %v", f32, err)
	}
}

func TestDecodeByteStreamSplitRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	for _, n := range []int{0, 1, 7, 100, 1001} {
		plain := make([]byte, 16*n)
		for i := range plain {
			plain[i] = byte(r.Uint32())
		}
		p4, p8 := plain[:4*n], plain[:8*n]
		e4, e8 := testEncSplit(p4, 4), testEncSplit(p8, 8)

		f32 := make([]float32, n)
		i32 := make([]int32, n)
		f64 := make([]float64, n)
		i64 := make([]int64, n)
		for name, err := range map[string]error{
			"float":  testEncErr(decodeByteStreamSplitFloat(e4, len(f32), 0, f32)),
			"int32":  testEncErr(decodeByteStreamSplitInt32(e4, len(i32), 0, i32)),
			"double": testEncErr(decodeByteStreamSplitDouble(e8, len(f64), 0, f64)),
			"int64":  testEncErr(decodeByteStreamSplitInt64(e8, len(i64), 0, i64)),
		} {
			if err != nil {
				t.Fatalf("n %d %s: %v", n, name, err)
			}
		}
		for i := range n {
			if math.Float32bits(f32[i]) != binary.LittleEndian.Uint32(p4[4*i:]) ||
				uint32(i32[i]) != binary.LittleEndian.Uint32(p4[4*i:]) ||
				math.Float64bits(f64[i]) != binary.LittleEndian.Uint64(p8[8*i:]) ||
				uint64(i64[i]) != binary.LittleEndian.Uint64(p8[8*i:]) {
				t.Fatalf("n %d: value %d differs", n, i)
			}
		}
		for _, size := range []int{1, 3, 16} {
			enc := testEncSplit(plain[:size*n], size)
			out := make([][]byte, n)
			buf := make([]byte, size*n+5)
			got, err := decodeByteStreamSplitFixed(enc, size, len(out), 0, out, buf)
			if err != nil || got != size*n || !bytes.Equal(bytes.Join(out, nil), plain[:size*n]) {
				t.Fatalf("n %d size %d: consumed %d: %v", n, size, got, err)
			}
		}
		if n == 0 {
			continue
		}
		// One byte short.
		for name, err := range map[string]error{
			"float":  testEncErr(decodeByteStreamSplitFloat(e4[:len(e4)-1], len(f32), 0, f32)),
			"int32":  testEncErr(decodeByteStreamSplitInt32(e4[:len(e4)-1], len(i32), 0, i32)),
			"double": testEncErr(decodeByteStreamSplitDouble(e8[:len(e8)-1], len(f64), 0, f64)),
			"int64":  testEncErr(decodeByteStreamSplitInt64(e8[:len(e8)-1], len(i64), 0, i64)),
			"fixed":  testEncErr(decodeByteStreamSplitFixed(e8[:len(e8)-1], 8, n, 0, make([][]byte, n), make([]byte, 8*n))),
		} {
			if !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Fatalf("n %d %s short: %v", n, name, err)
			}
		}
		if _, err := decodeByteStreamSplitFixed(e8, 8, n, 0, make([][]byte, n), make([]byte, 8*n-1)); err == nil {
			t.Fatalf("n %d: short buffer accepted", n)
		}
	}
	if _, err := decodeByteStreamSplitFixed(nil, 0, 0, 0, nil, nil); err == nil {
		t.Fatal("size 0 accepted")
	}
	if _, err := decodeByteStreamSplitFloat(make([]byte, 7), 2, 0, make([]float32, 2)); err == nil ||
		err.Error() != "parquet: BYTE_STREAM_SPLIT: 4 streams of 2 bytes at offset 0: data ends after 7 of 8 bytes: unexpected EOF" {
		t.Fatalf("message: %v", err)
	}
}
