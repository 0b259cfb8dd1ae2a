package example

import (
	"slices"

	"github.com/sluiceml/sluice/tensor"
)

// Parsed holds the tensors parsed for a Spec: a dense tensor for each
// FixedLen and FixedLenSequence feature, a sparse tensor for each VarLen
// and SparseFeature, by the spec's names.
type Parsed struct {
	names   []string // sorted
	kinds   []Kind
	dense   []tensor.Tensor
	sparse  []tensor.Sparse
	lengths []tensor.Tensor // steps per record: batched feature lists and FixedLenSequence features
}

func (p *Parsed) index(name string) int {
	if i, ok := slices.BinarySearch(p.names, name); ok {
		return i
	}
	return -1
}

// Names returns the feature names in sorted order, the order of
// Components.
func (p *Parsed) Names() []string { return p.names }

// Dense returns the dense tensor of a FixedLen or FixedLenSequence feature.
// It reports false if the spec has no dense feature of that name.
func (p *Parsed) Dense(name string) (tensor.Tensor, bool) {
	i := p.index(name)
	if i < 0 || !p.dense[i].IsValid() {
		return tensor.Tensor{}, false
	}
	return p.dense[i], true
}

// Sparse returns the sparse tensor of a VarLen or SparseFeature feature.
// It reports false if the spec has no sparse feature of that name.
func (p *Parsed) Sparse(name string) (tensor.Sparse, bool) {
	i := p.index(name)
	if i < 0 || p.dense[i].IsValid() {
		return tensor.Sparse{}, false
	}
	return p.sparse[i], true
}

// Components returns every output as a flat list of tensors, for
// enqueueing: features in sorted-name order, a dense feature as its
// tensor, a sparse feature as three tensors — indices, values, and the
// dense shape as an Int64 vector. ComponentNames names them.
func (p *Parsed) Components() []tensor.Tensor {
	out := make([]tensor.Tensor, 0, len(p.names)*3)
	for i := range p.names {
		if p.dense[i].IsValid() {
			out = append(out, p.dense[i])
			continue
		}
		s := p.sparse[i]
		shape := make([]int64, len(s.DenseShape))
		for j, d := range s.DenseShape {
			shape[j] = int64(d)
		}
		out = append(out, s.Indices, s.Values, tensor.New(shape))
	}
	return out
}

// ComponentNames returns the names of Components' tensors: a dense
// feature's name, or name+"/indices", name+"/values", name+"/dense_shape"
// for a sparse one.
func (p *Parsed) ComponentNames() []string {
	out := make([]string, 0, len(p.names)*3)
	for i, n := range p.names {
		if p.dense[i].IsValid() {
			out = append(out, n)
			continue
		}
		out = append(out, n+"/indices", n+"/values", n+"/dense_shape")
	}
	return out
}
