package sluice

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strconv"

	"github.com/sluiceml/sluice/dataerr"
	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tensor"
)

// A feature is one named output of a source, as the spec, the CSV columns
// or the record fields declare it.
type feature struct {
	name   string
	dtype  tensor.DType
	sparse bool // a VarLen or SparseFeature: three components in an element
	// steps marks a feature list of SequenceExamples, or a
	// FixedLenSequence feature of Examples, whose records' step counts
	// follow its values as one more component.
	steps bool
}

// A layout is a source's features, sorted by name, and where each lives in
// the queue elements that carry whole batches: a dense feature is one
// component, a sparse one three (indices, values, dense shape), and a
// feature list one more (its step counts).
type layout struct {
	features []feature
	first    []int // features[i]'s first component
	dtypes   []tensor.DType
}

func newLayout(fs []feature) *layout {
	slices.SortFunc(fs, func(a, b feature) int {
		switch {
		case a.name < b.name:
			return -1
		case a.name > b.name:
			return 1
		}
		return 0
	})
	l := &layout{features: fs}
	for _, f := range fs {
		l.first = append(l.first, len(l.dtypes))
		if f.sparse {
			l.dtypes = append(l.dtypes, tensor.Int64, f.dtype, tensor.Int64)
		} else {
			l.dtypes = append(l.dtypes, f.dtype)
		}
		if f.steps {
			l.dtypes = append(l.dtypes, tensor.Int64)
		}
	}
	return l
}

func (l *layout) names() []string {
	names := make([]string, len(l.features))
	for i, f := range l.features {
		names[i] = f.name
	}
	return names
}

// batch unpacks a queue element.
func (l *layout) batch(e queue.Element) *Batch {
	b := new(Batch)
	l.fill(b, e)
	return b
}

// fill makes b the batch of e. It keeps b's map of padded features,
// emptied, so that a Batch reused from batch to batch allocates it once.
func (l *layout) fill(b *Batch, e queue.Element) {
	clear(b.dense)
	b.l, b.e, b.n = l, e, 0
	if len(l.features) > 0 {
		f := l.features[0]
		if f.sparse {
			b.n = int(e[2].Int64s()[0])
		} else {
			b.n = e[0].Len()
		}
	}
}

// A Batch is one batch of records, read by feature name. Every feature's
// values have the batch as their leading dimension, in one order: row i of
// every feature comes from the same record.
//
// Names come from the source's declaration (the Example spec, the CSV
// columns, the record fields). Asking for a name the source did not
// declare, or for values of another type than the feature's, panics with a
// message that names the feature, as a failed type assertion does: the
// names and types are fixed by the program, so such a call is a bug to be
// fixed, never a value to be used.
//
// A batch is valid until the next iteration of the loop that received it,
// unless the loop was started with KeepBatches; Clone makes a copy that is
// valid for good.
type Batch struct {
	l     *layout
	e     queue.Element
	n     int
	dense map[string]tensor.Tensor // padded sparse features, made on demand
}

// Clone returns a deep copy of b, which later batches do not overwrite.
func (b *Batch) Clone() *Batch {
	e := make(queue.Element, len(b.e))
	for i, t := range b.e {
		e[i] = t.Clone()
	}
	return &Batch{l: b.l, e: e, n: b.n}
}

// Len returns the number of records in the batch.
func (b *Batch) Len() int { return b.n }

// Names returns the names of the batch's features, sorted.
func (b *Batch) Names() []string { return b.l.names() }

func (b *Batch) feature(name string) (feature, int) {
	for i, f := range b.l.features {
		if f.name == name {
			return f, b.l.first[i]
		}
	}
	panic(fmt.Sprintf("sluice: batch has no feature %q (its features are %q)", name, b.l.names()))
}

// Dense returns the named feature as a dense tensor of shape [Len()] +
// the feature's shape. A sparse feature (VarLen or SparseFeature) is
// padded: each record's values are followed by zeros (empty strings) up to
// the longest record's, so a VarLen feature becomes [Len(), longest] (a
// VarLen feature list [Len(), most steps, longest step]); see Lengths for
// each record's own count. A batch whose padded form the process could not
// hold (queue.CheckPaddedSize) is not delivered: the data set's iteration
// fails with an error wrapping queue.ErrResourceExhausted that names the
// feature and the record with the most values. A SparseFeature's dense
// shape is its spec's size, which may be far larger than any batch of its
// values (a hashed feature space): its batches are delivered, and Dense of
// one the process cannot hold panics (CheckDense tells first); read it
// with Sparse.
//
// A SparseFeature's indices are checked against its size, and for
// repeats within a record, when its batch is parsed, where TensorFlow's
// parse_example passes them through and only tf.sparse.to_dense fails, so
// Dense never meets one outside the tensor, nor two values for one place.
func (b *Batch) Dense(name string) tensor.Tensor {
	f, c := b.feature(name)
	if !f.sparse {
		return b.e[c]
	}
	if t, ok := b.dense[name]; ok {
		return t
	}
	t := toDense(name, b.sparse(c))
	if b.dense == nil {
		b.dense = map[string]tensor.Tensor{}
	}
	b.dense[name] = t
	return t
}

// CheckDense returns nil if Dense can make the named feature, and
// otherwise an error wrapping tensor.ErrResourceExhausted: a SparseFeature
// whose dense form, its spec's size, the process cannot hold. Code that
// reads every feature dense, whatever the data set's spec, asks it first.
func (b *Batch) CheckDense(name string) error {
	f, c := b.feature(name)
	if !f.sparse {
		return nil
	}
	s := b.sparse(c)
	if err := tensor.CheckMemory(s.Values.DType(), s.DenseShape); err != nil {
		return fmt.Errorf("feature %q: its dense form: %w (read it with Sparse)", name, err)
	}
	return nil
}

// Sparse returns a VarLen or SparseFeature as a sparse tensor: its indices
// begin with the record's row in the batch. It panics for a dense feature.
func (b *Batch) Sparse(name string) tensor.Sparse {
	f, c := b.feature(name)
	if !f.sparse {
		panic(fmt.Sprintf("sluice: feature %q is dense, not sparse (read it with Dense)", name))
	}
	return b.sparse(c)
}

func (b *Batch) sparse(c int) tensor.Sparse {
	ds := b.e[c+2].Int64s()
	shape := make(tensor.Shape, len(ds))
	for i, d := range ds {
		shape[i] = int(d)
	}
	return tensor.Sparse{Indices: b.e[c], Values: b.e[c+1], DenseShape: shape}
}

// Lengths returns the number of values of each record for a VarLen
// feature: the part of each row of Dense that is not padding. For a
// feature list of SequenceExamples, or a FixedLenSequence feature of
// Examples, it returns each record's number of steps instead
// (TensorFlow's feature_list lengths): the part of the second dimension
// of Dense that is not padding. It panics for any other dense feature.
func (b *Batch) Lengths(name string) []int {
	if f, c := b.feature(name); f.steps {
		if f.sparse {
			c += 2
		}
		steps := b.e[c+1].Int64s()
		n := make([]int, len(steps))
		for i, s := range steps {
			n[i] = int(s)
		}
		return n
	}
	s := b.Sparse(name)
	n := make([]int, b.n)
	idx := s.Indices.Int64s()
	rank := len(s.DenseShape)
	for i := 0; i+rank <= len(idx); i += rank {
		if v := int(idx[i+rank-1]) + 1; rank == 2 && v > n[idx[i]] {
			n[idx[i]] = v
		} else if rank != 2 {
			n[idx[i]]++
		}
	}
	return n
}

// typed returns the dense values of name after checking their type.
func (b *Batch) typed(name string, want tensor.DType) tensor.Tensor {
	f, _ := b.feature(name)
	if f.dtype != want {
		panic(fmt.Sprintf("sluice: feature %q is %v, not %v", name, f.dtype, want))
	}
	return b.Dense(name)
}

// Float32 returns the values of a float32 feature, row after row.
func (b *Batch) Float32(name string) []float32 { return b.typed(name, tensor.Float32).Float32s() }

// Float64 returns the values of a float64 feature, row after row.
func (b *Batch) Float64(name string) []float64 { return b.typed(name, tensor.Float64).Float64s() }

// Int64 returns the values of an int64 feature, row after row.
func (b *Batch) Int64(name string) []int64 { return b.typed(name, tensor.Int64).Int64s() }

// Int32 returns the values of an int32 feature, row after row.
func (b *Batch) Int32(name string) []int32 { return b.typed(name, tensor.Int32).Int32s() }

// Uint8 returns the values of a uint8 feature, row after row.
func (b *Batch) Uint8(name string) []uint8 { return b.typed(name, tensor.Uint8).Uint8s() }

// Bytes returns the values of a string (bytes) feature, row after row.
func (b *Batch) Bytes(name string) [][]byte { return b.typed(name, tensor.String).Strings() }

// toDense scatters a sparse tensor, the batch of feature name, into a
// dense one of its dense shape, zero where it has no value. Its indices
// are within the shape (checkSparseBounds); one that is not would put its
// value in another record's row, so toDense panics rather than do that.
func toDense(name string, s tensor.Sparse) tensor.Tensor {
	if err := checkSparseBounds(name, s, nil); err != nil {
		panic(err.Error())
	}
	if err := tensor.CheckMemory(s.Values.DType(), s.DenseShape); err != nil {
		// A SparseFeature of a space that large is read with Sparse
		// (CheckDense); the padded batches of other sparse features
		// that would not fit were refused when they were parsed.
		panic(fmt.Sprintf("sluice: feature %q: its dense form: %v (read it with Sparse)", name, err))
	}
	rank := len(s.DenseShape)
	idx := s.Indices.Int64s()
	t := tensor.Zeros(s.Values.DType(), s.DenseShape)
	strides := make([]int, rank)
	st := 1
	for d := rank - 1; d >= 0; d-- {
		strides[d] = st
		st *= s.DenseShape[d]
	}
	pos := make([]int, s.NNZ())
	for i := range pos {
		for d := range rank {
			pos[i] += int(idx[i*rank+d]) * strides[d]
		}
	}
	scatter(t, s.Values, pos)
	return t
}

// checkSparseBounds returns a *dataerr.Error naming the first record of
// the batch s whose SparseFeature index lies outside the dense shape, or
// repeats one of the record's, with tf.sparse.to_dense's text
// ("indices[0] = [0,7] is out of bounds: need 0 <= index < [2,5]",
// "indices[1] = [0,1] is repeated"): Dense would put the value in another
// record's row, or keep one of the two values without a word. keys, if not
// nil, are the batch's record keys.
func checkSparseBounds(name string, s tensor.Sparse, keys []string) error {
	rank := len(s.DenseShape)
	idx := s.Indices.Int64s()
	nnz := s.NNZ()
	fail := func(i int, what string) error {
		at := idx[i*rank : (i+1)*rank]
		key := ""
		if keys != nil && at[0] >= 0 && at[0] < int64(len(keys)) {
			key = keys[at[0]]
		}
		return &dataerr.Error{Offset: -1, Record: at[0], Key: key, Err: fmt.Errorf(
			"feature %q: record %d: indices[%d] = %s %s: %w", name, at[0], i, formatIndex(at), what, ErrSparseIndex)}
	}
	// A record's entries are checked against each other as they come
	// when in order (as the parser sorts them), and all at once, sorted,
	// when not (an already_sorted SparseFeature that was not): before
	// the next record's, so that the first bad record is the one named.
	var scratch []uint64
	start, sorted := 0, true // the record's first entry; its entries so far in order
	for i := 0; i <= nnz; i++ {
		if i > start && (i == nnz || idx[i*rank] != idx[start*rank]) {
			if !sorted {
				if r := repeatedIndex(idx, s.DenseShape, start, i, &scratch); r >= 0 {
					return fail(r, "is repeated")
				}
			}
			start, sorted = i, true
		}
		if i == nnz {
			break
		}
		at := idx[i*rank : (i+1)*rank]
		for d, x := range at {
			if uint64(x) >= uint64(s.DenseShape[d]) { // negative too
				return fail(i, fmt.Sprintf("is out of bounds: need 0 <= index < %v", s.DenseShape))
			}
		}
		if i > start && sorted {
			// One record's: their first components are equal.
			switch compareIndex(idx[(i-1)*rank+1:i*rank], at[1:]) {
			case 0:
				return fail(i, "is repeated")
			case 1:
				sorted = false
			}
		}
	}
	return nil
}

// compareIndex compares two sparse indices of one rank in row-major order.
func compareIndex(a, b []int64) int {
	for d, x := range a {
		if x != b[d] {
			if x < b[d] {
				return -1
			}
			return 1
		}
	}
	return 0
}

// repeatedIndex returns the first of entries from to to of idx, indices of
// rank within shape, all of one record, that repeats an earlier one, or
// -1. keys is scratch space.
func repeatedIndex(idx []int64, shape tensor.Shape, from, to int, keys *[]uint64) int {
	rank := len(shape)
	// Each entry as one number to sort: its place in the record's row,
	// and below it its number in the record, so that equal places sort
	// in entry order. When the row is too large for that, a sort of the
	// indices themselves.
	n := uint64(to - from)
	low := uint(bits.Len64(n))
	size := uint64(1)
	for _, d := range shape[1:] {
		hi, lo := bits.Mul64(size, uint64(d))
		if hi != 0 || lo > math.MaxUint64>>low {
			return repeatedIndexSorted(idx, rank, from, to)
		}
		size = lo
	}
	k := (*keys)[:0]
	for i := from; i < to; i++ {
		var place uint64
		for d := 1; d < rank; d++ {
			place = place*uint64(shape[d]) + uint64(idx[i*rank+d])
		}
		k = append(k, place<<low|uint64(i-from))
	}
	*keys = k
	slices.Sort(k)
	first := -1
	for j := 1; j < len(k); j++ {
		if k[j-1]>>low == k[j]>>low {
			if e := from + int(k[j]&(1<<low-1)); first < 0 || e < first {
				first = e
			}
		}
	}
	return first
}

// repeatedIndexSorted is repeatedIndex by a sort of the indices.
func repeatedIndexSorted(idx []int64, rank, from, to int) int {
	r := make([]int, 0, to-from)
	for i := from; i < to; i++ {
		r = append(r, i)
	}
	row := func(i int) []int64 { return idx[i*rank : (i+1)*rank] }
	// Stable: equal indices stay in entry order, the first one first.
	slices.SortStableFunc(r, func(a, b int) int { return compareIndex(row(a), row(b)) })
	first := -1
	for j := 1; j < len(r); j++ {
		if compareIndex(row(r[j-1]), row(r[j])) == 0 && (first < 0 || r[j] < first) {
			first = r[j]
		}
	}
	return first
}

// checkDenseSize returns a *dataerr.Error naming feature name and the
// record of the batch s with the most values when the padded form of s
// (Dense) is more than the process can hold (queue.CheckPaddedSize):
// [records, longest] for a VarLen feature, [records, most steps, longest
// step] for a VarLen feature list, whose maxima can come from different
// records, so that a record of 800 KB asked for 40 GB, which the Go
// runtime cannot refuse but by ending the process (audit 42). keys, if
// not nil, are the batch's record keys.
func checkDenseSize(name string, s tensor.Sparse, keys []string) error {
	err := queue.CheckPaddedSize(s.Values.DType(), s.DenseShape)
	if err == nil {
		return nil
	}
	rank := len(s.DenseShape)
	idx := s.Indices.Int64s()
	counts := map[int64]int{}
	var most int64
	for i := 0; i+rank <= len(idx); i += rank {
		r := idx[i]
		if counts[r]++; counts[r] > counts[most] || counts[r] == counts[most] && r < most {
			most = r
		}
	}
	key := ""
	if keys != nil && most < int64(len(keys)) {
		key = keys[most]
	}
	return &dataerr.Error{Offset: -1, Record: most, Key: key, Err: fmt.Errorf(
		"feature %q: padding its batch to %v, as Batch.Dense would (record %d has %d values): %w",
		name, s.DenseShape, most, counts[most], err)}
}

// formatIndex formats an index as TensorFlow's messages do: [0,7].
func formatIndex(at []int64) string {
	b := []byte{'['}
	for i, x := range at {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, x, 10)
	}
	return string(append(b, ']'))
}

func scatter(dst, src tensor.Tensor, pos []int) {
	switch dst.DType() {
	case tensor.Float32:
		scatterT(dst.Float32s(), src.Float32s(), pos)
	case tensor.Float64:
		scatterT(dst.Float64s(), src.Float64s(), pos)
	case tensor.Int64:
		scatterT(dst.Int64s(), src.Int64s(), pos)
	case tensor.Int32:
		scatterT(dst.Int32s(), src.Int32s(), pos)
	case tensor.Uint8:
		scatterT(dst.Uint8s(), src.Uint8s(), pos)
	case tensor.String:
		scatterT(dst.Strings(), src.Strings(), pos)
	default:
		panic(fmt.Sprintf("sluice: cannot pad a sparse feature of type %v", dst.DType()))
	}
}

func scatterT[T any](dst, src []T, pos []int) {
	for i, p := range pos {
		dst[p] = src[i]
	}
}
