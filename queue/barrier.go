package queue

import (
	"bytes"
	"container/heap"
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"sync"

	"github.com/sluiceml/sluice/tensor"
)

// A Barrier gathers the components of keyed elements that arrive
// separately; it is TensorFlow's Barrier. InsertMany sets one component
// for a set of keys, an element is ready once all its components are set,
// and TakeMany and TakeUpTo remove ready elements, oldest first. A Barrier has no
// capacity limit: bound its input with a queue. The sequence state saver
// is built on it.
//
// Every element has an insertion index: -2^63 plus the number of earlier
// InsertMany calls that created at least one new key, so all keys created
// by one call share an index. TakeMany returns elements in increasing
// index order (among equal indices, in the order they became ready), which
// serves an example's later segments before newer examples.
//
// A Barrier keeps the rows of the values given to InsertMany without
// copying them, as queues keep their elements: do not modify a tensor
// after inserting it. InsertRows copies them instead, into memory the
// barrier reuses once they are taken, and TakeManyInto takes a batch into
// the memory of one handed back: a caller doing both makes the barrier
// allocate nothing per element or batch once it has held as many as it
// holds (the state saver does).
type Barrier struct {
	name   string
	dtypes []tensor.DType
	shapes []tensor.Shape

	mu         sync.Mutex
	incomplete map[string]*barrierEntry
	ready      barrierHeap
	calls      int64  // InsertMany calls that created a key
	seq        uint64 // readiness order, to break index ties
	closed     bool
	cancelled  bool
	takers     []*barrierTake // blocked takes, oldest first
	// group, if set, names the group of a key whose keys are ready one
	// at a time (see SetGroups).
	group func(key string) string

	// Scratch space reused under mu, so that steady-state inserts and
	// takes allocate only what they hand to the caller.
	log  []barrierChange
	rows []barrierValue
	out  []*barrierEntry
	free []*barrierEntry
}

type barrierEntry struct {
	key    string
	index  int64
	seq    uint64
	values []barrierValue // per component
	set    int
	// own holds, per component, the row InsertRows copied in: memory of
	// the entry's, reused by the elements that later reuse the entry.
	own []tensor.Tensor
}

// A barrierValue is one component of an element: row row of the tensor
// given to InsertMany. Keeping the tensor and the row, rather than a Row
// view, lets InsertMany store values without allocating.
type barrierValue struct {
	src tensor.Tensor // the zero Tensor until set
	row int
}

// barrierChange records what InsertMany did to one key, so that a failing
// call can be undone.
type barrierChange struct {
	e         *barrierEntry
	created   bool
	completed bool
}

// barrierHeap orders ready elements by insertion index, then readiness.
type barrierHeap []*barrierEntry

func (h barrierHeap) Len() int { return len(h) }
func (h barrierHeap) Less(i, j int) bool {
	if h[i].index != h[j].index {
		return h[i].index < h[j].index
	}
	return h[i].seq < h[j].seq
}
func (h barrierHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *barrierHeap) Push(x any)   { *h = append(*h, x.(*barrierEntry)) }
func (h *barrierHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return x
}

// barrierTake is a take that TakeMany or TakeUpTo could not serve at once.
type barrierTake struct {
	n    int
	upTo bool
	into bool // take into dst's memory
	dst  BarrierBatch
	done chan struct{}
	res  BarrierBatch
	err  error
}

// A BarrierBatch is what TakeMany returns: for each element its insertion
// index and key, and for each component the elements' values stacked
// along a new first dimension.
type BarrierBatch struct {
	Indices []int64
	Keys    []string
	Values  []tensor.Tensor
}

// Len returns the number of elements in the batch.
func (bb BarrierBatch) Len() int { return len(bb.Keys) }

// NewBarrier returns an open barrier of elements with the given component
// types. shapes, if not nil, declares each component's shape (unknown
// dimensions allowed); a declared shape may not have zero elements
// (BAR-01).
func NewBarrier(name string, dtypes []tensor.DType, shapes []tensor.Shape) (*Barrier, error) {
	if len(dtypes) == 0 {
		return nil, barrierInvalidf("a Barrier needs at least one component")
	}
	for i, d := range dtypes {
		if !d.Valid() {
			// As the queues refuse it; an insert found it out before.
			return nil, barrierInvalidf("component %d has invalid dtype %v", i, d)
		}
	}
	if shapes != nil {
		if len(shapes) != len(dtypes) {
			return nil, barrierInvalidf("All of the component shapes must be specified: %d shapes for %d components", len(shapes), len(dtypes))
		}
		for i, s := range shapes {
			if s.NumElements() == 0 {
				return nil, barrierInvalidf("Empty tensors are not supported, but received shape '%v' at index %d", s, i)
			}
		}
		shapes = slices.Clone(shapes)
	}
	if name == "" {
		name = "barrier"
	}
	return &Barrier{
		name:       name,
		dtypes:     slices.Clone(dtypes),
		shapes:     shapes,
		incomplete: make(map[string]*barrierEntry),
	}, nil
}

// Name returns the barrier's name, as its error messages print it.
func (b *Barrier) Name() string { return b.name }

// DTypes returns the component types.
func (b *Barrier) DTypes() []tensor.DType { return slices.Clone(b.dtypes) }

// Shapes returns the declared component shapes, or nil.
func (b *Barrier) Shapes() []tensor.Shape { return slices.Clone(b.shapes) }

// ReadySize returns the number of complete elements not yet taken.
func (b *Barrier) ReadySize() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.ready)
}

// IncompleteSize returns the number of keys with components missing.
func (b *Barrier) IncompleteSize() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.incomplete)
}

// IsClosed reports whether Close or CloseNow has been called.
func (b *Barrier) IsClosed() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.closed
}

// InsertMany sets component c of each key to the matching row of values,
// whose first dimension indexes keys. A key that is not incomplete starts
// a new element. An element whose last component is set becomes ready.
//
// After Close only incomplete keys may be completed; after CloseNow
// nothing may be inserted; both fail with an error
// wrapping ErrClosed. Setting a component twice fails with
// ErrInvalidArgument. InsertMany never blocks, and unlike TensorFlow's it
// is atomic: when it fails, the barrier is as it was before the call.
func (b *Barrier) InsertMany(c int, keys []string, values tensor.Tensor) error {
	return b.insert(c, keys, values, nil)
}

// InsertRows is InsertMany for chosen rows of values, copied: key i is
// given row rows[i] of values (rows nil: row i, as InsertMany), and the
// barrier copies each row into memory of its own, which it reuses once
// the element is taken. values may be modified as soon as InsertRows
// returns, and a caller that inserts every element this way makes the
// barrier allocate nothing per element once it has held as many as it
// holds at once. Strings are copied too.
func (b *Barrier) InsertRows(c int, keys []string, values tensor.Tensor, rows []int) error {
	if rows == nil {
		return b.insert(c, keys, values, barrierFirstRows(len(keys)))
	}
	return b.insert(c, keys, values, rows)
}

// barrierFirstRows returns 0, 1, ..., n-1, shared for the usual n.
func barrierFirstRows(n int) []int {
	if n <= len(barrierIdentity) {
		return barrierIdentity[:n:n]
	}
	rows := make([]int, n)
	for i := range rows {
		rows[i] = i
	}
	return rows
}

var barrierIdentity = func() []int {
	rows := make([]int, 1024)
	for i := range rows {
		rows[i] = i
	}
	return rows
}()

// insert is InsertMany, with rows copied (InsertRows) when rows is not
// nil.
func (b *Barrier) insert(c int, keys []string, values tensor.Tensor, rows []int) error {
	if c < 0 || c >= len(b.dtypes) {
		return barrierInvalidf("The component ID is out of range %d > num_components (= %d)", c, len(b.dtypes))
	}
	if values.DType() != b.dtypes[c] {
		return barrierInvalidf("Barrier '%s': component %d has type %v, got %v", b.name, c, b.dtypes[c], values.DType())
	}
	if len(keys) > 0 && values.NumElements() == 0 {
		return barrierInvalidf("Tensors with no elements are not supported %s: received shape %v", b.name, values.Shape())
	}
	if rows == nil && (values.Rank() == 0 || values.Len() != len(keys)) {
		return barrierInvalidf("Barrier '%s': %d keys for values of shape %v", b.name, len(keys), values.Shape())
	}
	if rows != nil {
		if len(rows) != len(keys) {
			return barrierInvalidf("Barrier '%s': %d keys for %d rows", b.name, len(keys), len(rows))
		}
		if values.Rank() == 0 {
			return barrierInvalidf("Barrier '%s': %d keys for values of shape %v", b.name, len(keys), values.Shape())
		}
		for _, r := range rows {
			if r < 0 || r >= values.Len() {
				return barrierInvalidf("Barrier '%s': row %d of values of shape %v", b.name, r, values.Shape())
			}
		}
	}
	if b.shapes != nil && !b.shapes[c].IsCompatibleWith(values.Shape()[1:]) {
		return barrierInvalidf("Shape mismatch in tuple component %d. Expected %v, got %v", c, b.shapes[c].Prepend(len(keys)), values.Shape())
	}

	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed && (b.cancelled || len(keys) > 0 && len(b.incomplete) == 0) {
		return fmt.Errorf("Barrier %s is closed.  Pending enqueues cancelled: %d.  Number of new insertions: %d.  Number of incomplete keys: %d.: %w",
			b.name, barrierBit(b.cancelled), len(keys), len(b.incomplete), ErrClosed)
	}
	index := math.MinInt64 + b.calls
	created := false
	b.log = b.log[:0]
	for i, k := range keys {
		ch := barrierChange{e: b.incomplete[k]}
		if ch.e == nil {
			if b.closed {
				err := fmt.Errorf("Barrier %s is closed, but attempted to insert a brand new key: %s.  Pending enqueues cancelled: %d.  Insertion index: %d.  Number of incomplete keys: %d.: %w",
					b.name, k, barrierBit(b.cancelled), i, len(b.incomplete), ErrClosed)
				b.undo(c)
				return err
			}
			ch.e, ch.created, created = b.newEntry(k, index), true, true
			b.incomplete[k] = ch.e
		}
		if ch.e.values[c].src.IsValid() {
			b.undo(c)
			return barrierInvalidf("Key %s already has a value for component %d in barrier %s", k, c, b.name)
		}
		if rows == nil {
			ch.e.values[c] = barrierValue{values, i}
		} else {
			ch.e.values[c] = barrierValue{ch.e.copyRow(c, values, rows[i]), 0}
		}
		ch.e.set++
		if ch.e.set == len(b.dtypes) {
			delete(b.incomplete, k)
			ch.completed = true
		}
		b.log = append(b.log, ch)
	}
	if created {
		b.calls++
	}
	for _, ch := range b.log {
		if ch.completed {
			b.seq++
			ch.e.seq = b.seq
			heap.Push(&b.ready, ch.e)
		}
	}
	clear(b.log)
	b.serve()
	return nil
}

// barrierInvalidf is an ErrInvalidArgument whose text starts with
// TensorFlow's message.
func barrierInvalidf(format string, args ...any) error {
	return fmt.Errorf(format+": %w", append(args, ErrInvalidArgument)...)
}

func barrierBit(v bool) int {
	if v {
		return 1
	}
	return 0
}

// copyRow copies row r of values into e's memory for component c and
// returns that memory, a tensor of one row.
func (e *barrierEntry) copyRow(c int, values tensor.Tensor, r int) tensor.Tensor {
	if e.own == nil {
		e.own = make([]tensor.Tensor, len(e.values))
	}
	own := e.own[c]
	vs := values.Shape()
	if s := own.Shape(); !own.IsValid() || own.DType() != values.DType() || len(s) != len(vs) || !s[1:].Equal(vs[1:]) {
		own = tensor.Zeros(values.DType(), vs[1:].Prepend(1))
		e.own[c] = own
	}
	own.CopyRows(0, values, r, 1) // same type and row shape: cannot fail
	if ss, ok := own.Data().([][]byte); ok {
		// CopyRows shares the strings, and the rows taken share the
		// entry's: each insert gets new ones, so a batch taken keeps
		// its strings when the entry is reused.
		for i, s := range ss {
			ss[i] = bytes.Clone(s)
		}
	}
	return own
}

func (b *Barrier) newEntry(key string, index int64) *barrierEntry {
	var e *barrierEntry
	if n := len(b.free); n > 0 {
		e = b.free[n-1]
		b.free = b.free[:n-1]
	} else {
		e = &barrierEntry{values: make([]barrierValue, len(b.dtypes))}
	}
	e.key, e.index, e.set = key, index, 0
	return e
}

// recycle keeps e for a later newEntry; its values are dropped so the
// barrier does not pin tensors the caller owns.
func (b *Barrier) recycle(e *barrierEntry) {
	clear(e.values)
	e.key = ""
	// No bound: the free list never holds more entries than the barrier
	// held at once, and a bound would make a barrier holding more
	// allocate entries (and their rows' memory) for ever.
	b.free = append(b.free, e)
}

// undo reverts the changes logged by a failing InsertMany of component c,
// newest first, so a key given twice is unwound in the right order.
func (b *Barrier) undo(c int) {
	for i := len(b.log) - 1; i >= 0; i-- {
		ch := b.log[i]
		switch {
		case ch.created:
			if !ch.completed {
				delete(b.incomplete, ch.e.key)
			}
			b.recycle(ch.e)
		default:
			if ch.completed {
				b.incomplete[ch.e.key] = ch.e
			}
			ch.e.values[c] = barrierValue{}
			ch.e.set--
		}
	}
	clear(b.log)
	b.log = b.log[:0]
}

// TakeMany removes n ready elements, lowest insertion index first,
// blocking until that many are ready. Once the barrier is closed, a take
// that can no longer be served fails with an error wrapping io.EOF (end of
// input) in TensorFlow's words:
//
//	Barrier 'name' is closed and has insufficient elements (requested 4, total size 3)
//
// Incomplete keys count toward the total, since after Close (but not
// CloseNow) they may still complete. Blocked takes are served in the order
// they arrived; a take of a closed barrier that cannot serve it fails as it
// arrives, and a take of 0 elements returns an empty batch at once, even
// while others wait, as in TensorFlow. When ctx ends first, TakeMany
// returns an error wrapping ctx.Err() and takes nothing.
func (b *Barrier) TakeMany(ctx context.Context, n int) (BarrierBatch, error) {
	return b.takeMany(ctx, n, false, false, BarrierBatch{})
}

// TakeManyInto is TakeMany writing the batch into dst's memory, so that a
// consumer can reuse one batch's memory for the next: dst's slices when
// they have room, and each of its tensors that has the component's type
// and the batch's shape. It returns the batch; dst must not be used
// afterwards. When it fails, dst is untouched.
func (b *Barrier) TakeManyInto(ctx context.Context, n int, dst BarrierBatch) (BarrierBatch, error) {
	return b.takeMany(ctx, n, false, true, dst)
}

// TakeUpToInto is TakeUpTo writing the batch into dst's memory, as
// TakeManyInto does.
func (b *Barrier) TakeUpToInto(ctx context.Context, n int, dst BarrierBatch) (BarrierBatch, error) {
	return b.takeMany(ctx, n, true, true, dst)
}

// TakeUpTo is TakeMany, except that on a closed barrier it returns the
// 1..n elements that are ready at once instead of waiting for incomplete
// keys or failing (TensorFlow's allow_small_batch).
func (b *Barrier) TakeUpTo(ctx context.Context, n int) (BarrierBatch, error) {
	return b.takeMany(ctx, n, true, false, BarrierBatch{})
}

func (b *Barrier) takeMany(ctx context.Context, n int, upTo, into bool, dst BarrierBatch) (BarrierBatch, error) {
	if n < 0 {
		return BarrierBatch{}, barrierInvalidf("Barrier '%s': requested %d elements", b.name, n)
	}
	b.mu.Lock()
	// Nobody ahead (the common case), or a take decided as it arrives,
	// whatever waits before it, as TensorFlow decides it: one a closed
	// barrier can no longer serve, and one of nothing. (A value here, so
	// that a take served at once allocates nothing.)
	now := barrierTake{n: n, upTo: upTo, into: into, dst: dst}
	if len(b.takers) == 0 || b.decidedOnArrival(&now) {
		if b.decide(&now) {
			b.mu.Unlock()
			return now.res, now.err
		}
	}
	t := &barrierTake{n: n, upTo: upTo, into: into, dst: dst, done: make(chan struct{})}
	b.takers = append(b.takers, t)
	b.mu.Unlock()

	select {
	case <-t.done:
		return t.res, t.err
	case <-ctx.Done():
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	select {
	case <-t.done: // served while we waited for the lock
		return t.res, t.err
	default:
	}
	b.takers = slices.DeleteFunc(b.takers, func(x *barrierTake) bool { return x == t })
	b.serve() // the next in line may be servable now
	return BarrierBatch{}, cancelledError("TakeMany", ctx.Err())
}

// SetGroups tells the barrier that the keys for which group returns the
// same string become ready one at a time: a key of a group completes only
// after the group's ready key is taken (the segments of one sequence in a
// sequence.StateSaver, the next completed by the state the consumer of
// the last saves). After Close, a TakeMany then counts the groups, not
// the keys, that may yet be ready, and fails with end of input as soon as
// they are fewer than it asks for, rather than waiting for keys that
// could complete only after the take returned. Call it before the
// barrier is used.
func (b *Barrier) SetGroups(group func(key string) string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.group = group
}

// mayBeReady returns how many elements could be ready at once, for a
// full take after Close. b.mu is held.
func (b *Barrier) mayBeReady() int {
	if b.group == nil {
		return len(b.ready) + len(b.incomplete)
	}
	groups := make(map[string]struct{}, len(b.ready)+len(b.incomplete))
	for _, e := range b.ready {
		groups[b.group(e.key)] = struct{}{}
	}
	for k := range b.incomplete {
		groups[b.group(k)] = struct{}{}
	}
	return len(groups)
}

// deliverable returns how many elements t takes, or, on a closed barrier
// that can no longer serve it, the error it fails with. b.mu is held.
func (b *Barrier) deliverable(t *barrierTake) (int, error) {
	deliver := t.n
	if !b.closed {
		return deliver, nil
	}
	// TensorFlow's TryTakeMany: a small batch counts only ready
	// elements; a full one may wait for incomplete keys to complete.
	avail := len(b.ready)
	if t.upTo {
		deliver = min(t.n, avail)
	} else {
		avail = b.mayBeReady()
	}
	if avail < max(deliver, 1) {
		return 0, fmt.Errorf("Barrier '%s' is closed and has insufficient elements (requested %d, total size %d): %w",
			b.name, deliver, avail, io.EOF)
	}
	return deliver, nil
}

// decidedOnArrival reports whether t is decided without waiting for the
// takes before it: TensorFlow checks a closed barrier as a take arrives,
// and its ready queue serves a take of nothing at once. b.mu is held.
func (b *Barrier) decidedOnArrival(t *barrierTake) bool {
	deliver, err := b.deliverable(t)
	return err != nil || deliver == 0
}

// decide completes t if it can be decided now and reports whether it was.
// b.mu is held.
func (b *Barrier) decide(t *barrierTake) bool {
	deliver, err := b.deliverable(t)
	if err != nil {
		t.err = err
		return true
	}
	if len(b.ready) < deliver {
		return false
	}
	if t.into {
		t.res, t.err = b.take(deliver, &t.dst)
	} else {
		t.res, t.err = b.take(deliver, nil)
	}
	t.dst = BarrierBatch{}
	return true
}

// serve completes the blocked takes at the head of the line that can be
// decided now. b.mu is held.
func (b *Barrier) serve() {
	for len(b.takers) > 0 && b.decide(b.takers[0]) {
		close(b.takers[0].done)
		b.takers[0] = nil
		b.takers = b.takers[1:]
	}
	if len(b.takers) == 0 {
		b.takers = nil // let the backing array go
	}
}

// take pops n ready elements and stacks them per component, into dst's
// memory if dst is not nil (see TakeManyInto). If the elements' shapes
// cannot be stacked (possible only without declared shapes), they are
// put back and the take fails, before anything is written. b.mu is held.
func (b *Barrier) take(n int, dst *BarrierBatch) (BarrierBatch, error) {
	if n == 0 {
		res := BarrierBatch{Indices: []int64{}, Keys: []string{}, Values: make([]tensor.Tensor, len(b.dtypes))}
		for c, d := range b.dtypes {
			var shape tensor.Shape
			if b.shapes != nil {
				shape = b.shapes[c].Clone()
				for i := range shape {
					shape[i] = max(shape[i], 0)
				}
			}
			res.Values[c] = tensor.Zeros(d, shape.Prepend(0))
		}
		return res, nil
	}
	b.out = b.out[:0]
	for range n {
		b.out = append(b.out, heap.Pop(&b.ready).(*barrierEntry))
	}
	for c := range b.dtypes {
		shape := b.out[0].values[c].src.Shape()[1:]
		for _, e := range b.out[1:] {
			if s := e.values[c].src.Shape()[1:]; !s.Equal(shape) {
				for _, e := range b.out {
					heap.Push(&b.ready, e)
				}
				clear(b.out)
				return BarrierBatch{}, barrierInvalidf("Barrier '%s': cannot batch component %d: shapes %v and %v differ", b.name, c, shape, s)
			}
		}
	}
	var res BarrierBatch
	if dst != nil {
		res = *dst
	}
	res.Indices = barrierResize(res.Indices, n)
	res.Keys = barrierResize(res.Keys, n)
	res.Values = barrierResize(res.Values, len(b.dtypes))
	for c := range b.dtypes {
		b.rows = b.rows[:0]
		for _, e := range b.out {
			b.rows = append(b.rows, e.values[c])
		}
		res.Values[c] = barrierStack(res.Values[c], b.dtypes[c], b.rows)
		clear(b.rows)
	}
	for i, e := range b.out {
		res.Indices[i], res.Keys[i] = e.index, e.key
		b.recycle(e)
	}
	clear(b.out)
	return res, nil
}

// barrierResize returns s with length n, reusing its memory when it has room.
func barrierResize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// Close closes the barrier, TensorFlow's close(): new keys can no longer
// be inserted, but incomplete keys may still be completed and taken.
// Blocked takes that can no longer be served then fail with end of input.
// Closing a closed barrier is an error wrapping ErrClosed ("Barrier 'name'
// is already closed."). Close never blocks.
func (b *Barrier) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return b.alreadyClosed()
	}
	b.closed = true
	b.serve()
	return nil
}

// CloseNow closes the barrier and discards its incomplete keys, TensorFlow's
// close(cancel_pending_enqueues=True): nothing more can be inserted, and
// blocked takes that can no longer be served fail with end of input. It may
// follow a Close; a second CloseNow is an error wrapping ErrClosed.
func (b *Barrier) CloseNow() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.cancelled {
		return b.alreadyClosed()
	}
	b.closed, b.cancelled = true, true
	for k, e := range b.incomplete {
		delete(b.incomplete, k)
		b.recycle(e)
	}
	b.serve()
	return nil
}

func (b *Barrier) alreadyClosed() error {
	return fmt.Errorf("Barrier '%s' is already closed.: %w", b.name, ErrClosed)
}

// barrierStack stacks rows, which have one shape, into dst if it has
// their type and the batch's shape, else into a new tensor, copying each
// row straight from the tensor it was inserted with.
func barrierStack(dst tensor.Tensor, dtype tensor.DType, rows []barrierValue) tensor.Tensor {
	shape := rows[0].src.Shape()[1:]
	if s := dst.Shape(); !dst.IsValid() || dst.DType() != dtype || len(s) != len(shape)+1 || s[0] != len(rows) || !s[1:].Equal(shape) {
		dst = tensor.Zeros(dtype, shape.Prepend(len(rows)))
	}
	switch d := dst.Data().(type) {
	case []float32:
		barrierCopy(d, rows)
	case []float64:
		barrierCopy(d, rows)
	case []int64:
		barrierCopy(d, rows)
	case []int32:
		barrierCopy(d, rows)
	case []int16:
		barrierCopy(d, rows)
	case []int8:
		barrierCopy(d, rows)
	case []uint64:
		barrierCopy(d, rows)
	case []uint32:
		barrierCopy(d, rows)
	case []uint16:
		barrierCopy(d, rows)
	case []uint8:
		barrierCopy(d, rows)
	case []bool:
		barrierCopy(d, rows)
	case []tensor.Half:
		barrierCopy(d, rows)
	case []complex64:
		barrierCopy(d, rows)
	case []complex128:
		barrierCopy(d, rows)
	case [][]byte:
		barrierCopy(d, rows)
	default:
		for i, r := range rows {
			dst.CopyRows(i, r.src, r.row, 1) // same type and row shape: cannot fail
		}
	}
	return dst
}

func barrierCopy[T any](dst []T, rows []barrierValue) {
	n := len(dst) / len(rows)
	for i, r := range rows {
		src := r.src.Data().([]T)
		copy(dst[i*n:(i+1)*n], src[r.row*n:(r.row+1)*n])
	}
}
