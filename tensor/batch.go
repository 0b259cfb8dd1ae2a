package tensor

import "fmt"

// Stack joins tensors of one type and shape into a tensor with a new
// leading dimension: n tensors of shape s make one of shape [n]+s. It is how
// a batch of single examples is formed.
func Stack(ts []Tensor) (Tensor, error) {
	if len(ts) == 0 {
		return Tensor{}, fmt.Errorf("tensor: Stack of no tensors")
	}
	first := ts[0]
	out, err := alloc(first.dtype, first.shape.Prepend(len(ts)))
	if err != nil {
		return Tensor{}, err
	}
	if err := StackInto(out, ts); err != nil {
		return Tensor{}, err
	}
	return out, nil
}

// StackInto is Stack into dst, whose shape must be [len(ts)]+row shape. It
// allocates nothing, so a batcher can reuse one output tensor.
func StackInto(dst Tensor, ts []Tensor) error {
	if dst.Len() != len(ts) || len(dst.shape) == 0 {
		return fmt.Errorf("tensor: cannot stack %d tensors into shape %v", len(ts), dst.shape)
	}
	for i, t := range ts {
		if err := dst.SetRow(i, t); err != nil {
			return fmt.Errorf("tensor: stack element %d: %w", i, err)
		}
	}
	return nil
}

// Concat joins tensors along dimension 0. They must share the type and the
// shape of their remaining dimensions; scalars cannot be concatenated.
func Concat(ts []Tensor) (Tensor, error) {
	if len(ts) == 0 {
		return Tensor{}, fmt.Errorf("tensor: Concat of no tensors")
	}
	first := ts[0]
	if first.Rank() == 0 {
		return Tensor{}, fmt.Errorf("tensor: cannot concatenate scalars")
	}
	rows := 0
	for i, t := range ts {
		if t.dtype != first.dtype {
			return Tensor{}, fmt.Errorf("tensor: concat element %d has type %v, want %v", i, t.dtype, first.dtype)
		}
		if t.Rank() != first.Rank() || !t.shape[1:].Equal(first.shape[1:]) {
			return Tensor{}, fmt.Errorf("tensor: concat element %d has shape %v, want %v", i, t.shape, rowsOf(first.shape[1:]))
		}
		rows += t.shape[0]
	}
	shape := first.shape.Clone()
	shape[0] = rows
	out, err := alloc(first.dtype, shape)
	if err != nil {
		return Tensor{}, err
	}
	off := 0
	for _, t := range ts {
		n := t.NumElements()
		copyData(out.data, off, t.data, 0, n)
		off += n
	}
	return out, nil
}

// PadTo returns t padded on the right of every dimension to shape, with
// zeros (false, "" for strings). shape must have t's rank and no dimension
// smaller than t's. If t already has the shape, PadTo returns t itself.
func PadTo(t Tensor, shape Shape) (Tensor, error) {
	if len(shape) != len(t.shape) {
		return Tensor{}, fmt.Errorf("tensor: cannot pad shape %v to rank %d", t.shape, len(shape))
	}
	for i, d := range shape {
		if d < t.shape[i] {
			return Tensor{}, fmt.Errorf("tensor: cannot pad shape %v to smaller %v", t.shape, shape)
		}
	}
	if shape.Equal(t.shape) {
		return t, nil
	}
	out, err := alloc(t.dtype, shape)
	if err != nil {
		return Tensor{}, err
	}
	copyPadded(out.data, 0, shape, t.data, 0, t.shape)
	return out, nil
}

// StackPadded stacks tensors of one type and rank whose dimensions may
// differ, padding each on the right to the largest size of every dimension
// among them. This is PaddingFIFOQueue's dequeue_many: the padding depends
// on the batch only.
func StackPadded(ts []Tensor) (Tensor, error) {
	if len(ts) == 0 {
		return Tensor{}, fmt.Errorf("tensor: StackPadded of no tensors")
	}
	first := ts[0]
	maxShape := first.shape.Clone()
	for i, t := range ts {
		if t.dtype != first.dtype {
			return Tensor{}, fmt.Errorf("tensor: element %d has type %v, want %v", i, t.dtype, first.dtype)
		}
		if t.Rank() != first.Rank() {
			return Tensor{}, fmt.Errorf("tensor: element %d has rank %d, want %d", i, t.Rank(), first.Rank())
		}
		for d, n := range t.shape {
			maxShape[d] = max(maxShape[d], n)
		}
	}
	// The padded shape can be far larger than any element: [n,0] and
	// [0,n] pad to [2,n,n]. TensorFlow's dequeue fails with
	// ResourceExhausted then; alloc refuses what no machine holds.
	out, err := alloc(first.dtype, maxShape.Prepend(len(ts)))
	if err != nil {
		return Tensor{}, err
	}
	rs := maxShape.NumElements()
	for i, t := range ts {
		copyPadded(out.data, i*rs, maxShape, t.data, 0, t.shape)
	}
	return out, nil
}

// alloc is Zeros for the functions that return errors: it fails, where
// Zeros panics, for an invalid dtype (the zero Tensor's) or a shape above
// MaxElements, and for a tensor of more than MaxElements bytes, which
// make would refuse with a panic.
func alloc(dtype DType, shape Shape) (Tensor, error) {
	if !dtype.Valid() {
		return Tensor{}, fmt.Errorf("tensor: invalid dtype %v", dtype)
	}
	n, err := shape.CheckedNumElements()
	if err != nil {
		return Tensor{}, err
	}
	if uint64(n)*uint64(elemBytes(dtype)) > MaxElements {
		return Tensor{}, fmt.Errorf("tensor: shape %v of %v: %w (more than 2^48 bytes)", shape, dtype, ErrTooManyElements)
	}
	return Tensor{dtype: dtype, shape: shape.Clone(), data: makeData(dtype, n)}, nil
}

// elemBytes returns the memory one element takes in a tensor's storage:
// Size, and a slice header for a String element.
func elemBytes(d DType) int {
	if d == String {
		return 24
	}
	return d.Size()
}

// rowsOf formats the shape of a tensor of any number of rows of shape
// row, as TensorFlow writes it: [?,3] for row [3], [?] for a scalar row.
func rowsOf(row Shape) string {
	s := row.String() // "[3]", "[]"
	if len(row) == 0 {
		return "[?]"
	}
	return "[?," + s[1:]
}

// copyPadded copies the row-major block src (shape sshape, at soff) into the
// larger row-major block dst (shape dshape, at doff), aligned at the origin.
func copyPadded(dst any, doff int, dshape Shape, src any, soff int, sshape Shape) {
	if len(sshape) == 0 {
		copyData(dst, doff, src, soff, 1)
		return
	}
	if len(sshape) == 1 {
		copyData(dst, doff, src, soff, sshape[0])
		return
	}
	dstride := dshape[1:].NumElements()
	sstride := sshape[1:].NumElements()
	for i := 0; i < sshape[0]; i++ {
		copyPadded(dst, doff+i*dstride, dshape[1:], src, soff+i*sstride, sshape[1:])
	}
}

// Reuse returns a tensor of type dtype and shape shape whose values the
// caller is to overwrite, made from t if it can be: t itself when it has
// that type and shape, a tensor over t's storage when it has the type and
// its values' capacity (the capacity of its Values slice, as append
// would use it) holds enough elements, and a new tensor of zeros
// otherwise. A tensor made from t shares its memory and starts with
// whatever values it held; t should not be used afterwards. It is how a
// consumer reuses one batch's memory for the next when batches differ in
// shape (padded batches): the storage grows to the largest batch and is
// then never allocated again. Like Zeros, Reuse panics for a shape that is
// not fully defined or is above MaxElements: a caller with a shape from
// outside the program checks it first (CheckedNumElements).
func Reuse(t Tensor, dtype DType, shape Shape) Tensor {
	if t.dtype == dtype && t.data != nil && shape.Equal(t.shape) {
		return t
	}
	// NumElements, not CheckedNumElements, whose error would keep shape
	// and so move a caller's shape built on its stack to the heap.
	n := shape.NumElements()
	if n < 0 {
		return Zeros(dtype, shape.Clone()) // panics, as Zeros does
	}
	if t.dtype == dtype && t.data != nil {
		if data, ok := resizeData(t.data, n); ok {
			return Tensor{dtype: dtype, shape: shape.Clone(), data: data}
		}
	}
	return Tensor{dtype: dtype, shape: shape.Clone(), data: makeData(dtype, n)}
}

// SetRowPadded copies src into row i of t as SetRow does, but src may be
// smaller than a row in any dimension: it is padded on the right of every
// dimension with zeros (false, empty strings) to the row's shape, which
// is written whole. This is how PaddingFIFOQueue's dequeue_many pads.
func (t Tensor) SetRowPadded(i int, src Tensor) error {
	if len(t.shape) == 0 || i < 0 || i >= t.shape[0] {
		return fmt.Errorf("tensor: row %d out of range for shape %v", i, t.shape)
	}
	if err := t.checkPadded(src.dtype, src.shape); err != nil {
		return err
	}
	copyPaddedClear(t.data, i*t.rowSize(), t.shape[1:], src.data, 0, src.shape)
	return nil
}

// CopyRowsPadded copies n rows of src, from row si on, into t from row i
// on, each padded as SetRowPadded pads; like CopyRows, it makes no tensor
// for the rows.
func (t Tensor) CopyRowsPadded(i int, src Tensor, si, n int) error {
	if len(t.shape) == 0 || len(src.shape) == 0 || n < 0 || i < 0 || si < 0 || i+n > t.shape[0] || si+n > src.shape[0] {
		return fmt.Errorf("tensor: rows [%d:%d] of shape %v into rows [%d:%d] of shape %v out of range", si, si+n, src.shape, i, i+n, t.shape)
	}
	if err := t.checkPadded(src.dtype, src.shape[1:]); err != nil {
		return err
	}
	rs, srs := t.rowSize(), src.rowSize()
	for k := range n {
		copyPaddedClear(t.data, (i+k)*rs, t.shape[1:], src.data, (si+k)*srs, src.shape[1:])
	}
	return nil
}

// checkPadded reports whether a row of type d and shape s pads to one of
// t's rows.
func (t Tensor) checkPadded(d DType, s Shape) error {
	if d != t.dtype {
		return fmt.Errorf("tensor: cannot set a %v row from a %v tensor", t.dtype, d)
	}
	row := t.shape[1:]
	if len(s) != len(row) {
		return fmt.Errorf("tensor: cannot pad shape %v to row shape %v", s, row)
	}
	for k, n := range s {
		if n > row[k] {
			return fmt.Errorf("tensor: cannot pad shape %v to smaller row shape %v", s, row)
		}
	}
	return nil
}

// copyPaddedClear is copyPadded that also zeroes the rest of the dst
// block, for a block that holds other values (a reused batch).
func copyPaddedClear(dst any, doff int, dshape Shape, src any, soff int, sshape Shape) {
	switch len(sshape) {
	case 0:
		copyData(dst, doff, src, soff, 1)
		return
	case 1:
		copyData(dst, doff, src, soff, sshape[0])
		clearData(dst, doff+sshape[0], dshape[0]-sshape[0])
		return
	}
	dstride := dshape[1:].NumElements()
	sstride := sshape[1:].NumElements()
	for i := range sshape[0] {
		copyPaddedClear(dst, doff+i*dstride, dshape[1:], src, soff+i*sstride, sshape[1:])
	}
	clearData(dst, doff+sshape[0]*dstride, (dshape[0]-sshape[0])*dstride)
}
