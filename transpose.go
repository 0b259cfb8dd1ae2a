package sluice

import (
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
	// strides[d] is how far apart consecutive values of dimension d are
	// in the input.
	strides := make([]int, len(shape))
	n := 1
	for d := len(shape) - 1; d >= 0; d-- {
		if shape[d] < 0 {
			return nil, fmt.Errorf("negative dimension in %v", shape)
		}
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
	idx   []int         // gatherIndex of a record
	shape []int         // a record's shape, transposed
	src   tensor.Tensor // the last batch before transposing, reused
}

// transpose returns the batch in with each record transposed, written
// into out if it holds as many records, else into a new tensor. It keeps
// in to decode the next batch into.
func (t *transposer) transpose(in, out tensor.Tensor) tensor.Tensor {
	t.src = in
	n := in.Len()
	if !out.IsValid() || out.Len() != n {
		out = tensor.Zeros(in.DType(), append(tensor.Shape{n}, t.shape...))
	}
	switch src := in.Data().(type) {
	case []uint8:
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
