package tensor

import (
	"fmt"
	"math"
	"math/bits"
)

// Sparse is a sparse tensor in coordinate form, as TensorFlow's
// SparseTensor: Indices is an Int64 matrix [nnz, rank] of the coordinates
// of the stored values, Values a vector [nnz], and DenseShape the shape of
// the dense tensor it stands for.
type Sparse struct {
	Indices    Tensor
	Values     Tensor
	DenseShape Shape
}

// Validate checks that the parts of s fit together and that its dense
// shape is one TensorFlow accepts: no dimension negative, and a product
// of the dimensions that fits an int64. The dense shape of a sparse tensor
// may describe far more elements than a dense Tensor can hold (hashed
// feature crosses do), so it is not held to MaxElements. Validate does not
// check the indices against the dense shape: TensorFlow's batching passes
// them through too, and it is the conversion to a dense tensor that
// refuses one out of range.
func (s Sparse) Validate() error {
	if s.Indices.DType() != Int64 || s.Indices.Rank() != 2 {
		return fmt.Errorf("tensor: sparse indices must be an int64 matrix, got %v %v", s.Indices.DType(), s.Indices.Shape())
	}
	if s.Values.Rank() != 1 || s.Values.Len() != s.Indices.Len() {
		return fmt.Errorf("tensor: sparse values shape %v does not match indices %v", s.Values.Shape(), s.Indices.Shape())
	}
	if s.Indices.Shape()[1] != len(s.DenseShape) {
		return fmt.Errorf("tensor: sparse indices of rank %d, dense shape %v", s.Indices.Shape()[1], s.DenseShape)
	}
	return checkDenseShape(s.DenseShape)
}

// checkDenseShape returns an error, in TensorFlow's words, for a sparse
// tensor's dense shape with a negative dimension or more elements than an
// int64 counts.
func checkDenseShape(shape Shape) error {
	n := uint64(1)
	for _, d := range shape {
		if d < 0 {
			// TensorFlow's TensorShape text (AddSparseToTensorsMap).
			return fmt.Errorf("tensor: sparse dense shape %v: Dimension %d must be >= 0", shape, d)
		}
		hi, lo := bits.Mul64(n, uint64(d))
		if hi != 0 || lo > math.MaxInt64 {
			return fmt.Errorf("tensor: sparse dense shape %v: Encountered overflow when multiplying the dimensions", shape)
		}
		n = lo
	}
	return nil
}

// NNZ returns the number of stored values.
func (s Sparse) NNZ() int { return s.Values.Len() }

// StackSparse batches sparse tensors of one rank and value type the way
// tf.train.batch does: the example's position in the batch is prepended to
// each index, and the dense shape is [len(ss)] + the largest size of each
// dimension among them.
func StackSparse(ss []Sparse) (Sparse, error) {
	if len(ss) == 0 {
		return Sparse{}, fmt.Errorf("tensor: StackSparse of no tensors")
	}
	rank := len(ss[0].DenseShape)
	dtype := ss[0].Values.DType()
	dense := make(Shape, rank+1)
	dense[0] = len(ss)
	nnz := 0
	for i, s := range ss {
		if err := s.Validate(); err != nil {
			return Sparse{}, fmt.Errorf("tensor: sparse element %d: %w", i, err)
		}
		if len(s.DenseShape) != rank || s.Values.DType() != dtype {
			return Sparse{}, fmt.Errorf("tensor: sparse element %d is %v of rank %d, want %v of rank %d",
				i, s.Values.DType(), len(s.DenseShape), dtype, rank)
		}
		for d, n := range s.DenseShape {
			dense[d+1] = max(dense[d+1], n)
		}
		nnz += s.NNZ()
	}
	if err := checkDenseShape(dense); err != nil {
		// Each element's shape holds, but not the batch's.
		return Sparse{}, err
	}
	indices := make([]int64, 0, nnz*(rank+1))
	values := Zeros(dtype, Shape{nnz})
	off := 0
	for i, s := range ss {
		idx := s.Indices.Int64s()
		for j := 0; j < s.NNZ(); j++ {
			indices = append(indices, int64(i))
			indices = append(indices, idx[j*rank:(j+1)*rank]...)
		}
		copyData(values.data, off, s.Values.data, 0, s.NNZ())
		off += s.NNZ()
	}
	return Sparse{Indices: New(indices, nnz, rank+1), Values: values, DenseShape: dense}, nil
}
