package parquet

import (
	"encoding/binary"
	"fmt"
	"math"
)

// PLAIN decoders. Each decodes len(out) values from the start of data and
// returns the bytes consumed. Counts are compared against len(data) by
// division, never by multiplying len(out), so no product can overflow.

const encNamePlain = "PLAIN"

// plainShort reports that n values of size bytes each do not fit in data.
func plainShort(data []byte, n, size int) error {
	return encErrEOF(encNamePlain, fmt.Sprintf("%d values of %d bytes", n, size), 0, len(data), n*size)
}

// decodePlainBool decodes booleans bit-packed LSB first, ceil(n/8) bytes.
func decodePlainBool(data []byte, out []bool) (int, error) {
	need := len(out)/8 + min(len(out)%8, 1)
	if len(data) < need {
		return 0, encErrEOF(encNamePlain, "booleans", 0, len(data), need)
	}
	src := data[:need]
	for i := range out {
		out[i] = src[i>>3]>>(i&7)&1 != 0
	}
	return need, nil
}

// decodePlainInt32 decodes 4-byte little-endian values.
func decodePlainInt32(data []byte, out []int32) (int, error) {
	if len(out) > len(data)/4 {
		return 0, plainShort(data, len(out), 4)
	}
	src := data[:4*len(out)]
	for i := range out {
		out[i] = int32(binary.LittleEndian.Uint32(src[4*i:]))
	}
	return len(src), nil
}

// decodePlainInt64 decodes 8-byte little-endian values.
func decodePlainInt64(data []byte, out []int64) (int, error) {
	if len(out) > len(data)/8 {
		return 0, plainShort(data, len(out), 8)
	}
	src := data[:8*len(out)]
	for i := range out {
		out[i] = int64(binary.LittleEndian.Uint64(src[8*i:]))
	}
	return len(src), nil
}

// decodePlainFloat decodes 4-byte little-endian IEEE 754 values.
func decodePlainFloat(data []byte, out []float32) (int, error) {
	if len(out) > len(data)/4 {
		return 0, plainShort(data, len(out), 4)
	}
	src := data[:4*len(out)]
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(src[4*i:]))
	}
	return len(src), nil
}

// decodePlainDouble decodes 8-byte little-endian IEEE 754 values.
func decodePlainDouble(data []byte, out []float64) (int, error) {
	if len(out) > len(data)/8 {
		return 0, plainShort(data, len(out), 8)
	}
	src := data[:8*len(out)]
	for i := range out {
		out[i] = math.Float64frombits(binary.LittleEndian.Uint64(src[8*i:]))
	}
	return len(src), nil
}

// decodePlainByteArray decodes values stored as a 4-byte little-endian
// length followed by that many bytes. out[i] aliases data, with its capacity
// cut to its length so that an append by the caller cannot overwrite the
// next value.
func decodePlainByteArray(data []byte, out [][]byte) (int, error) {
	pos := 0
	for i := range out {
		if len(data)-pos < 4 {
			return pos, encErrEOF(encNamePlain, fmt.Sprintf("BYTE_ARRAY value %d length", i), pos, len(data)-pos, 4)
		}
		n := binary.LittleEndian.Uint32(data[pos:])
		pos += 4
		// In uint64 so that a length >= 2^31 cannot wrap where int is 32 bits.
		if uint64(n) > uint64(len(data)-pos) {
			return pos, encErrEOF(encNamePlain, fmt.Sprintf("BYTE_ARRAY value %d", i), pos, len(data)-pos, int(n))
		}
		end := pos + int(n)
		out[i] = data[pos:end:end]
		pos = end
	}
	return pos, nil
}

// decodePlainFixed decodes FIXED_LEN_BYTE_ARRAY values of size bytes each
// (size > 0); out[i] aliases data with its capacity cut to size.
func decodePlainFixed(data []byte, size int, out [][]byte) (int, error) {
	if size <= 0 {
		return 0, fmt.Errorf("parquet: %s: FIXED_LEN_BYTE_ARRAY size %d is not positive", encNamePlain, size)
	}
	if len(out) > len(data)/size {
		return 0, plainShort(data, len(out), size)
	}
	for i := range out {
		a := i * size
		out[i] = data[a : a+size : a+size]
	}
	return len(out) * size, nil
}

// decodePlainInt96 decodes 12-byte values (deprecated INT96 timestamps),
// copied as they are.
func decodePlainInt96(data []byte, out [][12]byte) (int, error) {
	if len(out) > len(data)/12 {
		return 0, plainShort(data, len(out), 12)
	}
	for i := range out {
		out[i] = [12]byte(data[12*i:])
	}
	return 12 * len(out), nil
}
