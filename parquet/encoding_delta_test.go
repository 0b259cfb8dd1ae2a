package parquet

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// Test-only DELTA_* encoders, written from Encodings.md.

// testEncZigzag zigzag-encodes v.
func testEncZigzag(v int64) uint64 { return uint64(v<<1) ^ uint64(v>>63) }

// testEncPackLSB64 bit-packs vals with width (0..64) bits each, LSB first,
// a byte at a time (the fuzzers call it on every input, so not a bit at a
// time).
func testEncPackLSB64(vals []uint64, width int) []byte {
	out := make([]byte, (len(vals)*width+7)/8)
	for i, v := range vals {
		if width < 64 {
			v &= 1<<width - 1
		}
		bit := i * width
		for left := width; left > 0; {
			sh := bit % 8
			out[bit/8] |= byte(v << sh)
			n := min(8-sh, left)
			v >>= n
			bit += n
			left -= n
		}
	}
	return out
}

// testEncDeltaOpts are the layout choices of testEncDelta.
type testEncDeltaOpts struct {
	blockSize, miniCount int
	garbage              bool // write 0xEE as the bit width of absent miniblocks
	int32                bool // compute deltas in 32-bit arithmetic, as INT32 writers do
}

// testEncDelta encodes vals as DELTA_BINARY_PACKED: deltas wrap (in 32 bits
// with o.int32, the values then being int32), each block stores its min
// delta and the deltas minus it, miniblocks padded with zeros, absent after
// the last value.
func testEncDelta(vals []int64, o testEncDeltaOpts) []byte {
	b := testEncUvarint(nil, uint64(o.blockSize))
	b = testEncUvarint(b, uint64(o.miniCount))
	b = testEncUvarint(b, uint64(len(vals)))
	if len(vals) == 0 {
		return testEncUvarint(b, 0)
	}
	b = testEncUvarint(b, testEncZigzag(vals[0]))
	miniSize := o.blockSize / o.miniCount
	deltas := make([]int64, len(vals)-1)
	for i := range deltas {
		if o.int32 {
			deltas[i] = int64(int32(vals[i+1]) - int32(vals[i]))
		} else {
			deltas[i] = int64(uint64(vals[i+1]) - uint64(vals[i]))
		}
	}
	for start := 0; start < len(deltas); start += o.blockSize {
		blk := deltas[start:min(start+o.blockSize, len(deltas))]
		minD := slices.Min(blk)
		rel := make([]uint64, len(blk))
		for i, d := range blk {
			if o.int32 {
				rel[i] = uint64(uint32(int32(d) - int32(minD)))
			} else {
				rel[i] = uint64(d) - uint64(minD)
			}
		}
		b = testEncUvarint(b, testEncZigzag(minD))
		used := (len(blk) + miniSize - 1) / miniSize
		widths := make([]int, used)
		for m := range o.miniCount {
			if m >= used {
				if o.garbage {
					b = append(b, 0xEE)
				} else {
					b = append(b, 0)
				}
				continue
			}
			mini := rel[m*miniSize : min((m+1)*miniSize, len(rel))]
			widths[m] = bits.Len64(slices.Max(mini))
			b = append(b, byte(widths[m]))
		}
		for m := range used {
			mini := make([]uint64, miniSize)
			copy(mini, rel[m*miniSize:min((m+1)*miniSize, len(rel))])
			b = append(b, testEncPackLSB64(mini, widths[m])...)
		}
	}
	return b
}

// testEncDeltaLength encodes vals as DELTA_LENGTH_BYTE_ARRAY.
func testEncDeltaLength(vals [][]byte, o testEncDeltaOpts) []byte {
	lens := make([]int64, len(vals))
	for i, v := range vals {
		lens[i] = int64(len(v))
	}
	return append(testEncDelta(lens, o), bytes.Join(vals, nil)...)
}

// testEncDeltaBytes encodes vals as DELTA_BYTE_ARRAY, sharing with each
// value the longest prefix of the previous one.
func testEncDeltaBytes(vals [][]byte, o testEncDeltaOpts) []byte {
	prefixes := make([]int64, len(vals))
	suffixes := make([][]byte, len(vals))
	var prev []byte
	for i, v := range vals {
		p := 0
		for p < len(v) && p < len(prev) && v[p] == prev[p] {
			p++
		}
		prefixes[i], suffixes[i], prev = int64(p), v[p:], v
	}
	return append(testEncDelta(prefixes, o), testEncDeltaLength(suffixes, o)...)
}

var testEncDeltaLayouts = []testEncDeltaOpts{
	{blockSize: 128, miniCount: 4},
	{blockSize: 256, miniCount: 8, garbage: true},
	{blockSize: 128, miniCount: 1},
	{blockSize: 1024, miniCount: 32, garbage: true},
	{blockSize: 256, miniCount: 4}, // what pyarrow 26 writes
}

// testEncDeltaValues returns n values of one of several kinds.
func testEncDeltaValues(r *rand.Rand, kind, n int) []int64 {
	vals := make([]int64, n)
	var v int64
	for i := range vals {
		switch kind {
		case 0: // small steps
			v += int64(r.IntN(21) - 10)
		case 1: // anything
			v = int64(r.Uint64())
		case 2: // near the limits: deltas wrap
			switch r.IntN(4) {
			case 0:
				v = math.MaxInt64 - int64(r.IntN(3))
			case 1:
				v = math.MinInt64 + int64(r.IntN(3))
			case 2:
				v = int64(r.IntN(5)) - 2
			default:
				v = int64(r.Uint64() >> r.IntN(64))
			}
		case 3: // constant: width 0 miniblocks
			v = 42
		default: // increasing by varying amounts
			v += int64(r.IntN(1 << r.IntN(40)))
		}
		vals[i] = v
	}
	return vals
}

func TestDecodeDeltaBinaryPackedExamples(t *testing.T) {
	for _, c := range []struct {
		name string
		hex  string
		want []int64
	}{
		// Encodings.md example 1 with a valid block size (128, 4
		// miniblocks of 32): header 128 4 5 zigzag(1); block: min delta
		// zigzag(1), widths 0 0 0 0, no miniblock bytes.
		{"spec 1 2 3 4 5", "8001" + "04" + "05" + "02" + "02" + "00000000", []int64{1, 2, 3, 4, 5}},
		// Example 2: 7 5 3 1 2 3 4 5: min delta -2, relative deltas
		// 0 0 0 3 3 3 3 in 2 bits: bytes 0xC0 0x3F, padded to 32 values
		// (8 bytes); the other miniblocks are absent.
		{"spec 7 5 3 1 2 3 4 5", "8001" + "04" + "08" + "0e" + "03" + "02000000" + "c03f000000000000",
			[]int64{7, 5, 3, 1, 2, 3, 4, 5}},
		// The same with pyarrow 26.0.1 (see TestDecodeDeltaPyarrow): block
		// size 256, 4 miniblocks of 64.
		{"pyarrow 7 5 3 1 2 3 4 5", "800204080e0302000000c03f0000000000000000000000000000",
			[]int64{7, 5, 3, 1, 2, 3, 4, 5}},
		{"one value, no block", "8001" + "04" + "01" + "0d", []int64{-7}},
		{"no values", "8001" + "04" + "00" + "00", []int64{}},
		{"garbage widths of absent miniblocks", "8001" + "04" + "03" + "00" + "02" + "00ffee41", []int64{0, 1, 2}},
	} {
		t.Run(c.name, func(t *testing.T) {
			data, _ := hex.DecodeString(c.hex)
			out := make([]int64, len(c.want))
			n, err := decodeDeltaBinaryPacked(data, out)
			if err != nil {
				t.Fatal(err)
			}
			if n != len(data) || !slices.Equal(out, c.want) {
				t.Fatalf("got %v consumed %d, want %v consumed %d", out, n, c.want, len(data))
			}
		})
	}
}

func TestDecodeDeltaBinaryPackedErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		hex  string
		n    int
		msg  string
		eof  bool
	}{
		// The spec's own examples use block size 8, "invalid in real cases".
		{"spec block size 8", "08" + "01" + "05" + "02" + "02" + "00", 5,
			"parquet: DELTA_BINARY_PACKED: block size at offset 0: 8 is not a positive multiple of 128 up to 16777216", false},
		{"block size 0", "00" + "01" + "05" + "02", 5,
			"parquet: DELTA_BINARY_PACKED: block size at offset 0: 0 is not a positive multiple of 128 up to 16777216", false},
		{"block size huge", "80808080808001" + "01" + "05" + "02", 5,
			"parquet: DELTA_BINARY_PACKED: block size at offset 0: 4398046511104 is not a positive multiple of 128 up to 16777216", false},
		{"no miniblocks", "8001" + "00" + "05" + "02", 5,
			"parquet: DELTA_BINARY_PACKED: miniblock count at offset 2: 0 does not split blocks of 128 values into multiples of 32", false},
		{"miniblocks of 16", "8001" + "08" + "05" + "02", 5,
			"parquet: DELTA_BINARY_PACKED: miniblock count at offset 2: 8 does not split blocks of 128 values into multiples of 32", false},
		{"miniblocks of 128/3", "8001" + "03" + "05" + "02", 5,
			"parquet: DELTA_BINARY_PACKED: miniblock count at offset 2: 3 does not split blocks of 128 values into multiples of 32", false},
		{"count beyond int32", "8001" + "04" + "8080808010" + "02", 5,
			"parquet: DELTA_BINARY_PACKED: total value count at offset 3: 4294967296 exceeds 2147483647", false},
		{"fewer values than needed", "8001" + "04" + "05" + "02" + "02" + "00000000", 6,
			"parquet: DELTA_BINARY_PACKED: header holds 5 values, 6 needed", false},
		{"header truncated", "8001" + "04", 5,
			"parquet: DELTA_BINARY_PACKED: total value count at offset 3: data ends inside varint: unexpected EOF", true},
		{"widths truncated", "8001" + "04" + "05" + "02" + "02" + "0000", 5,
			"parquet: DELTA_BINARY_PACKED: miniblock bit widths at offset 6: data ends after 2 of 4 bytes: unexpected EOF", true},
		{"width 65", "8001" + "04" + "05" + "02" + "02" + "41000000", 5,
			"parquet: DELTA_BINARY_PACKED: miniblock bit width at offset 6: 65 exceeds 64", false},
		{"miniblock truncated", "8001" + "04" + "08" + "0e" + "03" + "02000000" + "c0", 8,
			"parquet: DELTA_BINARY_PACKED: miniblock values at offset 10: data ends after 1 of 2 bytes: unexpected EOF", true},
		// Width 64 is valid, but 32 values of it take 256 bytes.
		{"width 64 truncated", "8001" + "04" + "28" + "00" + "00" + "40000000" + strings.Repeat("ff", 100), 40,
			"parquet: DELTA_BINARY_PACKED: miniblock values at offset 10: data ends after 100 of 256 bytes: unexpected EOF", true},
		// A header claiming 2^31-1 values with 10 needed: the values are
		// there, but walking to the end of the stream finds it cut short.
		{"huge count, short data", "8001" + "04" + "ffffffff07" + "00" + "02" + "00000000", 10,
			"parquet: DELTA_BINARY_PACKED: block min delta at offset 14: data ends inside varint: unexpected EOF", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			data, err := hex.DecodeString(c.hex)
			if err != nil {
				t.Fatal(err)
			}
			_, err = decodeDeltaBinaryPacked(data, make([]int64, c.n))
			if err == nil {
				t.Fatal("no error")
			}
			if err.Error() != c.msg {
				t.Errorf("error %q\nwant  %q", err, c.msg)
			}
			if errors.Is(err, io.ErrUnexpectedEOF) != c.eof {
				t.Errorf("errors.Is(err, io.ErrUnexpectedEOF) = %v", !c.eof)
			}
		})
	}
}

func TestDecodeDeltaBinaryPackedRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, o := range testEncDeltaLayouts {
		for kind := range 5 {
			for _, n := range []int{0, 1, 2, 31, 32, 33, 34, 65, 127, 128, 129, 130, 257, 1000, 3000} {
				name := fmt.Sprintf("%d/%d kind %d n %d", o.blockSize, o.miniCount, kind, n)
				vals := testEncDeltaValues(r, kind, n)
				enc := testEncDelta(vals, o)
				// Trailing bytes must not be consumed.
				data := append(slices.Clip(enc), 0xAB, 0xCD)
				out := make([]int64, n)
				got, err := decodeDeltaBinaryPacked(data, out)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if got != len(enc) {
					t.Fatalf("%s: consumed %d of %d", name, got, len(enc))
				}
				if !slices.Equal(out, vals) {
					t.Fatalf("%s: values differ", name)
				}
				// Fewer values than the stream holds: the same values, and
				// still the exact end of the stream.
				for _, m := range []int{n / 2, n - 1} {
					if m < 0 {
						continue
					}
					got, err := decodeDeltaBinaryPacked(data, out[:m])
					if err != nil || got != len(enc) || !slices.Equal(out[:m], vals[:m]) {
						t.Fatalf("%s: first %d: consumed %d of %d, %v", name, m, got, len(enc), err)
					}
				}
			}
		}
	}
}

func TestDecodeDeltaBinaryPackedInt32(t *testing.T) {
	// INT32 writers compute deltas in 32 bits; decoding in 64 bits and
	// narrowing gives the values back.
	r := rand.New(rand.NewPCG(13, 14))
	for _, o := range testEncDeltaLayouts {
		o.int32 = true
		vals := make([]int64, 700)
		for i := range vals {
			switch r.IntN(3) {
			case 0:
				vals[i] = math.MaxInt32 - int64(r.IntN(3))
			case 1:
				vals[i] = math.MinInt32 + int64(r.IntN(3))
			default:
				vals[i] = int64(int32(r.Uint32()))
			}
		}
		enc := testEncDelta(vals, o)
		out := make([]int64, len(vals))
		if _, err := decodeDeltaBinaryPacked(enc, out); err != nil {
			t.Fatal(err)
		}
		for i := range out {
			if int32(out[i]) != int32(vals[i]) {
				t.Fatalf("%d/%d: value %d: %d, want %d", o.blockSize, o.miniCount, i, int32(out[i]), vals[i])
			}
		}
	}
}

func TestDecodeDeltaBinaryPackedTruncated(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	for _, o := range testEncDeltaLayouts[:3] {
		for kind := range 5 {
			vals := testEncDeltaValues(r, kind, 300)
			enc := testEncDelta(vals, o)
			out := make([]int64, len(vals))
			for k := range len(enc) {
				n, err := decodeDeltaBinaryPacked(enc[:k:k], out)
				if err == nil {
					// Only the padding of the last miniblock may be cut.
					if n != k || !slices.Equal(out, vals) {
						t.Fatalf("%d/%d kind %d cut at %d: no error but consumed %d or wrong values",
							o.blockSize, o.miniCount, kind, k, n)
					}
					continue
				}
				if !errors.Is(err, io.ErrUnexpectedEOF) {
					t.Fatalf("%d/%d kind %d cut at %d: %v", o.blockSize, o.miniCount, kind, k, err)
				}
			}
		}
	}
}

func TestDecodeDeltaBinaryPackedHostile(t *testing.T) {
	// Width 64 everywhere with a header claiming 2^31-1 values: decoding
	// 10 of them must neither allocate nor take long.
	data, _ := hex.DecodeString("8001" + "04" + "ffffffff07" + "00" + "00" + "40404040")
	data = append(data, bytes.Repeat([]byte{0xFF}, 4*256)...)
	out := make([]int64, 10)
	// The error itself allocates a little, and TotalAlloc counts every
	// goroutine's allocations (the race detector's and other tests'
	// under load): what must not happen is an allocation sized by the
	// claim, which would be gigabytes, so the bound is a megabyte.
	allocated := testAllocated(func() {
		if _, err := decodeDeltaBinaryPacked(data, out); !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatalf("got %v", err)
		}
	})
	if allocated > 1<<20 {
		t.Errorf("allocated %d bytes", allocated)
	}
	// Width 64 with all-ones deltas and min delta 0: each value is the
	// previous minus 1, wrapping.
	if out[0] != 0 || out[1] != -1 || out[9] != -9 {
		t.Errorf("width 64 values %v", out)
	}
	// Width 0 blocks with a huge count: each block is 5 bytes of headers
	// for 128 values, so the walk to the end is bounded by the data.
	data, _ = hex.DecodeString("8001" + "04" + "ffffffff07" + "00")
	data = append(data, bytes.Repeat([]byte{0x02, 0, 0, 0, 0}, 10000)...)
	if _, err := decodeDeltaBinaryPacked(data, out); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("width 0, huge count: %v", err)
	}
	if out[9] != 9 {
		t.Errorf("width 0 values %v", out)
	}
}

// Bytes written by pyarrow 26.0.1 (pq.write_table with compression='NONE',
// use_dictionary=False, column_encoding={'x': ENCODING}, a non-nullable
// field 'x'), cut from the file after the data page header, so they are
// exactly the page's value bytes.
var (
	// testPyarrowDictPage: dictionary indices of the int64 values
	// [i % 5 for i in range(20)] + [3] * 20 with use_dictionary=True.
	testPyarrowDictPage, _ = hex.DecodeString("030788464423a211d1b86d2003")
	// DELTA_BINARY_PACKED int64: see testPyarrowDeltaInt64Values. The page
	// is 531 bytes; its last 248 bytes are zero padding, omitted here.
	testPyarrowDeltaInt64, _ = hex.DecodeString("8002042200ffffffffffffffffff01400000004f86c861ffffff7f136da6da010000808b9feae8fcffff7fd753845304000080c7b80c70faffff7f9b3a62cc0600008003d22ef7f7ffff7f5f214045090000803feb507ef5ffff7f23081ebe0b0000807b047305f3ffff7fe7eefb360e000080b71d958cf0ffff7fabd5d9af10000080f336b713eeffff7f6fbcb728130000802f50d99aebffff7f33a395a1150000806b69fb21e9ffff7ff789731a18000080a7821da9e6ffff7fbb7051931a000080e39b3f30e4ffff7f7f572f0c1d0000801fb561b7e1ffff7f433e0d851f0000805bce833edfffff7f0725ebfd2100008097e7a5c5dcffff7f0cc948ec1100000001000000000000800000000000000000ffffffffffffffff")
	// DELTA_LENGTH_BYTE_ARRAY of the spec's "Hello", "World", "Foobar", "ABCDEF".
	testPyarrowDeltaLength, _ = hex.DecodeString("800104040a00010000000200000048656c6c6f576f726c64466f6f626172414243444546")
	// DELTA_BYTE_ARRAY of the spec's "axis", "axle", "babble", "babyhood".
	testPyarrowDeltaBytes, _ = hex.DecodeString("8001040400030300000044010000000000000000000080010404080303000000700000000000000000000000617869736c65626162626c6579686f6f64")
)

// testPyarrowDeltaInt64Values returns the values of testPyarrowDeltaInt64:
// [(-1)**i * ((i * 2654435761) % (1 << 40)) for i in range(30)] +
// [2**63-1, -2**63, 0, 2**63-1].
func testPyarrowDeltaInt64Values() []int64 {
	var vals []int64
	for i := range int64(30) {
		v := i * 2654435761 % (1 << 40)
		if i%2 == 1 {
			v = -v
		}
		vals = append(vals, v)
	}
	return append(vals, math.MaxInt64, math.MinInt64, 0, math.MaxInt64)
}

func TestDecodeDeltaPyarrow(t *testing.T) {
	want := testPyarrowDeltaInt64Values()
	page := append(slices.Clip(testPyarrowDeltaInt64), make([]byte, 531-len(testPyarrowDeltaInt64))...)
	out := make([]int64, len(want))
	n, err := decodeDeltaBinaryPacked(page, out)
	if err != nil || n != len(page) || !slices.Equal(out, want) {
		t.Errorf("DELTA_BINARY_PACKED: %v consumed %d of %d: %v", out, n, len(page), err)
	}
	// Without the zero padding: the values are all there.
	n, err = decodeDeltaBinaryPacked(testPyarrowDeltaInt64, out)
	if err != nil || n != len(testPyarrowDeltaInt64) || !slices.Equal(out, want) {
		t.Errorf("DELTA_BINARY_PACKED unpadded: consumed %d: %v", n, err)
	}

	strs := make([][]byte, 4)
	n, err = decodeDeltaLengthByteArray(testPyarrowDeltaLength, strs)
	if err != nil || n != len(testPyarrowDeltaLength) || string(bytes.Join(strs, []byte(","))) != "Hello,World,Foobar,ABCDEF" {
		t.Errorf("DELTA_LENGTH_BYTE_ARRAY: %q consumed %d: %v", strs, n, err)
	}
	n, err = decodeDeltaByteArray(testPyarrowDeltaBytes, strs, 1<<20)
	if err != nil || n != len(testPyarrowDeltaBytes) || string(bytes.Join(strs, []byte(","))) != "axis,axle,babble,babyhood" {
		t.Errorf("DELTA_BYTE_ARRAY: %q consumed %d: %v", strs, n, err)
	}
}

func testEncRandomStrings(r *rand.Rand, n int) [][]byte {
	vals := make([][]byte, n)
	var prev []byte
	for i := range vals {
		// Often share a prefix with the previous value.
		p := 0
		if len(prev) > 0 && r.IntN(3) > 0 {
			p = r.IntN(len(prev) + 1)
		}
		v := append(slices.Clip(prev[:p]), make([]byte, r.IntN(12))...)
		for j := p; j < len(v); j++ {
			v[j] = byte('a' + r.IntN(4))
		}
		vals[i], prev = v, v
	}
	return vals
}

// testAllocated returns the bytes f allocates on the heap, on its second
// call (the first warms up fmt's caches).
func testAllocated(f func()) uint64 {
	f()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

func testEqualByteSlices(a, b [][]byte) bool {
	return slices.EqualFunc(a, b, bytes.Equal)
}

func TestDecodeDeltaLengthByteArray(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 18))
	for _, o := range testEncDeltaLayouts {
		for _, n := range []int{0, 1, 5, 128, 129, 700} {
			vals := testEncRandomStrings(r, n)
			enc := testEncDeltaLength(vals, o)
			out := make([][]byte, n)
			got, err := decodeDeltaLengthByteArray(append(slices.Clip(enc), 0xEE), out)
			if err != nil || got != len(enc) || !testEqualByteSlices(out, vals) {
				t.Fatalf("%d/%d n %d: consumed %d of %d: %v", o.blockSize, o.miniCount, n, got, len(enc), err)
			}
			for i, v := range out {
				if cap(v) != len(v) {
					t.Fatalf("value %d: cap %d len %d", i, cap(v), len(v))
				}
			}
			// Fewer values than encoded: the bytes still start after all
			// the lengths.
			if n > 1 {
				got, err := decodeDeltaLengthByteArray(enc, out[:n-1])
				last := len(vals[n-1])
				if err != nil || got != len(enc)-last || !testEqualByteSlices(out[:n-1], vals[:n-1]) {
					t.Fatalf("%d/%d n %d prefix: consumed %d: %v", o.blockSize, o.miniCount, n, got, err)
				}
			}
			for k := range len(enc) {
				_, err := decodeDeltaLengthByteArray(enc[:k:k], out)
				if err == nil && !testEqualByteSlices(out, vals) {
					t.Fatalf("cut at %d: wrong values", k)
				}
				if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
					t.Fatalf("cut at %d: %v", k, err)
				}
			}
		}
	}
	o := testEncDeltaLayouts[0]
	// A negative length.
	enc := append(testEncDelta([]int64{3, -1}, o), "abc"...)
	if _, err := decodeDeltaLengthByteArray(enc, make([][]byte, 2)); err == nil || !strings.Contains(err.Error(), "negative length -1") {
		t.Errorf("negative length: %v", err)
	}
	// Lengths beyond the data, including one near 2^63.
	for _, lens := range [][]int64{{3, 4}, {3, math.MaxInt64}} {
		enc := append(testEncDelta(lens, o), "abcdef"...)
		_, err := decodeDeltaLengthByteArray(enc, make([][]byte, 2))
		if !errors.Is(err, io.ErrUnexpectedEOF) || !strings.Contains(err.Error(), "DELTA_LENGTH_BYTE_ARRAY: value 1 at offset") {
			t.Errorf("lengths %v: %v", lens, err)
		}
	}
}

func TestDecodeDeltaByteArray(t *testing.T) {
	// Encodings.md: "axis", "axle", "babble", "babyhood" is prefix lengths
	// 0 2 0 3, suffix lengths 4 2 6 5, then "axislebabbleyhood".
	o := testEncDeltaLayouts[0]
	spec := append(testEncDelta([]int64{0, 2, 0, 3}, o), testEncDelta([]int64{4, 2, 6, 5}, o)...)
	spec = append(spec, "axislebabbleyhood"...)
	out := make([][]byte, 4)
	n, err := decodeDeltaByteArray(spec, out, 100)
	if err != nil || n != len(spec) || string(bytes.Join(out, []byte(","))) != "axis,axle,babble,babyhood" {
		t.Fatalf("spec example: %q consumed %d of %d: %v", out, n, len(spec), err)
	}
	if !bytes.Equal(spec, testEncDeltaBytes([][]byte{[]byte("axis"), []byte("axle"), []byte("babble"), []byte("babyhood")}, o)) {
		t.Fatal("test encoder disagrees with the spec example")
	}
	// The values do not alias the input.
	spec2 := slices.Clone(spec)
	decodeDeltaByteArray(spec2, out, 100)
	clear(spec2)
	if string(out[3]) != "babyhood" {
		t.Fatal("values alias the input")
	}
	// The limit is inclusive: the values take 4+4+6+8 = 22 bytes.
	if _, err := decodeDeltaByteArray(spec, out, 22); err != nil {
		t.Fatalf("limit 22: %v", err)
	}
	if _, err := decodeDeltaByteArray(spec, out, 21); err == nil || !strings.Contains(err.Error(), "exceed the limit of 21 bytes") {
		t.Fatalf("limit 21: %v", err)
	}

	r := rand.New(rand.NewPCG(19, 20))
	for _, o := range testEncDeltaLayouts {
		for _, n := range []int{0, 1, 5, 128, 129, 700} {
			vals := testEncRandomStrings(r, n)
			enc := testEncDeltaBytes(vals, o)
			out := make([][]byte, n)
			got, err := decodeDeltaByteArray(append(slices.Clip(enc), 0xEE), out, 1<<20)
			if err != nil || got != len(enc) || !testEqualByteSlices(out, vals) {
				t.Fatalf("%d/%d n %d: consumed %d of %d: %v", o.blockSize, o.miniCount, n, got, len(enc), err)
			}
			for k := range len(enc) {
				_, err := decodeDeltaByteArray(enc[:k:k], out, 1<<20)
				if err == nil && !testEqualByteSlices(out, vals) {
					t.Fatalf("cut at %d: wrong values", k)
				}
				if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
					t.Fatalf("cut at %d: %v", k, err)
				}
			}
		}
	}

	for _, c := range []struct {
		name             string
		prefixes, suffix []int64
		msg              string
	}{
		{"first prefix not 0", []int64{1, 0}, []int64{1, 1}, "value 0 (suffix at offset 20): prefix length 1 not in 0..0"},
		{"prefix too long", []int64{0, 3}, []int64{2, 1}, "value 1 (suffix at offset 22): prefix length 3 not in 0..2"},
		{"negative prefix", []int64{0, -1}, []int64{2, 1}, "value 1 (suffix at offset 22): prefix length -1 not in 0..2"},
		{"negative suffix", []int64{0, 0}, []int64{2, -1}, "value 1 at offset 22: negative suffix length -1"},
		{"suffix beyond data", []int64{0, 0}, []int64{2, 9}, "value 1 suffix at offset 22: data ends after 1 of 9 bytes"},
	} {
		enc := append(testEncDelta(c.prefixes, o), testEncDelta(c.suffix, o)...)
		enc = append(enc, "abc"...)
		_, err := decodeDeltaByteArray(enc, make([][]byte, 2), 100)
		if err == nil || !strings.Contains(err.Error(), "parquet: DELTA_BYTE_ARRAY: "+c.msg) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}

func TestDecodeDeltaByteArrayInflation(t *testing.T) {
	// Value i repeats all of value i-1 and adds one byte: n suffix bytes
	// and a few bytes of lengths describe n(n+1)/2 bytes of values.
	const n = 100000
	o := testEncDeltaLayouts[0]
	prefixes := make([]int64, n)
	ones := make([]int64, n)
	for i := range prefixes {
		prefixes[i], ones[i] = int64(i), 1
	}
	enc := append(testEncDelta(prefixes, o), testEncDelta(ones, o)...)
	enc = append(enc, bytes.Repeat([]byte{'x'}, n)...)
	out := make([][]byte, n)
	const limit = 64 << 20
	var err error
	allocs := testing.AllocsPerRun(5, func() {
		_, err = decodeDeltaByteArray(enc, out, limit)
	})
	if err == nil || !strings.Contains(err.Error(), "exceed the limit of 67108864 bytes") {
		t.Fatalf("got %v", err)
	}
	// fmt.Errorf allocates a little; the values' buffer must not be among it.
	if allocs > 10 {
		t.Errorf("%v allocs", allocs)
	}
	if d := testAllocated(func() { decodeDeltaByteArray(enc, out, limit) }); d > 1<<20 {
		t.Errorf("allocated %d bytes", d)
	}
	// With a large enough limit (and a smaller n) it works.
	m := 2000
	out = out[:m]
	enc = append(testEncDelta(prefixes[:m], o), testEncDelta(ones[:m], o)...)
	enc = append(enc, bytes.Repeat([]byte{'x'}, m)...)
	if _, err := decodeDeltaByteArray(enc, out, m*(m+1)/2); err != nil {
		t.Fatal(err)
	}
	if len(out[m-1]) != m {
		t.Fatalf("last value %d bytes", len(out[m-1]))
	}
}

func BenchmarkDecodeDeltaBinaryPacked(b *testing.B) {
	r := rand.New(rand.NewPCG(21, 22))
	for _, c := range []struct {
		name string
		kind int
	}{{"small-steps", 0}, {"random", 1}, {"increasing", 4}} {
		b.Run(c.name, func(b *testing.B) {
			vals := testEncDeltaValues(r, c.kind, 1024)
			enc := testEncDelta(vals, testEncDeltaOpts{blockSize: 128, miniCount: 4})
			out := make([]int64, len(vals))
			b.SetBytes(int64(len(enc)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := decodeDeltaBinaryPacked(enc, out); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
