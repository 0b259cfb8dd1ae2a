package sequence

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tensor"
)

// A Batch is one batch of segments returned by Next, TensorFlow's
// NextQueuedSequenceBatch. Entry i of every accessor belongs to the same
// segment. The slices and tensors it returns belong to the batch: do not
// modify them.
//
// Every state must be saved with SaveState once per batch: the examples'
// next segments become ready only when all their states are saved.
type Batch struct {
	s *StateSaver

	keys, nextKeys []string
	sequence       []int32
	count          []int32
	length         []int32
	total          []int32
	indices        []int64
	done           []bool // the segment is its example's last

	seqs, ctx             map[string]tensor.Tensor
	sparseSeqs, sparseCtx map[string]tensor.Sparse
	states                []tensor.Tensor // by s.stateNames

	// What NextInto reuses besides the above: the barrier's batch (keys,
	// indices, handles, states), the memory of the int32 accessors and of
	// the flags, each in one slice, the dense sequences (seqT, by
	// layout.seqNames) with a view of each as steps, and the keys and
	// rows SaveState inserts.
	taken    queue.BarrierBatch
	ints     []int32
	flags    []bool
	seqT     []tensor.Tensor
	seqSteps []tensor.Tensor
	saveKeys []string
	saveRows []int
	refs     []segRef // empty: the segments are the examples' only while a batch is made

	mu      sync.Mutex
	saved   []bool // by s.stateNames
	counted bool   // among the batches a checkpoint waits for
}

// A segRef is a segment taken: its example and its index there.
type segRef struct {
	e   *example
	seg int
}

// resize returns s with length n, reusing its memory when it has room.
func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// assemble builds the batch of the segments in bb, refs, in dst's memory
// when dst is a batch of s (see NextInto).
func (s *StateSaver) assemble(bb queue.BarrierBatch, refs []segRef, l *layout, dst *Batch) (*Batch, error) {
	n := bb.Len()
	u := s.numUnroll
	b := dst
	if b == nil {
		b = &Batch{s: s}
	}
	b.taken = bb
	b.keys, b.indices, b.states = bb.Keys, bb.Indices, bb.Values[1:]
	b.counted = false
	b.nextKeys = resize(b.nextKeys, n)
	b.ints = resize(b.ints, 4*n)
	b.sequence, b.count = b.ints[:n:n], b.ints[n:2*n:2*n]
	b.length, b.total = b.ints[2*n:3*n:3*n], b.ints[3*n:]
	b.flags = resize(b.flags, n+len(s.stateNames))
	b.done, b.saved = b.flags[:n:n], b.flags[n:]
	clear(b.saved)
	for i, r := range refs {
		e, seg := r.e, r.seg
		b.nextKeys[i] = e.nextKey(seg)
		b.sequence[i] = int32(seg)
		b.count[i] = int32(e.count)
		b.length[i] = int32(segmentLength(e.length, u, seg))
		b.total[i] = int32(e.length)
		b.done[i] = seg+1 >= e.count
	}
	if l == nil {
		return b, nil // n == 0 before any example
	}
	if b.seqs == nil {
		b.seqs = make(map[string]tensor.Tensor, len(l.seqNames))
	}
	b.seqT = resize(b.seqT, len(l.seqNames))
	b.seqSteps = resize(b.seqSteps, len(l.seqNames))
	for j, k := range l.seqNames {
		if n == 0 {
			b.seqs[k] = tensor.Zeros(l.seqTypes[j], l.seqShapes[j].Prepend(u).Prepend(0))
			continue
		}
		if err := b.stackSegments(refs, j, u, l.seqTypes[j], l.seqShapes[j]); err != nil {
			return nil, fmt.Errorf("sequence: batching sequence %s: %w", k, err)
		}
		b.seqs[k] = b.seqT[j]
	}
	if b.ctx == nil && len(l.ctxNames) > 0 {
		b.ctx = make(map[string]tensor.Tensor, len(l.ctxNames))
	}
	for j, k := range l.ctxNames {
		t := b.ctx[k]
		if n == 0 || !fits(t, l.ctxTypes[j], n, l.ctxShapes[j]) {
			t = tensor.Zeros(l.ctxTypes[j], l.ctxShapes[j].Prepend(n))
		}
		// tensor.Stack's rows and errors, into the batch's tensor.
		for i, r := range refs {
			if err := t.SetRow(i, r.e.ctx[j]); err != nil {
				return nil, fmt.Errorf("sequence: batching context %s: tensor: stack element %d: %w", k, i, err)
			}
		}
		b.ctx[k] = t
	}
	if len(l.sparseSeqNames)+len(l.sparseCtxNames) == 0 {
		return b, nil
	}
	parts := make([]tensor.Sparse, n)
	if b.sparseSeqs == nil && len(l.sparseSeqNames) > 0 {
		b.sparseSeqs = make(map[string]tensor.Sparse, len(l.sparseSeqNames))
	}
	for j, k := range l.sparseSeqNames {
		if n == 0 {
			dense := make(tensor.Shape, l.sparseSeqRanks[j])
			dense[0] = u
			b.sparseSeqs[k] = emptySparse(l.sparseSeqTypes[j], dense)
			continue
		}
		for i, r := range refs {
			parts[i] = r.e.sparseSeqs[j][r.seg]
		}
		sp, err := tensor.StackSparse(parts)
		if err != nil {
			return nil, fmt.Errorf("sequence: batching sparse sequence %s: %w", k, err)
		}
		b.sparseSeqs[k] = sp
	}
	if b.sparseCtx == nil && len(l.sparseCtxNames) > 0 {
		b.sparseCtx = make(map[string]tensor.Sparse, len(l.sparseCtxNames))
	}
	for j, k := range l.sparseCtxNames {
		if n == 0 {
			b.sparseCtx[k] = emptySparse(l.sparseCtxTypes[j], make(tensor.Shape, l.sparseCtxRanks[j]))
			continue
		}
		for i, r := range refs {
			parts[i] = r.e.sparseCtx[j]
		}
		sp, err := tensor.StackSparse(parts)
		if err != nil {
			return nil, fmt.Errorf("sequence: batching sparse context %s: %w", k, err)
		}
		b.sparseCtx[k] = sp
	}
	return b, nil
}

// fits reports whether t is a batch of n rows of type d and shape s.
func fits(t tensor.Tensor, d tensor.DType, n int, s tensor.Shape) bool {
	ts := t.Shape()
	return t.IsValid() && t.DType() == d && len(ts) == len(s)+1 && ts[0] == n && ts[1:].Equal(s)
}

// stackSegments stacks sequence j of the segments refs into b.seqT[j], of
// shape [len(refs), u] + shape, reusing the batch's tensor when it has
// that shape, each segment's steps copied straight from its example's
// sequence.
func (b *Batch) stackSegments(refs []segRef, j, u int, dtype tensor.DType, shape tensor.Shape) error {
	n := len(refs)
	t, steps := b.seqT[j], b.seqSteps[j]
	if ts := t.Shape(); !t.IsValid() || t.DType() != dtype || len(ts) != len(shape)+2 || ts[0] != n || ts[1] != u || !ts[2:].Equal(shape) {
		t = tensor.Zeros(dtype, append(tensor.Shape{n, u}, shape...))
		// The same values seen as n*u steps, so that a segment is u rows.
		var err error
		if steps, err = t.Reshape(append(tensor.Shape{n * u}, shape...)); err != nil {
			return err
		}
		b.seqT[j], b.seqSteps[j] = t, steps
	}
	for i, r := range refs {
		if err := steps.CopyRows(i*u, r.e.seqs[j], r.seg*u, u); err != nil {
			return err
		}
	}
	return nil
}

// BatchSize returns the number of segments in the batch.
func (b *Batch) BatchSize() int { return len(b.keys) }

// Key returns each segment's key, "%05d_of_%05d:%s" % (sequence,
// sequence_count, input key) (SQ-07).
func (b *Batch) Key() []string { return b.keys }

// NextKey returns the key of each segment's successor, or "STOP:<input
// key>" for an example's last segment.
func (b *Batch) NextKey() []string { return b.nextKeys }

// Sequence returns each segment's index in its example, from 0.
func (b *Batch) Sequence() []int32 { return b.sequence }

// SequenceCount returns the number of segments of each segment's example,
// padded length / num_unroll.
func (b *Batch) SequenceCount() []int32 { return b.count }

// Length returns the number of steps of each segment before padding:
// min(num_unroll, max(0, length - sequence*num_unroll)).
func (b *Batch) Length() []int32 { return b.length }

// TotalLength returns the length of each segment's example before padding.
func (b *Batch) TotalLength() []int32 { return b.total }

// InsertionIndex returns the insertion index of each segment's example:
// -2^63 plus the number of examples prefetched before it. All segments of
// an example share it, and lower indices are served first.
func (b *Batch) InsertionIndex() []int64 { return b.indices }

// Sequences returns the batched segments of the named dense sequence, of
// shape [batch, num_unroll] + the sequence's shape after time, or the zero
// Tensor if there is no such sequence.
func (b *Batch) Sequences(name string) tensor.Tensor { return b.seqs[name] }

// SparseSequences returns the batched segments of the named sparse
// sequence: indices [nnz, 2+rank-1] with the batch position prepended and
// time local to the segment, dense shape [batch, num_unroll] + the rest of
// the sequence's (BSWS-07). It returns the zero Sparse if there is no such
// sequence.
func (b *Batch) SparseSequences(name string) tensor.Sparse { return b.sparseSeqs[name] }

// Context returns the named context value of each segment's example,
// stacked: shape [batch] + the value's shape, or the zero Tensor if there
// is no such context.
func (b *Batch) Context(name string) tensor.Tensor { return b.ctx[name] }

// SparseContext returns the named sparse context of each segment's
// example, with the batch position prepended to its indices. It returns
// the zero Sparse if there is no such context.
func (b *Batch) SparseContext(name string) tensor.Sparse { return b.sparseCtx[name] }

// State returns the named state of each segment, shape [batch] + the
// initial state's shape: the initial state for a first segment, else what
// SaveState stored for the previous segment. It returns the zero Tensor
// for a name that was not declared.
func (b *Batch) State(name string) tensor.Tensor {
	i, ok := b.s.stateIndex[name]
	if !ok {
		return tensor.Tensor{}
	}
	return b.states[i]
}

// SaveState stores value, shape [batch] + the state's shape, as the named
// state of each segment's successor, TensorFlow's save_state. Entries of
// examples' last segments are dropped. value is copied.
//
// SaveState fails with ErrUnknownState for an undeclared name ("state was
// not declared: state2"), with [queue.ErrInvalidArgument] for a value of the wrong
// type or shape or a state saved twice for one batch, and with an error wrapping
// queue.ErrClosed once the state saver was closed with CloseNow. It does not
// block; ctx is checked first.
func (b *Batch) SaveState(ctx context.Context, name string, value tensor.Tensor) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("sequence: save_state %s: %w", name, err)
	}
	i, ok := b.s.stateIndex[name]
	if !ok {
		return fmt.Errorf("sequence: state was not declared: %s: %w", name, ErrUnknownState)
	}
	want := b.states[i].Shape()
	if value.DType() != b.states[i].DType() {
		return invalidf("sequence: save_state %s: Type of tensor convert_%s should be: %s, type received: %s",
			name, name, b.states[i].DType().TFName(), value.DType().TFName())
	}
	if value.Rank() != len(want) {
		return invalidf("sequence: save_state %s: Rank of tensor convert_%s should be: %d, shape received: %s",
			name, name, len(want), value.Shape())
	}
	if !value.Shape().Equal(want) {
		return invalidf("sequence: save_state %s: Shape of tensor convert_%s should be: %s, shape received: %s",
			name, name, want, value.Shape())
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.saved[i] {
		// TensorFlow's barrier would start a new, never completed
		// element under the next key; refuse instead.
		return invalidf("sequence: save_state %s: %s was already saved for this batch", name, name)
	}
	// The barrier keeps the keys, not the slice: the batch's serves each
	// state in turn.
	keys, rows := resize(b.saveKeys, len(b.done))[:0], resize(b.saveRows, len(b.done))[:0]
	defer func() { clear(keys); b.saveKeys, b.saveRows = keys[:0], rows[:0] }()
	for j, d := range b.done {
		if !d {
			keys, rows = append(keys, b.nextKeys[j]), append(rows, j)
		}
	}
	if len(keys) > 0 {
		if err := b.s.saveState(i, keys, rows, value); err != nil {
			return fmt.Errorf("sequence: save_state %s for %v: %w", name, keys, err)
		}
	}
	b.saved[i] = true
	if b.counted && !slices.Contains(b.saved, false) {
		b.s.carried.mu.Lock()
		b.s.carried.unsaved--
		b.s.carried.mu.Unlock()
	}
	return nil
}

// allSaved reports whether every state of the batch was saved.
func (b *Batch) allSaved() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return !slices.Contains(b.saved, false)
}

// saveState inserts rows of value as state i of the segments keys.
// Without a checkpoint, the barrier copies them into memory it reuses;
// a checkpoint's carried states keep the rows, so there they are copied
// into a tensor of their own, which the barrier keeps.
func (s *StateSaver) saveState(i int, keys []string, rows []int, value tensor.Tensor) error {
	if s.carried == nil {
		return s.barrier.InsertRows(1+i, keys, value, rows)
	}
	shape := value.Shape().Clone()
	shape[0] = len(keys)
	kept := tensor.Zeros(value.DType(), shape)
	for r, j := range rows {
		if err := kept.CopyRows(r, value, j, 1); err != nil {
			return err
		}
	}
	if value.DType() == tensor.String {
		kept = kept.Clone() // CopyRows shares string elements
	}
	if err := s.barrier.InsertMany(1+i, keys, kept); err != nil {
		return err
	}
	s.carried.save(s.stateNames[i], keys, kept)
	return nil
}
