package parquet

import (
	"fmt"
	"math"
)

// BYTE_STREAM_SPLIT: n values of k bytes each are stored as k streams of n
// bytes, stream j holding byte j (little-endian order) of every value. The
// page's value bytes are exactly k*n, so n, the stride from one stream to
// the next, is known before the levels say how many values there are.

const encNameSplit = "BYTE_STREAM_SPLIT"

// splitShort reports data too short for n values of size bytes.
func splitShort(data []byte, n, size int) error {
	return encErrEOF(encNameSplit, fmt.Sprintf("%d streams of %d bytes", size, n), 0, len(data), n*size)
}

// splitStreams4 returns n bytes from first of each of the 4 streams of
// stride bytes, each exactly n long so that indexing them by the index
// of the first is free of bounds checks.
func splitStreams4(data []byte, stride, first, n int) (s0, s1, s2, s3 []byte) {
	at := func(j int) []byte { return data[j*stride+first : j*stride+first+n] }
	return at(0), at(1), at(2), at(3)
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

// splitStreams8 returns n bytes from first of each of the 8 streams of
// stride bytes.
func splitStreams8(data []byte, stride, first, n int) (s [8][]byte) {
	for j := range s {
		a := j*stride + first
		s[j] = data[a : a+n : a+n]
	}
	return s
}

// splitCheck checks that data holds streams of stride values of size
// bytes, and that values first to first+n are among them.
func splitCheck(data []byte, size, stride, first, n int) error {
	if stride < 0 || stride > len(data)/size {
		return splitShort(data, stride, size)
	}
	if first < 0 || n > stride-first {
		return fmt.Errorf("parquet: %s: values %d to %d of streams of %d", encNameSplit, first, first+n, stride)
	}
	return nil
}

// The decoders below decode the len(out) values from value first of
// streams of stride values (a page's values are decoded a batch at a
// time) and return the bytes the streams take, size*stride.

// decodeByteStreamSplitFloat decodes FLOAT values.
func decodeByteStreamSplitFloat(data []byte, stride, first int, out []float32) (int, error) {
	if err := splitCheck(data, 4, stride, first, len(out)); err != nil {
		return 0, err
	}
	s0, s1, s2, s3 := splitStreams4(data, stride, first, len(out))
	for i := range s0 {
		out[i] = math.Float32frombits(splitUint32(s0, s1, s2, s3, i))
	}
	return 4 * stride, nil
}

// decodeByteStreamSplitInt32 decodes INT32 values.
func decodeByteStreamSplitInt32(data []byte, stride, first int, out []int32) (int, error) {
	if err := splitCheck(data, 4, stride, first, len(out)); err != nil {
		return 0, err
	}
	s0, s1, s2, s3 := splitStreams4(data, stride, first, len(out))
	for i := range s0 {
		out[i] = int32(splitUint32(s0, s1, s2, s3, i))
	}
	return 4 * stride, nil
}

// decodeByteStreamSplitDouble decodes DOUBLE values.
func decodeByteStreamSplitDouble(data []byte, stride, first int, out []float64) (int, error) {
	if err := splitCheck(data, 8, stride, first, len(out)); err != nil {
		return 0, err
	}
	s := splitStreams8(data, stride, first, len(out))
	for i := range out {
		out[i] = math.Float64frombits(splitUint64(&s, i))
	}
	return 8 * stride, nil
}

// decodeByteStreamSplitInt64 decodes INT64 values.
func decodeByteStreamSplitInt64(data []byte, stride, first int, out []int64) (int, error) {
	if err := splitCheck(data, 8, stride, first, len(out)); err != nil {
		return 0, err
	}
	s := splitStreams8(data, stride, first, len(out))
	for i := range out {
		out[i] = int64(splitUint64(&s, i))
	}
	return 8 * stride, nil
}

// decodeByteStreamSplitFixed decodes FIXED_LEN_BYTE_ARRAY values of size
// bytes (size > 0). The values are rebuilt into buf, which the caller
// allocates with len(buf) >= size*len(out); out[i] slices buf, its
// capacity cut to size.
func decodeByteStreamSplitFixed(data []byte, size, stride, first int, out [][]byte, buf []byte) (int, error) {
	if size <= 0 {
		return 0, fmt.Errorf("parquet: %s: FIXED_LEN_BYTE_ARRAY size %d is not positive", encNameSplit, size)
	}
	if err := splitCheck(data, size, stride, first, len(out)); err != nil {
		return 0, err
	}
	n := len(out)
	if len(buf)/size < n {
		return 0, fmt.Errorf("parquet: %s: buffer of %d bytes too small for %d values of %d bytes",
			encNameSplit, len(buf), n, size)
	}
	buf = buf[:n*size]
	// Stream by stream: each stream is read sequentially, the writes stride
	// by size through buf.
	for j := range size {
		stream := data[j*stride+first : j*stride+first+n]
		for i, b := range stream {
			buf[i*size+j] = b
		}
	}
	for i := range out {
		a := i * size
		out[i] = buf[a : a+size : a+size]
	}
	return size * stride, nil
}
