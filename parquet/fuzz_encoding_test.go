package parquet

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// Fuzz targets for the decoders in encoding_*.go. Each checks that hostile
// input gives an error rather than a panic, that a success consumed no more
// than it was given and decodes the same from just the consumed bytes, and
// that the values survive a round trip through the test encoders.

// fuzzMaxValues bounds the value counts the fuzzers ask for.
const fuzzMaxValues = 4096

func FuzzDecodeHybrid(f *testing.F) {
	// Input: bit width byte, 2-byte value count, then the encoded runs.
	seed := func(width int, vals []int32, enc []byte) {
		f.Add(append([]byte{byte(width), byte(len(vals)), byte(len(vals) >> 8)}, enc...))
	}
	r := rand.New(rand.NewPCG(51, 52))
	for _, width := range []int{0, 1, 2, 3, 7, 8, 12, 16, 20, 31, 32} {
		vals := testEncRandomLevels(r, 50+r.IntN(100), width)
		seed(width, vals, testEncHybrid(vals, width))
	}
	seed(3, make([]int32, 8), []byte{0x03, 0x88, 0xC6, 0xFA})
	seed(8, make([]int32, 10), testEncRLERun(nil, 8, 1<<31, 7))
	seed(0, make([]int32, 10), []byte{0x14})
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) < 3 {
			return
		}
		width := int(in[0]) % 33
		count := int(binary.LittleEndian.Uint16(in[1:])) % (fuzzMaxValues + 1)
		data := in[3:]
		out := make([]int32, count)
		n, err := decodeHybrid(data, width, out)
		// A hybridReader reads the same values in reads of any size, and
		// fails where decodeHybrid does.
		var h hybridReader
		h.init(data, width)
		chunked := make([]int32, count)
		var herr error
		for i, size := 0, 1; i < count && herr == nil; i, size = i+size, size*3%17+1 {
			herr = h.read(chunked[i:min(i+size, count)])
		}
		if (herr != nil) != (err != nil) || err == nil && !slices.Equal(chunked, out) {
			t.Fatalf("hybridReader: %v, %v; decodeHybrid: %v, %v", chunked, herr, out, err)
		}
		if err != nil {
			if !strings.HasPrefix(err.Error(), "parquet: RLE/bit-packed: ") {
				t.Fatalf("error text: %v", err)
			}
			return
		}
		if n < 0 || n > len(data) {
			t.Fatalf("consumed %d of %d", n, len(data))
		}
		for i, v := range out {
			if width < 32 && uint32(v)>>width != 0 {
				t.Fatalf("value %d: %d wider than %d bits", i, v, width)
			}
		}
		again := make([]int32, count)
		if m, err := decodeHybrid(data[:n], width, again); err != nil || m != n || !slices.Equal(again, out) {
			t.Fatalf("consumed bytes alone: %d, %v", m, err)
		}
		enc := testEncHybrid(out, width)
		if m, err := decodeHybrid(enc, width, again); err != nil || m != len(enc) || !slices.Equal(again, out) {
			t.Fatalf("round trip: consumed %d of %d, %v", m, len(enc), err)
		}
	})
}

func FuzzDecodeDeltaBinaryPacked(f *testing.F) {
	r := rand.New(rand.NewPCG(53, 54))
	for i, o := range testEncDeltaLayouts {
		for kind := range 5 {
			vals := testEncDeltaValues(r, kind, []int{0, 1, 5, 40, 129, 300}[(i+kind)%6])
			f.Add(testEncDelta(vals, o), uint16(len(vals)))
		}
	}
	f.Add(testPyarrowDeltaInt64, uint16(34))
	spec, _ := hex.DecodeString("8001" + "04" + "08" + "0e" + "03" + "02000000" + "c03f000000000000")
	f.Add(spec, uint16(8))
	f.Fuzz(func(t *testing.T, data []byte, count uint16) {
		out := make([]int64, int(count)%(fuzzMaxValues+1))
		n, err := decodeDeltaBinaryPacked(data, out)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "parquet: DELTA_BINARY_PACKED: ") {
				t.Fatalf("error text: %v", err)
			}
			return
		}
		if n < 0 || n > len(data) {
			t.Fatalf("consumed %d of %d", n, len(data))
		}
		again := make([]int64, len(out))
		if m, err := decodeDeltaBinaryPacked(data[:n], again); err != nil || m != n || !slices.Equal(again, out) {
			t.Fatalf("consumed bytes alone: %d, %v", m, err)
		}
		enc := testEncDelta(out, testEncDeltaLayouts[0])
		if m, err := decodeDeltaBinaryPacked(enc, again); err != nil || m != len(enc) || !slices.Equal(again, out) {
			t.Fatalf("round trip: consumed %d of %d, %v", m, len(enc), err)
		}
	})
}

func FuzzDecodeDeltaByteArray(f *testing.F) {
	r := rand.New(rand.NewPCG(55, 56))
	for i, o := range testEncDeltaLayouts {
		vals := testEncRandomStrings(r, []int{0, 1, 4, 50, 130}[i%5])
		f.Add(testEncDeltaBytes(vals, o), uint16(len(vals)), uint32(1<<16))
		f.Add(testEncDeltaLength(vals, o), uint16(len(vals)), uint32(1<<16))
	}
	f.Add(testPyarrowDeltaBytes, uint16(4), uint32(22))
	f.Add(testPyarrowDeltaLength, uint16(4), uint32(22))
	// Growing values: prefix = previous length, suffix 1 byte.
	o := testEncDeltaLayouts[0]
	grow := append(testEncDelta([]int64{0, 1, 2, 3, 4, 5, 6, 7}, o), testEncDelta([]int64{1, 1, 1, 1, 1, 1, 1, 1}, o)...)
	f.Add(append(grow, "abcdefgh"...), uint16(8), uint32(30))
	f.Fuzz(func(t *testing.T, data []byte, count uint16, maxBytes uint32) {
		limit := int(maxBytes % (1 << 20))
		out := make([][]byte, int(count)%(fuzzMaxValues+1))
		n, err := decodeDeltaByteArray(data, out, limit)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "parquet: DELTA_BYTE_ARRAY: ") {
				t.Fatalf("error text: %v", err)
			}
		} else {
			if n < 0 || n > len(data) {
				t.Fatalf("consumed %d of %d", n, len(data))
			}
			total := 0
			for _, v := range out {
				total += len(v)
			}
			if total > limit {
				t.Fatalf("%d bytes of values, limit %d", total, limit)
			}
			// A deltaByteArrayReader reads the same values in reads of
			// any size, each read's valid until the next.
			var r deltaByteArrayReader
			if err := r.init(data, limit); err != nil && len(out) > 0 {
				t.Fatalf("deltaByteArrayReader: %v", err)
			}
			part := make([][]byte, len(out))
			for i, size := 0, 1; i < len(out); i, size = i+size, size*3%17+1 {
				k := min(i+size, len(out))
				if err := r.read(part[i:k]); err != nil || !testEqualByteSlices(part[i:k], out[i:k]) {
					t.Fatalf("deltaByteArrayReader: values %d to %d: %q, want %q: %v", i, k, part[i:k], out[i:k], err)
				}
			}
			again := make([][]byte, len(out))
			if m, err := decodeDeltaByteArray(data[:n], again, limit); err != nil || m != n || !testEqualByteSlices(again, out) {
				t.Fatalf("consumed bytes alone: %d, %v", m, err)
			}
			enc := testEncDeltaBytes(out, o)
			if m, err := decodeDeltaByteArray(enc, again, limit); err != nil || m != len(enc) || !testEqualByteSlices(again, out) {
				t.Fatalf("round trip: consumed %d of %d, %v", m, len(enc), err)
			}
		}

		// The same input as DELTA_LENGTH_BYTE_ARRAY.
		n, err = decodeDeltaLengthByteArray(data, out)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "parquet: DELTA_LENGTH_BYTE_ARRAY: ") {
				t.Fatalf("error text: %v", err)
			}
			return
		}
		if n < 0 || n > len(data) {
			t.Fatalf("DELTA_LENGTH_BYTE_ARRAY consumed %d of %d", n, len(data))
		}
		again := make([][]byte, len(out))
		if m, err := decodeDeltaLengthByteArray(data[:n], again); err != nil || m != n || !testEqualByteSlices(again, out) {
			t.Fatalf("DELTA_LENGTH_BYTE_ARRAY consumed bytes alone: %d, %v", m, err)
		}
		enc := testEncDeltaLength(out, o)
		if m, err := decodeDeltaLengthByteArray(enc, again); err != nil || m != len(enc) || !testEqualByteSlices(again, out) {
			t.Fatalf("DELTA_LENGTH_BYTE_ARRAY round trip: consumed %d of %d, %v", m, len(enc), err)
		}
	})
}

func FuzzDecodePlainByteArray(f *testing.F) {
	r := rand.New(rand.NewPCG(57, 58))
	for _, n := range []int{0, 1, 3, 40} {
		vals := testEncRandomStrings(r, n)
		f.Add(testEncPlainByteArray(vals), uint16(n))
	}
	f.Add([]byte{1, 0, 0, 0, 'a', 0xFF, 0xFF, 0xFF, 0xFF, 'b'}, uint16(2))
	f.Fuzz(func(t *testing.T, data []byte, count uint16) {
		out := make([][]byte, int(count)%(fuzzMaxValues+1))
		n, err := decodePlainByteArray(data, out)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "parquet: PLAIN: ") {
				t.Fatalf("error text: %v", err)
			}
			return
		}
		if n < 0 || n > len(data) {
			t.Fatalf("consumed %d of %d", n, len(data))
		}
		for i, v := range out {
			if cap(v) != len(v) {
				t.Fatalf("value %d: cap %d, len %d", i, cap(v), len(v))
			}
		}
		if enc := testEncPlainByteArray(out); !bytes.Equal(enc, data[:n]) {
			t.Fatalf("round trip: %x, want %x", enc, data[:n])
		}
	})
}
