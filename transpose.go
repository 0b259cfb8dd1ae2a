package sluice

import (
	"encoding/binary"
	"fmt"

	"github.com/sluiceml/sluice/tensor"
)

// gatherIndex returns, for every element of a tensor of shape with its
// dimensions permuted by perm, the position of its value in the tensor of
// shape: out[i] = in[idx[i]] transposes a row-major tensor. It fails
// unless perm is a permutation of shape's dimensions.
func gatherIndex(shape, perm []int) ([]int, error) {
	if len(perm) != len(shape) {
		return nil, fmt.Errorf("%d axes for %d dimensions", len(perm), len(shape))
	}
	seen := make([]bool, len(perm))
	for _, p := range perm {
		if p < 0 || p >= len(perm) || seen[p] {
			return nil, fmt.Errorf("%v is not a permutation", perm)
		}
		seen[p] = true
	}
	// The index has an entry for every element: a shape of more
	// elements than a tensor can hold is refused before it is sized,
	// rather than overflow or make panic.
	if _, err := tensor.Shape(shape).CheckedNumElements(); err != nil {
		return nil, err
	}
	// strides[d] is how far apart consecutive values of dimension d are
	// in the input.
	strides := make([]int, len(shape))
	n := 1
	for d := len(shape) - 1; d >= 0; d-- {
		strides[d] = n
		n *= shape[d]
	}
	out := permuted(shape, perm)
	idx := make([]int, 0, n)
	at := make([]int, len(out)) // the output element's coordinates
	for range n {
		src := 0
		for d, c := range at {
			src += c * strides[perm[d]]
		}
		idx = append(idx, src)
		for d := len(at) - 1; d >= 0; d-- {
			if at[d]++; at[d] < out[d] {
				break
			}
			at[d] = 0
		}
	}
	return idx, nil
}

// permuted returns shape's dimensions in perm's order.
func permuted(shape, perm []int) []int {
	out := make([]int, len(perm))
	for i, p := range perm {
		out[i] = shape[p]
	}
	return out
}

// A transposer permutes the dimensions of every record of a field's batch.
type transposer struct {
	idx   []int // gatherIndex of a record
	shape []int // a record's shape, transposed
	// rgb is the number of pixels of a record whose three planes become
	// pixels of three channels (Shape [3, ...], Transpose [1, ..., 0], as
	// CIFAR-10's), else 0: such uint8 records are interleaved eight
	// pixels at a time instead of gathered byte by byte.
	rgb int
}

func newTransposer(shape, perm []int) (*transposer, error) {
	idx, err := gatherIndex(shape, perm)
	if err != nil {
		return nil, err
	}
	t := &transposer{idx: idx, shape: permuted(shape, perm)}
	if len(shape) >= 2 && shape[0] == 3 && perm[len(perm)-1] == 0 {
		t.rgb = len(idx) / 3
		for i, p := range perm[:len(perm)-1] {
			if p != i+1 {
				t.rgb = 0
			}
		}
	}
	return t, nil
}

// interleaveRGB is false only in benchmarks that measure the gather it
// replaces.
var interleaveRGB = true

// interleaveRecords transposes uint8 records of three planes each
// (t.rgb > 0), len(t.idx) bytes, into dst, row after row.
func (t *transposer) interleaveRecords(dst []uint8, recs [][]byte) {
	k := len(t.idx)
	for i, r := range recs {
		interleave3(dst[i*k:(i+1)*k], r, t.rgb)
	}
}

// transpose returns the batch in with each record transposed, written
// into out if it holds as many records, else into a new tensor.
func (t *transposer) transpose(in, out tensor.Tensor) tensor.Tensor {
	n := in.Len()
	if !out.IsValid() || out.Len() != n {
		out = tensor.Zeros(in.DType(), append(tensor.Shape{n}, t.shape...))
	}
	switch src := in.Data().(type) {
	case []uint8:
		if t.rgb > 0 && interleaveRGB {
			interleave3(out.Data().([]uint8), src, t.rgb)
			break
		}
		gatherRows(out.Data().([]uint8), src, t.idx)
	case []int8:
		gatherRows(out.Data().([]int8), src, t.idx)
	case []int16:
		gatherRows(out.Data().([]int16), src, t.idx)
	case []uint16:
		gatherRows(out.Data().([]uint16), src, t.idx)
	case []int32:
		gatherRows(out.Data().([]int32), src, t.idx)
	case []uint32:
		gatherRows(out.Data().([]uint32), src, t.idx)
	case []int64:
		gatherRows(out.Data().([]int64), src, t.idx)
	case []uint64:
		gatherRows(out.Data().([]uint64), src, t.idx)
	case []tensor.Half:
		gatherRows(out.Data().([]tensor.Half), src, t.idx)
	case []float32:
		gatherRows(out.Data().([]float32), src, t.idx)
	case []float64:
		gatherRows(out.Data().([]float64), src, t.idx)
	case []complex64:
		gatherRows(out.Data().([]complex64), src, t.idx)
	case []complex128:
		gatherRows(out.Data().([]complex128), src, t.idx)
	case []bool:
		gatherRows(out.Data().([]bool), src, t.idx)
	default:
		panic(fmt.Sprintf("sluice: transpose of %v", in.DType()))
	}
	return out
}

// gatherRows transposes every row of src (len(idx) values each) into dst.
func gatherRows[T any](dst, src []T, idx []int) {
	for len(src) >= len(idx) && len(idx) > 0 {
		row, out := src[:len(idx)], dst[:len(idx)]
		for i, j := range idx {
			out[i] = row[j]
		}
		src, dst = src[len(idx):], dst[len(idx):]
	}
}

// interleave3 turns every record of src, three planes of p bytes, into p
// pixels of three bytes in dst. Eight pixels take three 8-byte loads, one
// from each plane, and three 8-byte stores, where a gather takes 24 loads
// of its index, 24 of a byte and 24 stores: CIFAR-10's records are
// transposed two to three times faster.
func interleave3(dst, src []uint8, p int) {
	n := 3 * p
	le := binary.LittleEndian
	for len(src) >= n && len(dst) >= n && n > 0 {
		r, g, b := src[:p], src[p:2*p], src[2*p:n]
		out := dst[:n]
		i := 0
		for ; i+8 <= p; i += 8 {
			R, G, B := le.Uint64(r[i:i+8]), le.Uint64(g[i:i+8]), le.Uint64(b[i:i+8])
			o := out[3*i : 3*i+24]
			// Byte k of R goes to byte 3k of o, of G to 3k+1, of B to 3k+2.
			le.PutUint64(o[0:8], R&0xff|(G&0xff)<<8|(B&0xff)<<16|(R&0xff00)<<16|(G&0xff00)<<24|(B&0xff00)<<32|(R&0xff0000)<<32|(G&0xff0000)<<40)
			le.PutUint64(o[8:16], (B>>16)&0xff|(R>>16)&0xff00|(G>>8)&0xff0000|B&0xff000000|R&0xff00000000|(G&0xff00000000)<<8|(B&0xff00000000)<<16|(R&0xff0000000000)<<16)
			le.PutUint64(o[16:24], (G>>40)&0xff|(B>>32)&0xff00|(R>>32)&0xff0000|(G>>24)&0xff000000|(B>>16)&0xff00000000|(R>>16)&0xff0000000000|(G>>8)&0xff000000000000|B&0xff00000000000000)
		}
		for ; i < p; i++ {
			out[3*i], out[3*i+1], out[3*i+2] = r[i], g[i], b[i]
		}
		src, dst = src[n:], dst[n:]
	}
}
