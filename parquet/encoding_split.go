package parquet

import (
	"fmt"
	"math"
)

// BYTE_STREAM_SPLIT: n values of k bytes each are stored as k streams of n
// bytes, stream j holding byte j (little-endian order) of every value. The
// page's value bytes are exactly k*n: n is len(out), and each decoder checks
// that data holds at least k*n bytes and returns k*n.

const encNameSplit = "BYTE_STREAM_SPLIT"

// splitShort reports data too short for n values of size bytes.
func splitShort(data []byte, n, size int) error {
	return encErrEOF(encNameSplit, fmt.Sprintf("%d streams of %d bytes", size, n), 0, len(data), n*size)
}

// splitStreams4 returns the 4 streams of n bytes, each exactly n long so
// that indexing them by the index of the first is free of bounds checks.
func splitStreams4(data []byte, n int) (s0, s1, s2, s3 []byte) {
	return data[:n], data[n : 2*n], data[2*n : 3*n], data[3*n : 4*n]
}

// splitUint32 gathers value i from 4 streams.
func splitUint32(s0, s1, s2, s3 []byte, i int) uint32 {
	return uint32(s0[i]) | uint32(s1[i])<<8 | uint32(s2[i])<<16 | uint32(s3[i])<<24
}

// splitUint64 gathers value i from 8 streams.
func splitUint64(s *[8][]byte, i int) uint64 {
	return uint64(s[0][i]) | uint64(s[1][i])<<8 | uint64(s[2][i])<<16 | uint64(s[3][i])<<24 |
		uint64(s[4][i])<<32 | uint64(s[5][i])<<40 | uint64(s[6][i])<<48 | uint64(s[7][i])<<56
}

// splitStreams8 returns the 8 streams of n bytes.
func splitStreams8(data []byte, n int) (s [8][]byte) {
	for j := range s {
		s[j] = data[j*n : (j+1)*n : (j+1)*n]
	}
	return s
}

// decodeByteStreamSplitFloat decodes len(out) FLOAT values.
func decodeByteStreamSplitFloat(data []byte, out []float32) (int, error) {
	n := len(out)
	if n > len(data)/4 {
		return 0, splitShort(data, n, 4)
	}
	s0, s1, s2, s3 := splitStreams4(data, n)
	for i := range s0 {
		out[i] = math.Float32frombits(splitUint32(s0, s1, s2, s3, i))
	}
	return 4 * n, nil
}

// decodeByteStreamSplitInt32 decodes len(out) INT32 values.
func decodeByteStreamSplitInt32(data []byte, out []int32) (int, error) {
	n := len(out)
	if n > len(data)/4 {
		return 0, splitShort(data, n, 4)
	}
	s0, s1, s2, s3 := splitStreams4(data, n)
	for i := range s0 {
		out[i] = int32(splitUint32(s0, s1, s2, s3, i))
	}
	return 4 * n, nil
}

// decodeByteStreamSplitDouble decodes len(out) DOUBLE values.
func decodeByteStreamSplitDouble(data []byte, out []float64) (int, error) {
	n := len(out)
	if n > len(data)/8 {
		return 0, splitShort(data, n, 8)
	}
	s := splitStreams8(data, n)
	for i := range out {
		out[i] = math.Float64frombits(splitUint64(&s, i))
	}
	return 8 * n, nil
}

// decodeByteStreamSplitInt64 decodes len(out) INT64 values.
func decodeByteStreamSplitInt64(data []byte, out []int64) (int, error) {
	n := len(out)
	if n > len(data)/8 {
		return 0, splitShort(data, n, 8)
	}
	s := splitStreams8(data, n)
	for i := range out {
		out[i] = int64(splitUint64(&s, i))
	}
	return 8 * n, nil
}

// decodeByteStreamSplitFixed decodes len(out) FIXED_LEN_BYTE_ARRAY values of
// size bytes (size > 0). The values are rebuilt into buf, which the caller
// allocates with len(buf) >= size*len(out); out[i] slices buf, its capacity
// cut to size.
func decodeByteStreamSplitFixed(data []byte, size int, out [][]byte, buf []byte) (int, error) {
	if size <= 0 {
		return 0, fmt.Errorf("parquet: %s: FIXED_LEN_BYTE_ARRAY size %d is not positive", encNameSplit, size)
	}
	n := len(out)
	if n > len(data)/size {
		return 0, splitShort(data, n, size)
	}
	if len(buf)/size < n {
		return 0, fmt.Errorf("parquet: %s: buffer of %d bytes too small for %d values of %d bytes",
			encNameSplit, len(buf), n, size)
	}
	buf = buf[:n*size]
	// Stream by stream: each stream is read sequentially, the writes stride
	// by size through buf.
	for j := range size {
		stream := data[j*n : (j+1)*n]
		for i, b := range stream {
			buf[i*size+j] = b
		}
	}
	for i := range out {
		a := i * size
		out[i] = buf[a : a+size : a+size]
	}
	return n * size, nil
}
