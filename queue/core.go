package queue

import (
	"cmp"
	"context"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sluiceml/sluice/tensor"
)

// store is how a queue kind orders its elements.
type store interface {
	len() int
	push(e slot)
	pop() slot
	// popN appends n popped elements to dst, as n calls of pop would.
	popN(dst []slot, n int) []slot
	// unpop gives back an element that a dequeue took but could not
	// deliver (it failed or was cancelled); elements are given back in the
	// reverse of the order they were taken, so a FIFO restores its front.
	unpop(e slot)
}

// core is the machinery every queue kind shares: validation, the lists of
// blocked attempts served in arrival order, close and cancellation. It is
// TensorFlow's QueueBase: each blocked call is an attempt at the end of
// the enqueue or the dequeue list, and after every change the heads of
// both lists are run until neither can progress (each list's heads for as
// long as they complete, then the other's, as QueueBase does). Only the head of a list
// runs, which is what makes blocked calls complete in arrival order and
// lets a blocked EnqueueMany or DequeueMany make partial progress.
type core struct {
	kind            string // "FIFOQueue", ... for messages
	name            string
	capacity        int
	dtypes          []tensor.DType
	shapes          []tensor.Shape // nil if not declared
	names           []string
	minAfterDequeue int             // RandomShuffle: kept back while open
	seed            uint64          // RandomShuffle: the seed given, 0 if none
	pad             bool            // PaddingFIFO: batches are padded
	priority        bool            // Priority: component 0 is an Int64 scalar priority
	free            func([]Element) // Recycle's, or nil

	// views holds, for each component of a PaddingFIFO, the tensors of
	// the shapes its batches have had over the memory of the last batch
	// (padViewFor); viewsMu guards it, and nothing else, so that batches
	// assembled outside mu do not wait for each other's copies.
	viewsMu sync.Mutex
	views   [][]tensor.Tensor

	mu       sync.Mutex
	drawing  atomic.Bool // mu's holder draws, or drew, a batch's elements (see lock)
	s        store
	spares   [][]slot  // empty slices for batch dequeues' elements (spareTaken)
	freed    []Element // an empty slice for the elements handed to free
	closed   bool
	enq, deq []*attempt
	idle     []*attempt              // attempts for calls about to block (newAttempt)
	returned atomic.Pointer[attempt] // attempts of calls that returned (release)
	// ready holds the batch dequeues a flush completed and nobody has
	// assembled yet; unlock assembles them.
	ready []*attempt

	// Traffic counters, atomics so that Stats never takes mu.
	enqueued, dequeued   atomic.Int64
	enqWaited, deqWaited atomic.Int64 // nanoseconds
}

// Stats counts a queue's traffic since it was made, for the pipeline's
// metrics. Reading them is cheap and takes no lock.
type Stats struct {
	Enqueued, Dequeued int64         // elements in and out
	EnqueueBlocked     time.Duration // total time enqueue calls waited for room
	DequeueBlocked     time.Duration // total time dequeue calls waited for elements
}

type attemptKind uint8

const (
	enqueueOne attemptKind = iota
	enqueueMany
	closeOp
	dequeueOp
)

// attempt is one blocked call. A queue keeps the attempts of the calls
// that returned, with their channels, for the next calls that block
// (newAttempt, release): a consumer that waits for every batch, and a
// producer that waits for room for every batch, would otherwise allocate
// an attempt and a channel for each. They are the queue's, not shared
// between queues through a sync.Pool, whose channels would pass between
// goroutines inside and outside a testing/synctest bubble and hang
// synctest.Wait in the callers' tests: a queue is made and used inside
// one bubble, or outside all of them.
type attempt struct {
	kind attemptKind

	elem  Element // enqueueOne; enqueueMany: the batch
	next  int     // enqueueMany: rows inserted so far
	total int     // enqueueMany: rows in the batch

	n      int  // dequeue: elements requested
	upTo   bool // dequeue: DequeueUpTo
	single bool // dequeue: Dequeue (no batch dimension)
	taken  []slot
	one    [1]slot // Dequeue: taken's room
	dst    Element // batch dequeue: where to assemble (DequeueManyInto)

	finished bool
	assemble bool // a batch on core.ready: unlock assembles it, then wakes its call
	result   Element
	err      error
	nextIdle *attempt // on core.returned
	// done receives one value, from wake, when the attempt has finished
	// and its result is set. The blocked call receives it before its
	// attempt is reused, and nothing holds a finished attempt after
	// waking it, so that no wake-up meant for one call can reach the
	// next call that reuses the attempt.
	done chan struct{}
}

// finish sets a's result. Whoever takes a off its list wakes it then
// (flush, CloseNow), or once its batch is made (unlock).
func (a *attempt) finish(result Element, err error) {
	a.finished = true
	a.result, a.err = result, err
}

// wake tells a's caller that it finished. It is the last thing the waker
// does with a: the caller hands a back (release) as soon as it is woken,
// without the lock, and another call may take it over at once. done has
// room for the one value a use of a gets.
func (a *attempt) wake() {
	select {
	case a.done <- struct{}{}:
	default:
		panic("queue: attempt woken twice")
	}
}

// newAttempt returns an attempt of kind for a call about to block: one a
// call that returned left (release), or a new one. q.mu is held.
func (q *core) newAttempt(kind attemptKind) *attempt {
	if len(q.idle) == 0 {
		for a := q.returned.Swap(nil); a != nil; {
			next := a.nextIdle
			a.nextIdle = nil
			if len(q.idle) < maxIdle {
				q.idle = append(q.idle, a)
			}
			a = next
		}
	}
	k := len(q.idle)
	if k == 0 {
		return &attempt{kind: kind, done: make(chan struct{}, 1)}
	}
	a := q.idle[k-1]
	q.idle[k-1] = nil
	q.idle = q.idle[:k-1]
	a.kind = kind
	return a
}

// maxIdle bounds the attempts a queue keeps: as many as calls block at
// once in a pipeline's steady state, a few, not what a burst of blocked
// calls once left.
const maxIdle = 16

// reset empties a, an attempt its call is done with, for another call:
// nothing refers to it any more, nor will wake it.
func (a *attempt) reset() {
	if len(a.done) != 0 {
		// Reusing a would wake its next call at once, with no result.
		panic("queue: attempt reused with its wake-up not received")
	}
	*a = attempt{done: a.done}
}

// keep takes back a, the attempt of a call that is about to return
// (reset). q.mu is held.
func (q *core) keep(a *attempt) {
	a.reset()
	if len(q.idle) < maxIdle {
		q.idle = append(q.idle, a)
	}
}

// release returns the result of a, a finished attempt whose wake-up its
// call received, and hands a back for another call. It does not take
// q.mu, which a batch dequeue may hold while it draws: waiting for it
// would park the goroutine, whose call is done, behind the draws (see
// lock). a goes onto q.returned, a list that only grows, each attempt
// pushed with one compare-and-swap, until newAttempt takes all of it at
// once.
func (q *core) release(a *attempt) (Element, error) {
	result, err := a.result, a.err
	a.reset()
	for {
		head := q.returned.Load()
		a.nextIdle = head
		if q.returned.CompareAndSwap(head, a) {
			return result, err
		}
	}
}

// config is what a constructor's options set.
type config struct {
	name     string
	shapes   []tensor.Shape
	names    []string
	seed     uint64
	waitFull bool
	free     func([]Element)
}

// An Option configures a queue.
type Option func(*config)

// Name names the queue, for error messages and metrics.
func Name(name string) Option { return func(c *config) { c.name = name } }

// Shapes declares the shape of each component. FIFO, RandomShuffle and
// Priority queues need fully defined shapes; a PaddingFIFO queue requires
// shapes and allows tensor.Unknown dimensions.
func Shapes(shapes ...tensor.Shape) Option {
	return func(c *config) {
		c.shapes = make([]tensor.Shape, len(shapes))
		for i, s := range shapes {
			c.shapes[i] = s.Clone()
			if c.shapes[i] == nil {
				c.shapes[i] = tensor.Shape{}
			}
		}
	}
}

// Names names the components, TensorFlow's dictionary elements; see
// FromMap and Lookup.
func Names(names ...string) Option {
	return func(c *config) { c.names = slices.Clone(names) }
}

// Seed seeds a RandomShuffle queue's draws. With a non-zero seed the
// queue draws the same sequence of positions on every run; zero (the
// default) seeds from the clock.
func Seed(seed uint64) Option { return func(c *config) { c.seed = seed } }

// WaitFull makes a RandomShuffle queue's dequeues take each element only
// when the queue is full (or closed): min_after_dequeue becomes
// capacity - 1. A random draw then always chooses among the same
// elements, whatever the timing of the enqueues, so that with a Seed and
// enqueues in a fixed order the queue's output is a function of its
// input alone; deterministic pipelines (input.Deterministic) use it.
func WaitFull() Option { return func(c *config) { c.waitFull = true } }

// Recycle hands the elements of every batch a DequeueMany or DequeueUpTo
// (or their Into forms) has copied into its batch to free, once the copy
// is made and the queue holds no reference to them, so that a stage that
// owns its elements can fill them again instead of allocating new ones.
// free runs in the goroutine that copies the batch: the dequeuer, or the
// caller (an enqueue, a close) whose call completed a blocked dequeue's
// batch; the slice is the queue's again when it returns. Elements a single Dequeue returns are the caller's and
// are not handed over. The queue takes elements one at a time: its
// EnqueueMany fails with ErrInvalidArgument, since the rows of a batch
// share the batch's memory and none of them is free while another is
// queued.
func Recycle(free func(elems []Element)) Option { return func(c *config) { c.free = free } }

func newCore(kind, defaultName string, capacity int, dtypes []tensor.DType, opts []Option) (*core, *config, error) {
	c := &config{name: defaultName}
	for _, o := range opts {
		o(c)
	}
	if capacity <= 0 {
		return nil, nil, buildErrorf("%s capacity must be positive, not %d", kind, capacity)
	}
	if len(dtypes) == 0 {
		return nil, nil, buildErrorf("%s needs at least one component type", kind)
	}
	for i, d := range dtypes {
		if !d.Valid() {
			return nil, nil, buildErrorf("%s component %d has invalid dtype %v", kind, i, d)
		}
	}
	if c.shapes != nil && len(c.shapes) != len(dtypes) {
		return nil, nil, buildErrorf("Queue shapes must have the same length as dtypes")
	}
	if c.names != nil && len(c.names) != len(dtypes) {
		return nil, nil, buildErrorf("List of names must have the same length as the list of dtypes")
	}
	q := &core{kind: kind, name: c.name, capacity: capacity, dtypes: slices.Clone(dtypes), shapes: c.shapes, names: c.names, free: c.free}
	return q, c, nil
}

func (q *core) requireFullShapes() error {
	for _, s := range q.shapes {
		if !s.IsFullyDefined() {
			return buildErrorf("All shapes must be fully defined: %v", s)
		}
	}
	return nil
}

// Name returns the queue's name.
func (q *core) Name() string { return q.name }

// DTypes returns the component types.
func (q *core) DTypes() []tensor.DType { return q.dtypes }

// Shapes returns the declared component shapes, or nil.
func (q *core) Shapes() []tensor.Shape { return q.shapes }

// Names returns the component names, or nil.
func (q *core) Names() []string { return q.names }

// Capacity returns the most elements the queue holds, but for the
// elements a DequeueMany that ended without its batch gives back (see
// Sizer).
func (q *core) Capacity() int { return q.capacity }

// Size returns the number of elements in the queue. Elements a blocked
// DequeueMany has already taken into its partial batch are not counted; a
// Priority queue's blocked DequeueMany takes none until it can take its
// whole batch (see runPriorityBatch).
func (q *core) Size() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.s.len()
}

// IsClosed reports whether the queue is closed. As in TensorFlow, a Close
// that waits behind blocked enqueues closes the queue only when it runs,
// so until then IsClosed is false. It is not part of the Queue interface:
// stages learn of a close from their next call's ErrClosed or io.EOF.
func (q *core) IsClosed() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.closed
}

// Stats returns the queue's traffic counters.
func (q *core) Stats() Stats {
	return Stats{
		Enqueued:       q.enqueued.Load(),
		Dequeued:       q.dequeued.Load(),
		EnqueueBlocked: time.Duration(q.enqWaited.Load()),
		DequeueBlocked: time.Duration(q.deqWaited.Load()),
	}
}

// Enqueue adds e, blocking while the queue is full. The queue keeps e
// itself: the caller must not change it afterwards.
func (q *core) Enqueue(ctx context.Context, e Element) error {
	if err := q.checkElement(e); err != nil {
		return err
	}
	// lock and unlock, spelt out: as calls (too large to inline) they
	// cost an Enqueue and a Dequeue together a fifth of their time.
	if q.drawing.Load() {
		q.lockDrawn()
	} else {
		q.mu.Lock()
	}
	if len(q.enq) == 0 && !q.closed && q.s.len() < q.capacity {
		q.s.push(whole(e))
		q.enqueued.Add(1)
		if len(q.deq) > 0 {
			q.flush()
		}
		if len(q.ready) == 0 && !q.drawing.Load() {
			q.mu.Unlock()
		} else {
			q.unlock()
		}
		return nil
	}
	a := q.newAttempt(enqueueOne)
	a.elem = e
	_, err := q.block(ctx, a, &q.enq, "Enqueue")
	return err
}

// EnqueueMany adds the rows of batch as elements. It inserts as many as
// fit and blocks for room for the rest; rows already inserted stay if the
// call is cancelled.
func (q *core) EnqueueMany(ctx context.Context, batch Element) error {
	if q.free != nil {
		return invalidf("%s '%s' recycles its elements and takes them one at a time, not with EnqueueMany", q.kind, q.name)
	}
	n, err := q.checkBatch(batch)
	if err != nil {
		return err
	}
	if n == 0 {
		return nil // nothing to insert, never blocks
	}
	// The queue holds the batch's rows as the batch and an index (slot):
	// a tensor per row and component would be two allocations each. The
	// caller may reuse its slice, not the tensors' storage, which the
	// rows share.
	batch = slices.Clone(batch)
	q.lock()
	if len(q.enq) == 0 && !q.closed && q.capacity-q.s.len() >= n {
		// Room for every row: what block would do at once, without an
		// attempt to wait on.
		for row := range n {
			q.s.push(slot{e: batch, row: row})
		}
		q.enqueued.Add(int64(n))
		if len(q.deq) > 0 {
			q.flush()
		}
		q.unlock()
		return nil
	}
	a := q.newAttempt(enqueueMany)
	a.elem, a.total = batch, n
	_, err = q.block(ctx, a, &q.enq, "Enqueue")
	return err
}

// Dequeue removes one element, blocking until one is available.
func (q *core) Dequeue(ctx context.Context) (Element, error) {
	if q.drawing.Load() { // lock, spelt out as in Enqueue
		q.lockDrawn()
	} else {
		q.mu.Lock()
	}
	if len(q.deq) == 0 && q.s.len() > q.keepBack() {
		e := q.s.pop().element()
		q.dequeued.Add(1)
		if len(q.enq) > 0 {
			q.flush()
		}
		if len(q.ready) == 0 && !q.drawing.Load() {
			q.mu.Unlock()
		} else {
			q.unlock()
		}
		return e, nil
	}
	a := q.newAttempt(dequeueOp)
	a.n, a.single = 1, true
	a.taken = a.one[:0]
	return q.block(ctx, a, &q.deq, "Dequeue")
}

// DequeueMany removes n elements and returns them as one batch.
func (q *core) DequeueMany(ctx context.Context, n int) (Element, error) {
	return q.dequeueBatch(ctx, n, false, nil)
}

// DequeueManyInto is DequeueMany writing the batch into dst, so that a
// consumer can reuse one batch's memory from step to step. Components of
// dst that do not have the batch's type and shape ([n] followed by the
// component's shape) are replaced by new tensors. A PaddingFIFO's batch,
// whose shape depends on its elements, is written over the memory of
// dst's components of its types, up to their values' capacity, as
// tensor.Reuse does. It
// returns the batch, which is dst when dst has one tensor per component.
// When it fails (end of input, cancellation) dst is untouched.
func (q *core) DequeueManyInto(ctx context.Context, n int, dst Element) (Element, error) {
	return q.dequeueBatch(ctx, n, false, dst)
}

// DequeueUpTo is DequeueMany, but a closed queue with fewer than n
// elements left returns those instead of failing.
func (q *core) DequeueUpTo(ctx context.Context, n int) (Element, error) {
	return q.dequeueBatch(ctx, n, true, nil)
}

// DequeueUpToInto is DequeueUpTo writing the batch into dst, as
// DequeueManyInto does; a short last batch has its own shape, so it goes
// into new tensors.
func (q *core) DequeueUpToInto(ctx context.Context, n int, dst Element) (Element, error) {
	return q.dequeueBatch(ctx, n, true, dst)
}

func (q *core) dequeueBatch(ctx context.Context, n int, upTo bool, dst Element) (Element, error) {
	if q.shapes == nil {
		// even for n == 0, and whatever the queue holds.
		return nil, invalidf("%s's DequeueMany and DequeueUpTo require the components to have specified shapes.", q.kind)
	}
	if n < 0 {
		return nil, invalidf("Dequeue count must be non-negative, not %d", n)
	}
	if n == 0 {
		return q.emptyBatch(), nil // never blocks, never consumes
	}
	q.lock()
	if len(q.deq) == 0 && q.s.len()-q.keepBack() >= n {
		q.drawing.Store(true) // until unlock
		taken := q.s.popN(q.spareTaken(n), n)
		q.dequeued.Add(int64(n))
		if len(q.enq) > 0 {
			q.flush()
		}
		q.unlock()
		return q.assembleFree(taken, dst)
	}
	// The goroutine whose call completes the batch (usually an enqueue)
	// assembles it before waking this one (see unlock).
	a := q.newAttempt(dequeueOp)
	a.n, a.upTo, a.taken, a.dst = n, upTo, q.spareTaken(n), dst
	return q.block(ctx, a, &q.deq, "Dequeue")
}

// unlock releases q.mu, first assembling the batches that flushes
// completed (ready), each outside the lock, since copying a batch is the
// expensive part and must not hold up other callers. The goroutine that
// completes a blocked batch dequeue thus assembles it, and the dequeuer
// is woken with its batch made: otherwise, woken by the enqueue that
// completes its batch, it would wait for a core behind that enqueuer
// (and the other producers) before it could even start copying, while
// the producers wait for it to make room. Which elements a dequeue takes,
// and when, is decided under the lock as before; only the copy moves.
func (q *core) unlock() {
	for len(q.ready) > 0 {
		last := len(q.ready) - 1
		a := q.ready[last]
		q.ready[last] = nil
		q.ready = q.ready[:last]
		q.drawing.Store(false)
		q.mu.Unlock()
		a.result, a.err = q.assembleFree(a.taken, a.dst)
		a.taken, a.dst = nil, nil
		a.wake()
		q.lock()
	}
	// lock retries while a batch is drawn, until its drawer lets go.
	if q.drawing.Load() {
		q.drawing.Store(false)
	}
	q.mu.Unlock()
}

// assembleFree assembles a batch of elems and hands them to Recycle's
// func.
func (q *core) assembleFree(elems []slot, dst Element) (Element, error) {
	out, err := q.assemble(elems, dst)
	var freed []Element
	if err == nil && q.free != nil {
		q.lock()
		freed, q.freed = q.freed, nil
		q.mu.Unlock()
		// A Recycle queue takes no EnqueueMany: every slot is whole.
		for _, s := range elems {
			freed = append(freed, s.e)
		}
		q.free(freed)
		clear(freed)
	}
	clear(elems)
	q.lock()
	if len(q.spares) < maxSpares {
		q.spares = append(q.spares, elems[:0])
	}
	if cap(freed) > cap(q.freed) {
		q.freed = freed[:0]
	}
	q.mu.Unlock()
	return out, err
}

// spareTaken returns an empty slice with room for n elements, for a batch
// dequeue to take its elements into: one that a batch dequeue gave back,
// if it is large enough, so that consumers of batch after batch do not
// allocate one each time. There is one for each batch dequeue under way
// at once (up to maxSpares): several goroutines that decode batches each
// hold one while they wait and while they copy. q.mu is held.
//
// Room is made for maxTakenRoom elements at most: the rest grows as they
// come, so that a dequeue of far more than the queue will ever hold (a
// batch size meant for a larger data set) allocates for what it takes.
func (q *core) spareTaken(n int) []slot {
	n = min(n, maxTakenRoom)
	k := len(q.spares)
	if k == 0 {
		return make([]slot, 0, n)
	}
	s := q.spares[k-1]
	q.spares[k-1] = nil
	q.spares = q.spares[:k-1]
	if cap(s) < n {
		return make([]slot, 0, n)
	}
	return s
}

// maxTakenRoom bounds the room spareTaken makes before elements come.
const maxTakenRoom = 1 << 16

// maxSpares bounds the slices spareTaken keeps.
const maxSpares = 8

// keepBack is how many elements a dequeue must leave: min_after_dequeue
// while a RandomShuffle queue is open, otherwise none.
func (q *core) keepBack() int {
	if q.closed {
		return 0
	}
	return q.minAfterDequeue
}

// block queues a at the end of list, runs the queue, and waits for a to
// finish or ctx to end. q.mu must be held; block releases it.
func (q *core) block(ctx context.Context, a *attempt, list *[]*attempt, op string) (Element, error) {
	*list = append(*list, a)
	q.flush()
	if a.finished {
		q.unlock()
		<-a.done // a batch: assembled by this unlock or another's
		return q.release(a)
	}
	q.unlock()
	start := time.Now()
	select {
	case <-a.done:
	case <-ctx.Done():
		q.mu.Lock()
		if !a.finished {
			q.remove(a, list)
			q.keep(a)
			q.unlock()
			return nil, cancelledError(op, ctx.Err())
		}
		q.mu.Unlock()
		// Taken already: the batch is the caller's, as if ctx had ended
		// a moment later; its assembly is under way.
		<-a.done
	}
	waited := int64(time.Since(start))
	if a.kind == dequeueOp {
		q.deqWaited.Add(waited)
	} else {
		q.enqWaited.Add(waited)
	}
	return q.release(a)
}

// remove takes a cancelled attempt out of its list and undoes what it had
// taken, so the queue is as if it had never been made. Rows a
// cancelled EnqueueMany already inserted stay, as in TensorFlow.
func (q *core) remove(a *attempt, list *[]*attempt) {
	if i := slices.Index(*list, a); i >= 0 {
		*list = slices.Delete(*list, i, i+1)
	}
	q.giveBack(a)
	a.finished = true
	q.flush()
}

func (q *core) giveBack(a *attempt) {
	for i := len(a.taken) - 1; i >= 0; i-- {
		q.s.unpop(a.taken[i])
	}
	q.dequeued.Add(-int64(len(a.taken)))
	a.taken = a.taken[:0]
}

// flush runs the heads of both attempt lists until neither progresses.
// Each side runs its heads for as long as they complete, and turns to the
// other only at a head that merely progresses or cannot: TensorFlow's
// QueueBase does, and it decides which elements blocked calls get. With
// a blocked DequeueMany(2) and a blocked Dequeue before an EnqueueMany of
// priorities 5, 6, 7, 1 into a Priority queue of capacity 3, both
// dequeues complete from 5, 6, 7 before the 1 goes in, and the Dequeue
// gets the 7, not the 1 (TestFlushOrder).
func (q *core) flush() {
	for {
		progress := false
		for len(q.enq) > 0 {
			a := q.enq[0]
			moved := q.runEnqueue(a)
			if !a.finished {
				progress = progress || moved
				break
			}
			q.enq = popAttempt(q.enq)
			a.wake()
			progress = true
		}
		for len(q.deq) > 0 {
			a := q.deq[0]
			moved := q.runDequeue(a)
			if !a.finished {
				progress = progress || moved
				break
			}
			q.deq = popAttempt(q.deq)
			if !a.assemble {
				a.wake()
			}
			progress = true
		}
		if !progress {
			return
		}
	}
}

// popAttempt removes the head of an attempt list, moving the others up,
// so that the list keeps its room for the next calls to block: list[1:]
// would lose a place with every head served, and sooner or later an
// append would allocate a new list. Lists are as long as the calls
// blocked at once, a few.
func popAttempt(list []*attempt) []*attempt {
	copy(list, list[1:])
	list[len(list)-1] = nil
	return list[:len(list)-1]
}

// runEnqueue advances an enqueue-side attempt and reports whether it
// inserted anything.
func (q *core) runEnqueue(a *attempt) bool {
	switch {
	case a.kind == closeOp:
		if q.closed {
			a.finish(nil, q.alreadyClosed())
		} else {
			q.closed = true
			a.finish(nil, nil)
		}
		return true
	case q.closed:
		a.finish(nil, q.closedError())
		return false
	case a.kind == enqueueOne:
		if q.s.len() >= q.capacity {
			return false
		}
		q.s.push(whole(a.elem))
		q.enqueued.Add(1)
		a.finish(nil, nil)
		return true
	}
	moved := false
	for a.next < a.total && q.s.len() < q.capacity {
		q.s.push(slot{e: a.elem, row: a.next})
		q.enqueued.Add(1)
		a.next++
		moved = true
	}
	if a.next == a.total {
		a.finish(nil, nil)
	}
	return moved
}

// runDequeue advances a dequeue attempt and reports whether it took
// anything.
func (q *core) runDequeue(a *attempt) bool {
	if q.priority && !a.single {
		return q.runPriorityBatch(a)
	}
	if q.closed && q.s.len() < a.n-len(a.taken) {
		return q.runShort(a)
	}
	moved := false
	if !a.single && len(a.taken) < a.n && q.s.len() > q.keepBack() {
		q.drawing.Store(true) // until unlock
	}
	for len(a.taken) < a.n && q.s.len() > q.keepBack() {
		a.taken = append(a.taken, q.s.pop())
		q.dequeued.Add(1)
		moved = true
	}
	if len(a.taken) == a.n {
		q.deliver(a)
	}
	return moved
}

// runShort ends a dequeue that a closed queue has too few elements left
// to complete: it gives back what the dequeue took while the queue was
// open and returns what is left (DequeueUpTo) or fails. As
// TensorFlow's does, the error counts the elements still missing and the
// size before the give-back.
func (q *core) runShort(a *attempt) bool {
	missing, before := a.n-len(a.taken), q.s.len()
	q.giveBack(a)
	size := q.s.len()
	switch {
	case a.upTo && size > 0:
		q.drawing.Store(true) // until unlock
		a.taken = q.s.popN(a.taken, size)
		q.dequeued.Add(int64(size))
		q.deliver(a)
		return true
	case a.upTo && len(q.enq) > 0:
		return false // wait for the pending enqueues
	}
	a.finish(nil, q.eofError(missing, before, a.single))
	return false
}

// runPriorityBatch advances a batch dequeue of a Priority queue, which,
// unlike the other kinds', takes nothing until the queue holds its
// whole batch, and then takes it at once: taking elements as they
// arrived would make a batch of whatever came first, not of the n
// smallest, and out of order (PRI-02, PRI-03). TensorFlow's PriorityQueue
// waits the same way, so that while it waits Size counts the elements
// (a FIFO's partial batch holds them). Closed with fewer than n left, a
// DequeueUpTo takes what is left; TensorFlow 2.21's drops those elements
// and fails (see CONFORMANCE.md).
//
// A batch larger than the queue's capacity can never find all its
// elements queued; TensorFlow's waits for ever, and so do the producers,
// once the queue is full. It takes the full queue instead, and waits for
// the rest as the other kinds do, and its elements are sorted once it
// has all of them: the batch is in order, and equal priorities in
// insertion order (each part took every element queued), but not the n
// smallest of all that came.
func (q *core) runPriorityBatch(a *attempt) bool {
	missing, size := a.n-len(a.taken), q.s.len()
	take := missing
	if size < missing {
		switch {
		case q.closed:
			return q.runShort(a)
		case missing <= q.capacity || size < q.capacity:
			return false
		}
		take = size
	}
	q.drawing.Store(true) // until unlock
	a.taken = q.s.popN(a.taken, take)
	q.dequeued.Add(int64(take))
	if len(a.taken) == a.n {
		if take < a.n {
			slices.SortStableFunc(a.taken, func(x, y slot) int { return cmp.Compare(x.priority(), y.priority()) })
		}
		q.deliver(a)
	}
	return true
}

// deliver completes a dequeue with the elements it took. A batch is left
// in a.taken, and a in ready, for unlock to assemble once the lock is
// released; a is woken when it is made.
func (q *core) deliver(a *attempt) {
	if a.single {
		a.finish(a.taken[0].element(), nil)
		return
	}
	a.finished, a.assemble = true, true
	q.ready = append(q.ready, a)
}

// assemble stacks elements into a batch, padding if the queue pads. A
// component of dst that already has the batch's type and shape is written
// in place; the others are allocated.
func (q *core) assemble(elems []slot, dst Element) (Element, error) {
	out := dst
	if len(out) != len(q.dtypes) {
		out = make(Element, len(q.dtypes))
	}
	if q.pad {
		for c, d := range q.dtypes {
			if err := q.assemblePadded(out, c, d, elems); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	for c, d := range q.dtypes {
		// The shapes are fully defined (the constructors require it of a
		// queue that does not pad) and every element has them: the batch
		// is known before its rows are looked at, and the rows are copied
		// into it without a tensor for any of them.
		if !fitsBatch(out[c], d, len(elems), q.shapes[c]) {
			out[c] = tensor.Zeros(d, q.shapes[c].Prepend(len(elems)))
		}
		if copyRows(out[c], elems, c) {
			continue
		}
		for i, e := range elems {
			var err error
			if e.row < 0 {
				err = out[c].SetRow(i, e.e[c])
			} else {
				err = out[c].CopyRows(i, e.e[c], e.row, 1)
			}
			if err != nil {
				return nil, invalidf("component %d: %v", c, err)
			}
		}
	}
	return out, nil
}

// assemblePadded writes component c of elems into out[c], a batch
// padded to the largest size of each dimension among them (PAD-03),
// reusing out[c]'s memory when it can (tensor.Reuse): a consumer that
// hands back its last batch allocates nothing for the next once its
// memory has grown to the largest batch, whatever the shapes in between.
// The rows are copied from the slots, with no tensor for any of them.
func (q *core) assemblePadded(out Element, c int, d tensor.DType, elems []slot) error {
	// The batch's shape, built where it does not escape: the queue
	// checked each element's rank against its declared shape.
	var buf [8]int
	rank := len(q.shapes[c])
	shape := buf[:0]
	if rank+1 > len(buf) {
		shape = make(tensor.Shape, 0, rank+1)
	}
	shape = append(shape, len(elems))
	shape = append(shape, make([]int, rank)...)
	for _, e := range elems {
		s := e.e[c].Shape()
		if e.row >= 0 {
			s = s[1:]
		}
		for k, n := range s {
			shape[k+1] = max(shape[k+1], n)
		}
	}
	if err := CheckPaddedSize(d, shape); err != nil {
		return err
	}
	out[c] = q.padViewFor(c, out[c], d, shape)
	for i, e := range elems {
		var err error
		if e.row < 0 {
			err = out[c].SetRowPadded(i, e.e[c])
		} else {
			err = out[c].CopyRowsPadded(i, e.e[c], e.row, 1)
		}
		if err != nil {
			return invalidf("component %d: %v", c, err)
		}
	}
	return nil
}

// maxViews bounds the shapes padViewFor keeps for a component.
const maxViews = 8

// padViewFor returns tensor.Reuse(t, d, shape), or a tensor of that type
// and shape over t's memory that it returned before. A new shape over
// reused memory costs two allocations (its shape, and its values' slice
// header); a padded batch's shape changes whenever its longest element's
// length does, for most batches, but it takes only a few values, so that
// a consumer that hands back its batch finds its shape here after a while
// and the batch allocates nothing. The tensors kept are over the memory
// of the last batch handed back only, which its consumer holds; a batch
// dequeued without one (DequeueMany) is not kept.
func (q *core) padViewFor(c int, t tensor.Tensor, d tensor.DType, shape tensor.Shape) tensor.Tensor {
	if t.DType() != d {
		// Nothing handed back (DequeueMany): nothing to keep.
		return tensor.Reuse(t, d, shape)
	}
	if t.Shape().Equal(shape) {
		return t
	}
	q.viewsMu.Lock()
	defer q.viewsMu.Unlock()
	views := q.views[c]
	if len(views) > 0 && sameMemory(views[0], t) {
		for _, v := range views {
			if v.Shape().Equal(shape) {
				return v
			}
		}
	}
	r := tensor.Reuse(t, d, shape)
	switch {
	case len(views) == 0 || !sameMemory(views[0], r):
		clear(views)
		views = append(views[:0], r)
	case len(views) < maxViews:
		views = append(views, r)
	default:
		// Keep the first, which identifies the memory; drop the oldest
		// of the others.
		copy(views[1:], views[2:])
		views[len(views)-1] = r
	}
	q.views[c] = views
	return r
}

// sameMemory reports whether a and b, tensors of one type, are over the
// same memory, from its start.
func sameMemory(a, b tensor.Tensor) bool {
	va, vb := reflect.ValueOf(a.Data()), reflect.ValueOf(b.Data())
	return va.Cap() == vb.Cap() && va.UnsafePointer() == vb.UnsafePointer()
}

// copyRows writes component c of elems into the rows of dst, a batch of
// them (fitsBatch), element i into row i, and reports whether it could:
// it serves the common types with one type switch for the whole batch,
// where SetRow checks and switches on every row. The queue checked every
// element against its fully defined shapes when it was enqueued, so each
// row's size is the same.
func copyRows(dst tensor.Tensor, elems []slot, c int) bool {
	switch dst.DType() {
	case tensor.Float32:
		return copyRowsOf[float32](dst, elems, c)
	case tensor.Int64:
		return copyRowsOf[int64](dst, elems, c)
	case tensor.Int32:
		return copyRowsOf[int32](dst, elems, c)
	case tensor.Uint8:
		return copyRowsOf[uint8](dst, elems, c)
	case tensor.Float64:
		return copyRowsOf[float64](dst, elems, c)
	}
	return false
}

func copyRowsOf[T tensor.Elem](dst tensor.Tensor, elems []slot, c int) bool {
	if len(elems) == 0 {
		return true
	}
	d := tensor.Values[T](dst)
	rs := len(d) / len(elems)
	// A shuffle queue's elements are far from the cache when drawn, and a
	// row's values are three dependent loads away (element, tensor, slice
	// header). Finding a run of rows before copying any lets the
	// processor overlap those misses, where copying each row as it is
	// found waits for them one row at a time.
	const run = 16
	var src [run][]T
	for i := 0; i < len(elems); i += run {
		chunk := elems[i:min(i+run, len(elems))]
		for j, e := range chunk {
			src[j] = tensor.Values[T](e.e[c])
			if e.row >= 0 {
				src[j] = src[j][e.row*rs : (e.row+1)*rs]
			}
		}
		for j, s := range src[:len(chunk)] {
			if len(s) != rs {
				return false
			}
			k := i + j
			copy(d[k*rs:(k+1)*rs], s)
		}
	}
	return true
}

// fitsBatch reports whether t can hold a batch of n elements of type d and
// shape s.
func fitsBatch(t tensor.Tensor, d tensor.DType, n int, s tensor.Shape) bool {
	ts := t.Shape()
	return t.DType() == d && len(ts) == len(s)+1 && ts[0] == n && ts[1:].Equal(s)
}

func (q *core) alreadyClosed() error {
	return fmt.Errorf("Queue '%s' is already closed.: %w", q.name, ErrClosed)
}

// Close closes the queue, TensorFlow's close(): it waits behind the
// enqueues already blocked, which complete normally, then marks the queue
// closed, so that later enqueues fail with ErrClosed and dequeues drain
// what is left, then report end of input. Closing a closed queue is an
// error wrapping ErrClosed. When ctx ends while Close waits, it returns an
// error wrapping ctx.Err() and the queue stays open.
func (q *core) Close(ctx context.Context) error {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return q.alreadyClosed()
	}
	a := q.newAttempt(closeOp)
	_, err := q.block(ctx, a, &q.enq, "Close")
	return err
}

// CloseNow closes the queue at once, TensorFlow's
// close(cancel_pending_enqueues=True): every blocked enqueue, and a Close
// waiting behind them, fails with ErrCancelled. It never blocks and is
// never an error, even on a closed queue; ctx is unused, and taken so that
// every queue, local or remote, closes with the same call.
func (q *core) CloseNow(ctx context.Context) error {
	q.mu.Lock()
	defer q.unlock()
	q.closed = true
	for _, a := range q.enq {
		// A Close queued behind enqueues is cancelled too, and
		// with TensorFlow's words for every attempt of the enqueue list.
		a.finish(nil, cancelledError("Enqueue", ErrCancelled))
		a.wake()
	}
	q.enq = nil
	q.flush()
	return nil
}
