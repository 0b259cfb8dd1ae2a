package input

import (
	"fmt"
	"sync"

	"github.com/sluiceml/sluice/tensor"
)

// A sparse tensor's number of values varies from example to example, so it
// cannot travel through a queue of fixed-shape components. As TensorFlow
// does, a step stores it in its pipeline's sparse table and enqueues the
// int64 handle that stands for it; a batcher told which components are
// handles (SparseComponents) takes the tensors of a batch back out of the
// table and joins them, prepending each example's position in the batch
// to its indices.
type sparseTable struct {
	mu   sync.Mutex
	next int64
	m    map[int64]tensor.Sparse
}

func (t *sparseTable) put(s tensor.Sparse) int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.m == nil {
		t.m = make(map[int64]tensor.Sparse)
	}
	t.next++
	t.m[t.next] = s
	return t.next
}

// take removes the tensors of handles from the table and returns them. If
// a handle is missing it removes none, so that one bad handle does not
// lose the other examples' tensors with it.
func (t *sparseTable) take(handles []int64) ([]tensor.Sparse, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]tensor.Sparse, len(handles))
	for i, h := range handles {
		s, ok := t.m[h]
		if !ok {
			return nil, fmt.Errorf("input: no sparse tensor with handle %d (taken twice, or not stored with StoreSparse)", h)
		}
		out[i] = s
	}
	for _, h := range handles {
		delete(t.m, h)
	}
	return out, nil
}

// drop removes the tensors of handles, those of examples a keep flag
// dropped, from the table. Handles it does not hold are ignored: the
// element was dropped, so no batch reports them.
func (t *sparseTable) drop(handles []int64) {
	if len(handles) == 0 {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, h := range handles {
		delete(t.m, h)
	}
}

// len returns the number of tensors the table holds.
func (t *sparseTable) len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.m)
}

// StoreSparse keeps s in the pipeline and returns the Int64 scalar handle
// a step enqueues in its place (TensorFlow's _store_sparse_tensors). Name
// the component with SparseComponents on the batcher, and read the batched
// tensor with Batch.Sparse. s must pass Validate: a negative dimension in
// its dense shape is an error, as TensorFlow's AddSparseToTensorsMap
// reports. A Maybe batcher takes the tensors of the examples its keep
// flags drop out of the pipeline again, as TensorFlow stores only those
// kept.
func (p *Pipeline) StoreSparse(s tensor.Sparse) (tensor.Tensor, error) {
	if err := s.Validate(); err != nil {
		return tensor.Tensor{}, err
	}
	return tensor.Scalar(p.sparse.put(s)), nil
}

// maxSparseBatch bounds the batch dimension StoreSparseMany takes. Each
// example is stored as a tensor of its own, a few hundred bytes even when
// it holds no values, so the dense shape alone, which costs nothing to
// write, would otherwise size any amount of memory: 2^24 examples are a few
// gigabytes, more than one enqueue_many of a batcher holds.
const maxSparseBatch = 1 << 24

// StoreSparseMany is StoreSparse for a batch, for EnqueueMany: s's first
// dimension indexes examples; each example's part is stored on its own,
// without that dimension, and the handles come back as an Int64 vector.
// The batch dimension may be at most 2^24.
func (p *Pipeline) StoreSparseMany(s tensor.Sparse) (tensor.Tensor, error) {
	if err := s.Validate(); err != nil {
		return tensor.Tensor{}, err
	}
	rank := len(s.DenseShape)
	if rank < 2 {
		return tensor.Tensor{}, fmt.Errorf("input: StoreSparseMany needs a batch dimension, got dense shape %v", s.DenseShape)
	}
	n := s.DenseShape[0]
	if n > maxSparseBatch {
		return tensor.Tensor{}, fmt.Errorf("input: StoreSparseMany: batch dimension %d of dense shape %v is above %d", n, s.DenseShape, maxSparseBatch)
	}
	idx := s.Indices.Int64s()
	rows := make([][]int64, n)
	vals := make([][]int, n)
	for j := range s.NNZ() {
		e := idx[j*rank]
		if e < 0 || e >= int64(n) {
			return tensor.Tensor{}, fmt.Errorf("input: sparse index %d out of the batch of %d", e, n)
		}
		rows[e] = append(rows[e], idx[j*rank+1:(j+1)*rank]...)
		vals[e] = append(vals[e], j)
	}
	handles := make([]int64, n)
	for e := range n {
		values := make([]tensor.Tensor, len(vals[e]))
		for k, j := range vals[e] {
			values[k] = s.Values.Row(j)
		}
		var v tensor.Tensor
		if len(values) == 0 {
			v = tensor.Zeros(s.Values.DType(), tensor.Shape{0})
		} else {
			v, _ = tensor.Stack(values)
		}
		handles[e] = p.sparse.put(tensor.Sparse{
			Indices:    tensor.New(append([]int64{}, rows[e]...), len(vals[e]), rank-1),
			Values:     v,
			DenseShape: s.DenseShape[1:].Clone(),
		})
	}
	return tensor.New(handles), nil
}
