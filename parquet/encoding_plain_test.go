package parquet

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// testEncPlainByteArray encodes vals as PLAIN BYTE_ARRAY.
func testEncPlainByteArray(vals [][]byte) []byte {
	var b []byte
	for _, v := range vals {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(v)))
		b = append(b, v...)
	}
	return b
}

func TestDecodePlainBool(t *testing.T) {
	// LSB first: 0b00001101 is true, false, true, true, false...
	out := make([]bool, 10)
	n, err := decodePlainBool([]byte{0b00001101, 0b10, 0xFF}, out)
	want := []bool{true, false, true, true, false, false, false, false, false, true}
	if err != nil || n != 2 || !slices.Equal(out, want) {
		t.Fatalf("got %v consumed %d: %v", out, n, err)
	}
	if n, err := decodePlainBool(nil, nil); n != 0 || err != nil {
		t.Fatalf("empty: %d %v", n, err)
	}
	_, err = decodePlainBool([]byte{1}, out)
	if !errors.Is(err, io.ErrUnexpectedEOF) || err.Error() != "parquet: PLAIN: booleans at offset 0: data ends after 1 of 2 bytes: unexpected EOF" {
		t.Fatalf("short: %v", err)
	}
}

func TestDecodePlainFixedWidth(t *testing.T) {
	data := make([]byte, 25)
	for i := range data {
		data[i] = byte(i + 1)
	}
	i32 := make([]int32, 6)
	if n, err := decodePlainInt32(data, i32); err != nil || n != 24 || i32[0] != 0x04030201 || i32[5] != 0x18171615 {
		t.Errorf("int32: %x %d %v", i32, n, err)
	}
	i64 := make([]int64, 3)
	if n, err := decodePlainInt64(data, i64); err != nil || n != 24 || i64[0] != 0x0807060504030201 {
		t.Errorf("int64: %x %d %v", i64, n, err)
	}
	f32 := make([]float32, 2)
	if n, err := decodePlainFloat([]byte{0, 0, 0xC0, 0x3F, 0, 0, 0x80, 0xFF}, f32); err != nil || n != 8 || f32[0] != 1.5 || !math.IsInf(float64(f32[1]), -1) {
		t.Errorf("float: %v %d %v", f32, n, err)
	}
	f64 := make([]float64, 1)
	if n, err := decodePlainDouble([]byte{0, 0, 0, 0, 0, 0, 0x02, 0xC0}, f64); err != nil || n != 8 || f64[0] != -2.25 {
		t.Errorf("double: %v %d %v", f64, n, err)
	}
	i96 := make([][12]byte, 2)
	if n, err := decodePlainInt96(data, i96); err != nil || n != 24 || i96[1][0] != 13 || i96[1][11] != 24 {
		t.Errorf("int96: %v %d %v", i96, n, err)
	}
	fixed := make([][]byte, 8)
	if n, err := decodePlainFixed(data, 3, fixed); err != nil || n != 24 || !bytes.Equal(fixed[7], []byte{22, 23, 24}) || cap(fixed[0]) != 3 {
		t.Errorf("fixed: %v %d %v", fixed, n, err)
	}
	// One value too many for each.
	for name, err := range map[string]error{
		"int32":  testEncErr(decodePlainInt32(data, make([]int32, 7))),
		"int64":  testEncErr(decodePlainInt64(data, make([]int64, 4))),
		"float":  testEncErr(decodePlainFloat(data, make([]float32, 7))),
		"double": testEncErr(decodePlainDouble(data, make([]float64, 4))),
		"int96":  testEncErr(decodePlainInt96(data, make([][12]byte, 3))),
		"fixed":  testEncErr(decodePlainFixed(data, 5, make([][]byte, 6))),
	} {
		if !errors.Is(err, io.ErrUnexpectedEOF) || !strings.HasPrefix(err.Error(), "parquet: PLAIN: ") {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := decodePlainInt64(data, make([]int64, 4)); err.Error() != "parquet: PLAIN: 4 values of 8 bytes at offset 0: data ends after 25 of 32 bytes: unexpected EOF" {
		t.Errorf("message: %v", err)
	}
	for _, size := range []int{0, -1} {
		if _, err := decodePlainFixed(data, size, fixed); err == nil {
			t.Errorf("size %d accepted", size)
		}
	}
	// Zero values of size 0 would still be a caller bug: rejected too.
	if _, err := decodePlainFixed(nil, 0, nil); err == nil {
		t.Error("size 0 with no values accepted")
	}
}

// testEncErr drops a decoder's byte count.
func testEncErr(_ int, err error) error { return err }

func TestDecodePlainByteArray(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	vals := testEncRandomStrings(r, 300)
	vals[7] = []byte{}
	enc := testEncPlainByteArray(vals)
	out := make([][]byte, len(vals))
	n, err := decodePlainByteArray(append(slices.Clip(enc), 1, 2, 3), out)
	if err != nil || n != len(enc) || !testEqualByteSlices(out, vals) {
		t.Fatalf("consumed %d of %d: %v", n, len(enc), err)
	}
	for i, v := range out {
		if cap(v) != len(v) {
			t.Fatalf("value %d: cap %d, len %d", i, cap(v), len(v))
		}
	}
	for k := range len(enc) {
		if _, err := decodePlainByteArray(enc[:k:k], out); !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatalf("cut at %d: %v", k, err)
		}
	}
	for _, c := range []struct {
		name string
		data []byte
		msg  string
	}{
		{"length missing", []byte{1, 0, 0, 0, 'a', 2, 0},
			"parquet: PLAIN: BYTE_ARRAY value 1 length at offset 5: data ends after 2 of 4 bytes: unexpected EOF"},
		{"huge length", []byte{1, 0, 0, 0, 'a', 0xFF, 0xFF, 0xFF, 0xFF, 'b'},
			"parquet: PLAIN: BYTE_ARRAY value 1 at offset 9: data ends after 1 of 4294967295 bytes: unexpected EOF"},
	} {
		_, err := decodePlainByteArray(c.data, make([][]byte, 2))
		if err == nil || err.Error() != c.msg {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}
