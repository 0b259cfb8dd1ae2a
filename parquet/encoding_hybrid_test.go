package parquet

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// Test-only encoders for the RLE/bit-packed hybrid and BIT_PACKED encodings,
// written from Encodings.md.

// testEncUvarint appends v as ULEB128.
func testEncUvarint(b []byte, v uint64) []byte {
	return binary.AppendUvarint(b, v)
}

// testEncPackLSB bit-packs vals with width bits each, LSB first, padding the
// last byte with zeros.
func testEncPackLSB(vals []int32, width int) []byte {
	u := make([]uint64, len(vals))
	for i, v := range vals {
		u[i] = uint64(uint32(v))
	}
	return testEncPackLSB64(u, width)
}

// testEncPackMSB bit-packs vals MSB first, as the deprecated BIT_PACKED does.
func testEncPackMSB(vals []int32, width int) []byte {
	out := make([]byte, (len(vals)*width+7)/8)
	for i, v := range vals {
		for b := range width {
			if uint32(v)>>(width-1-b)&1 != 0 {
				bit := i*width + b
				out[bit/8] |= 0x80 >> (bit % 8)
			}
		}
	}
	return out
}

// testEncRLERun appends an RLE run of count copies of v.
func testEncRLERun(b []byte, width int, count uint64, v int32) []byte {
	b = testEncUvarint(b, count<<1)
	for i := range (width + 7) / 8 {
		b = append(b, byte(uint32(v)>>(8*i)))
	}
	return b
}

// testEncBitPackedRun appends a bit-packed run of vals, padded with zeros to
// a multiple of 8 values.
func testEncBitPackedRun(b []byte, width int, vals []int32) []byte {
	groups := (len(vals) + 7) / 8
	padded := make([]int32, groups*8)
	copy(padded, vals)
	b = testEncUvarint(b, uint64(groups)<<1|1)
	return append(b, testEncPackLSB(padded, width)...)
}

// testEncHybrid encodes vals greedily: runs of 8 or more equal values as RLE
// runs (when a bit-packed run can end there, i.e. on a group boundary), the
// rest bit-packed, the last group padded.
func testEncHybrid(vals []int32, width int) []byte {
	var b []byte
	var pending []int32
	for i := 0; i < len(vals); {
		r := 1
		for i+r < len(vals) && vals[i+r] == vals[i] {
			r++
		}
		if r >= 8 && len(pending)%8 == 0 {
			if len(pending) > 0 {
				b = testEncBitPackedRun(b, width, pending)
				pending = pending[:0]
			}
			b = testEncRLERun(b, width, uint64(r), vals[i])
			i += r
			continue
		}
		pending = append(pending, vals[i])
		i++
	}
	if len(pending) > 0 {
		b = testEncBitPackedRun(b, width, pending)
	}
	return b
}

// testEncRandomLevels returns n values below 2^width with runs of repeats,
// so both run kinds occur.
func testEncRandomLevels(r *rand.Rand, n, width int) []int32 {
	vals := make([]int32, 0, n)
	for len(vals) < n {
		v := int32(r.Uint32() & uint32(uint64(1)<<width-1))
		k := 1 + r.IntN(4)
		if r.IntN(3) == 0 {
			k = 1 + r.IntN(40)
		}
		for range min(k, n-len(vals)) {
			vals = append(vals, v)
		}
	}
	return vals
}

func TestTestEncoders(t *testing.T) {
	// The test encoders against the spec's examples (Encodings.md).
	seq := []int32{0, 1, 2, 3, 4, 5, 6, 7}
	if got := testEncPackLSB(seq, 3); !bytes.Equal(got, []byte{0x88, 0xC6, 0xFA}) {
		t.Errorf("LSB: %x", got)
	}
	if got := testEncPackMSB(seq, 3); !bytes.Equal(got, []byte{0x05, 0x39, 0x77}) {
		t.Errorf("MSB: %x", got)
	}
	if got := testEncHybrid(seq, 3); !bytes.Equal(got, []byte{0x03, 0x88, 0xC6, 0xFA}) {
		t.Errorf("hybrid: %x", got)
	}
	spec2 := []byte{0x80, 0x01, 0x04, 0x08, 0x0e, 0x03, 0x02, 0x00, 0x00, 0x00, 0xc0, 0x3f, 0, 0, 0, 0, 0, 0}
	if got := testEncDelta([]int64{7, 5, 3, 1, 2, 3, 4, 5}, testEncDeltaOpts{blockSize: 128, miniCount: 4}); !bytes.Equal(got, spec2) {
		t.Errorf("delta: %x", got)
	}
}

func TestEncUvarint(t *testing.T) {
	maxU := append(bytes.Repeat([]byte{0xFF}, 9), 0x01)
	for _, c := range []struct {
		data []byte
		off  int
		v    uint64
		n    int
	}{
		{[]byte{0x05}, 0, 5, 1},
		{[]byte{0x00, 0x80, 0x01}, 1, 128, 2},
		{maxU, 0, math.MaxUint64, 10},
		{append(bytes.Repeat([]byte{0xFF}, 9), 0x02), 0, 0, -1},
		{bytes.Repeat([]byte{0x80}, 11), 0, 0, -1},
		{[]byte{0x80, 0x80}, 0, 0, 0},
		{[]byte{0x05}, 1, 0, 0},
		{[]byte{0x05}, -1, 0, 0},
	} {
		if v, n := encUvarint(c.data, c.off); v != c.v || n != c.n {
			t.Errorf("encUvarint(%x, %d) = %d, %d, want %d, %d", c.data, c.off, v, n, c.v, c.n)
		}
	}
}

func TestBitWidth(t *testing.T) {
	for _, c := range []struct{ max, want int }{
		{-1, 0}, {0, 0}, {1, 1}, {2, 2}, {3, 2}, {4, 3}, {7, 3}, {8, 4}, {255, 8}, {256, 9},
		{math.MaxInt32, 31}, {math.MaxUint32, 32},
	} {
		if got := bitWidth(c.max); got != c.want {
			t.Errorf("bitWidth(%d) = %d, want %d", c.max, got, c.want)
		}
	}
}

func TestDecodeHybridExamples(t *testing.T) {
	for _, c := range []struct {
		name     string
		data     []byte
		width    int
		n        int
		want     []int32
		consumed int
	}{
		// Encodings.md: 0..7 with width 3 bit-packed LSB first is
		// 10001000 11000110 11111010; one group, header 1<<1|1.
		{"spec bit-packed", []byte{0x03, 0x88, 0xC6, 0xFA}, 3, 8, []int32{0, 1, 2, 3, 4, 5, 6, 7}, 4},
		{"spec bit-packed prefix", []byte{0x03, 0x88, 0xC6, 0xFA}, 3, 5, []int32{0, 1, 2, 3, 4}, 4},
		{"RLE 10 x 5", []byte{0x14, 0x05}, 3, 10, []int32{5, 5, 5, 5, 5, 5, 5, 5, 5, 5}, 2},
		{"RLE run longer than needed", []byte{0x14, 0x05}, 3, 4, []int32{5, 5, 5, 5}, 2},
		{"RLE then bit-packed", []byte{0x06, 0x01, 0x03, 0x88, 0xC6, 0xFA}, 3, 11, []int32{1, 1, 1, 0, 1, 2, 3, 4, 5, 6, 7}, 6},
		{"RLE width 9 (2 value bytes)", []byte{0x04, 0x2C, 0x01}, 9, 2, []int32{300, 300}, 3},
		{"RLE width 32", []byte{0x04, 0xFF, 0xFF, 0xFF, 0xFF}, 32, 2, []int32{-1, -1}, 5},
		{"zero-length runs", []byte{0x00, 0x01, 0x01, 0x04, 0x01}, 1, 2, []int32{1, 1}, 5},
		{"width 1 levels", []byte{0x03, 0b10110101}, 1, 8, []int32{1, 0, 1, 0, 1, 1, 0, 1}, 2},
		{"bit-packed header claims more than left", []byte{0x09, 0x88, 0xC6, 0xFA}, 3, 8, []int32{0, 1, 2, 3, 4, 5, 6, 7}, 4},
		{"width 0 no data", nil, 0, 3, []int32{0, 0, 0}, 0},
		{"width 0 with header", []byte{0x06, 0xAA}, 0, 3, []int32{0, 0, 0}, 1},
		{"width 0 truncated header", []byte{0x86}, 0, 3, []int32{0, 0, 0}, 0},
		{"no values", nil, 5, 0, []int32{}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := make([]int32, c.n)
			for i := range out {
				out[i] = -7 // must be overwritten
			}
			n, err := decodeHybrid(c.data, c.width, out)
			if err != nil {
				t.Fatal(err)
			}
			if n != c.consumed || !slices.Equal(out, c.want) {
				t.Fatalf("got %v consumed %d, want %v consumed %d", out, n, c.want, c.consumed)
			}
		})
	}
}

func TestDecodeHybridErrors(t *testing.T) {
	for _, c := range []struct {
		name  string
		data  []byte
		width int
		n     int
		msg   string // exact error text
		eof   bool
	}{
		{"empty", nil, 3, 1,
			"parquet: RLE/bit-packed: run header at offset 0: data ends inside varint: unexpected EOF", true},
		{"header truncated", []byte{0x14, 0x05, 0x80}, 3, 11,
			"parquet: RLE/bit-packed: run header at offset 2: data ends inside varint: unexpected EOF", true},
		{"RLE value missing", []byte{0x14, 0x05, 0x00, 0x14, 0x2C}, 9, 11,
			"parquet: RLE/bit-packed: RLE run value at offset 4: data ends after 1 of 2 bytes: unexpected EOF", true},
		{"bit-packed short", []byte{0x14, 0x05, 0x05, 0x88, 0xC6, 0xFA}, 3, 20,
			"parquet: RLE/bit-packed: bit-packed values at offset 3: data ends after 3 of 4 bytes: unexpected EOF", true},
		{"fewer values than needed", []byte{0x14, 0x05}, 3, 11,
			"parquet: RLE/bit-packed: run header at offset 2: data ends inside varint: unexpected EOF", true},
		{"varint overflow", bytes.Repeat([]byte{0xFF}, 11), 3, 1,
			"parquet: RLE/bit-packed: run header at offset 0: varint overflows 64 bits", false},
		{"RLE value too wide", []byte{0x04, 0x08}, 3, 2,
			"parquet: RLE/bit-packed: RLE run value at offset 1: 8 does not fit in 3 bits", false},
		{"width 33", []byte{0x04, 1, 0, 0, 0, 0}, 33, 2, "parquet: RLE/bit-packed: bit width 33 not in 0..32", false},
		{"width -1", nil, -1, 2, "parquet: RLE/bit-packed: bit width -1 not in 0..32", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := decodeHybrid(c.data, c.width, make([]int32, c.n))
			if err == nil {
				t.Fatal("no error")
			}
			if err.Error() != c.msg {
				t.Errorf("error %q, want %q", err, c.msg)
			}
			if errors.Is(err, io.ErrUnexpectedEOF) != c.eof {
				t.Errorf("errors.Is(err, io.ErrUnexpectedEOF) = %v", !c.eof)
			}
		})
	}
}

func TestDecodeHybridRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for width := 0; width <= 32; width++ {
		for _, n := range []int{1, 7, 8, 9, 100, 1000, 4097} {
			vals := testEncRandomLevels(r, n, width)
			enc := testEncHybrid(vals, width)
			out := make([]int32, n)
			got, err := decodeHybrid(enc, width, out)
			if err != nil {
				t.Fatalf("width %d n %d: %v", width, n, err)
			}
			if got != len(enc) {
				t.Fatalf("width %d n %d: consumed %d of %d", width, n, got, len(enc))
			}
			if !slices.Equal(out, vals) {
				t.Fatalf("width %d n %d: values differ", width, n)
			}
			// With trailing bytes, and decoding a prefix only.
			m := n / 2
			if _, err := decodeHybrid(append(slices.Clip(enc), 0xFF, 0xFF), width, out[:m]); err != nil {
				t.Fatalf("width %d n %d prefix: %v", width, n, err)
			}
			if !slices.Equal(out[:m], vals[:m]) {
				t.Fatalf("width %d n %d prefix: values differ", width, n)
			}
		}
	}
}

func TestDecodeHybridAllRunMixes(t *testing.T) {
	// Random sequences of explicit runs, including runs of no values and
	// RLE runs of one, at every width.
	r := rand.New(rand.NewPCG(3, 4))
	for width := 1; width <= 32; width++ {
		mask := uint32(uint64(1)<<width - 1)
		var enc []byte
		var want []int32
		for range 50 {
			switch r.IntN(3) {
			case 0:
				k := r.IntN(20)
				v := int32(r.Uint32() & mask)
				enc = testEncRLERun(enc, width, uint64(k), v)
				for range k {
					want = append(want, v)
				}
			case 1:
				vals := make([]int32, 8*r.IntN(4))
				for i := range vals {
					vals[i] = int32(r.Uint32() & mask)
				}
				enc = testEncBitPackedRun(enc, width, vals)
				want = append(want, vals...)
			default:
				// A bit-packed run of no groups.
				enc = testEncUvarint(enc, 1)
			}
		}
		out := make([]int32, len(want))
		n, err := decodeHybrid(enc, width, out)
		if err != nil {
			t.Fatalf("width %d: %v", width, err)
		}
		if !slices.Equal(out, want) {
			t.Fatalf("width %d: values differ", width)
		}
		// Trailing zero-length runs are not needed, so not consumed.
		if n > len(enc) {
			t.Fatalf("width %d: consumed %d of %d", width, n, len(enc))
		}
	}
}

func TestDecodeHybridTruncated(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, width := range []int{1, 2, 3, 5, 8, 12, 17, 24, 31, 32} {
		vals := testEncRandomLevels(r, 300, width)
		enc := testEncHybrid(vals, width)
		out := make([]int32, len(vals))
		for k := range len(enc) {
			_, err := decodeHybrid(enc[:k:k], width, out)
			if err == nil {
				// Only the zero padding of the last group may be cut.
				if !slices.Equal(out, vals) {
					t.Fatalf("width %d cut at %d: no error but wrong values", width, k)
				}
				continue
			}
			if !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Fatalf("width %d cut at %d: %v", width, k, err)
			}
		}
	}
}

func TestDecodeHybridHugeRuns(t *testing.T) {
	out := make([]int32, 10)
	// RLE run of 2^31 values; bit-packed run of 2^31 groups with only the
	// bytes for 10 values; a maximal 64-bit header.
	rle := testEncRLERun(nil, 8, 1<<31, 7)
	packed := append(testEncUvarint(nil, 1<<31<<1|1), make([]byte, 10)...)
	maxHdr := append(testEncUvarint(nil, math.MaxUint64), make([]byte, 20)...)
	for _, c := range []struct {
		name string
		data []byte
	}{{"rle", rle}, {"packed", packed}, {"max header", maxHdr}} {
		allocs := testing.AllocsPerRun(100, func() {
			if _, err := decodeHybrid(c.data, 8, out); err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocs", c.name, allocs)
		}
	}
	if n, _ := decodeHybrid(packed, 8, out); n != len(packed) {
		t.Errorf("packed: consumed %d, want %d", n, len(packed))
	}
	// Width 0 with a huge bit-packed header.
	if n, err := decodeHybrid(testEncUvarint(nil, math.MaxUint64), 0, out); err != nil || n != 10 {
		t.Errorf("width 0 huge header: %d, %v", n, err)
	}
}

func TestDecodeBitPackedLevels(t *testing.T) {
	// Encodings.md: 0..7 with width 3 MSB first is 00000101 00111001 01110111.
	out := make([]int32, 8)
	n, err := decodeBitPackedLevels([]byte{0x05, 0x39, 0x77}, 3, out)
	if err != nil || n != 3 || !slices.Equal(out, []int32{0, 1, 2, 3, 4, 5, 6, 7}) {
		t.Fatalf("spec example: %v %d %v", out, n, err)
	}
	// Encodings.md: 30 values of 2 bits take 8 bytes.
	n, err = decodeBitPackedLevels(make([]byte, 8), 2, make([]int32, 30))
	if err != nil || n != 8 {
		t.Fatalf("30 x 2 bits: %d %v", n, err)
	}
	if n, err := decodeBitPackedLevels(nil, 0, out); err != nil || n != 0 {
		t.Fatalf("width 0: %d %v", n, err)
	}
	if _, err := decodeBitPackedLevels([]byte{0x05, 0x39}, 3, out); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("short: %v", err)
	}
	if _, err := decodeBitPackedLevels(make([]byte, 100), 33, out); err == nil {
		t.Fatal("width 33 accepted")
	}
	r := rand.New(rand.NewPCG(7, 8))
	for width := 1; width <= 32; width++ {
		for _, cnt := range []int{1, 5, 8, 13, 64, 1001} {
			vals := testEncRandomLevels(r, cnt, width)
			enc := testEncPackMSB(vals, width)
			got := make([]int32, cnt)
			n, err := decodeBitPackedLevels(append(slices.Clip(enc), 0xFF), width, got)
			if err != nil || n != len(enc) || !slices.Equal(got, vals) {
				t.Fatalf("width %d n %d: consumed %d of %d, %v", width, cnt, n, len(enc), err)
			}
			if _, err := decodeBitPackedLevels(enc[:len(enc)-1], width, got); !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Fatalf("width %d n %d truncated: %v", width, cnt, err)
			}
		}
	}
}

// TestDecodeHybridPyarrow decodes dictionary indices written by pyarrow
// 26.0.1: pq.write_table(pa.table({'x': pa.array([i % 5 for i in range(20)]
// + [3] * 20, pa.int64())}), f, compression='NONE', use_dictionary=True),
// schema field not nullable; the bytes are the data page's values after the
// page header: the bit-width byte, then the hybrid runs.
func TestDecodeHybridPyarrow(t *testing.T) {
	page := testPyarrowDictPage
	if len(page) == 0 {
		t.Skip("no pyarrow page")
	}
	want := make([]int32, 0, 40)
	for i := range 20 {
		want = append(want, int32(i%5))
	}
	for range 20 {
		want = append(want, 3)
	}
	out := make([]int32, len(want))
	n, err := decodeHybrid(page[1:], int(page[0]), out)
	if err != nil {
		t.Fatal(err)
	}
	if n != len(page)-1 || !slices.Equal(out, want) {
		t.Fatalf("got %v consumed %d of %d", out, n, len(page)-1)
	}
}

func BenchmarkDecodeHybrid(b *testing.B) {
	for _, width := range []int{8, 12} {
		b.Run(fmt.Sprintf("width=%d", width), func(b *testing.B) {
			// Dictionary indices: random, so all bit-packed, as writers
			// produce for high-cardinality columns.
			r := rand.New(rand.NewPCG(9, uint64(width)))
			vals := make([]int32, 1024)
			for i := range vals {
				vals[i] = int32(r.IntN(1 << width))
			}
			enc := testEncHybrid(vals, width)
			out := make([]int32, len(vals))
			b.SetBytes(int64(len(enc)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := decodeHybrid(enc, width, out); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
