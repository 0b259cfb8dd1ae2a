package sequence

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/sluiceml/sluice/internal/stagehook"
	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tensor"
)

// A StateSaver splits sequence examples into segments of num_unroll time
// steps and batches the segments of many examples, carrying a state for
// each example from one segment to the next: TensorFlow's
// SequenceQueueingStateSaver.
//
// Prefetch adds one example; Next returns the next batch of segments, whose
// SaveState stores the states that the examples' next segments will see.
// An example's segment k+1 is ready only once the state of segment k was
// saved, and segments are served oldest example first, so an example's
// segments arrive in consecutive batches when the batches are processed
// one after another.
//
// A StateSaver is safe for concurrent use: any number of goroutines may
// call Prefetch and Next.
type StateSaver struct {
	batchSize  int
	numUnroll  int
	capacity   int // 0: unbounded
	allowSmall bool
	name       string

	stateNames []string // sorted; barrier component 1+i
	stateIndex map[string]int
	initial    []tensor.Tensor // each [1]+shape, for InsertMany

	barrier *queue.Barrier
	tokens  *queue.FIFO // one token per active example
	token   queue.Element

	// stageErr, set by BatchSequencesWithStates, reports why the
	// pipeline stopped, for Next to return instead of end of input.
	stageErr func() error

	mu     sync.Mutex
	layout *layout
	// slots holds the examples held, each at its slot (nil: free), which
	// its segments' handles name; free holds the examples whose last
	// segment was taken, for Prefetch to reuse.
	slots     []*example
	free      []*example
	keys      keyArena
	closing   bool          // no new examples
	cancelled bool          // closed with CloseNow
	inflight  int           // Prefetch calls past the closing check
	idle      chan struct{} // closed when closing and inflight reaches 0
	cancelCh  chan struct{} // closed by a CloseNow

	// In a pipeline, the state saver's part in checkpoints and the states
	// they save (see checkpoint.go); nil for a state saver of its own.
	ck       *stagehook.Stage
	carried  *carried
	replayed replayCheck // of a restore's replay
}

// NewStateSaver returns a state saver that delivers batches of batchSize
// segments of numUnroll time steps. initialStates names the states kept
// for every example and gives the value each example starts with; it may
// not be empty, and names may not contain ":" (SQ-02). Options: Capacity,
// AllowSmallerFinalBatch or DropRemainder, Name.
func NewStateSaver(batchSize, numUnroll int, initialStates map[string]tensor.Tensor, opts ...StateSaverOption) (*StateSaver, error) {
	c := &config{}
	for _, o := range opts {
		o.applyStateSaver(c)
	}
	if c.name == "" {
		c.name = "InputQueueingStateSaver"
	}
	return newStateSaver(batchSize, numUnroll, initialStates, c)
}

func newStateSaver(batchSize, numUnroll int, initialStates map[string]tensor.Tensor, c *config) (*StateSaver, error) {
	if c.err != nil {
		return nil, c.err
	}
	if batchSize <= 0 {
		return nil, invalidf("sequence: batch_size must be positive, not %d", batchSize)
	}
	if numUnroll <= 0 {
		return nil, invalidf("sequence: num_unroll must be positive, not %d", numUnroll)
	}
	if c.capacitySet && c.capacity < batchSize {
		return nil, invalidf("sequence: capacity must be larger or equal to batch_size (capacity %d, batch_size %d)", c.capacity, batchSize)
	}
	if len(initialStates) == 0 {
		return nil, invalidf("sequence: initial_states may not be empty: at least one state variable is required to properly enqueue split sequences to run in separate iterations")
	}
	s := &StateSaver{
		batchSize:  batchSize,
		numUnroll:  numUnroll,
		allowSmall: c.allowSmall,
		name:       c.name,
		stateNames: sortedKeys(initialStates),
		stateIndex: make(map[string]int, len(initialStates)),
		cancelCh:   make(chan struct{}),
	}
	if c.capacitySet {
		s.capacity = c.capacity
	}
	dtypes := []tensor.DType{tensor.Int64}
	shapes := []tensor.Shape{{2}} // (example id, segment)
	for i, k := range s.stateNames {
		if strings.Contains(k, ":") {
			return nil, invalidf("sequence: state name may not have a colon: '%s'", k)
		}
		v := initialStates[k]
		if !v.IsValid() {
			return nil, invalidf("sequence: Shape for state %s is not fully defined: no tensor", k)
		}
		s.stateIndex[k] = i
		dtypes = append(dtypes, v.DType())
		shapes = append(shapes, v.Shape().Clone())
		one, _ := v.Clone().Reshape(v.Shape().Prepend(1)) // same size: cannot fail
		s.initial = append(s.initial, one)
	}
	var err error
	if s.barrier, err = queue.NewBarrier(s.name+"/barrier", dtypes, shapes); err != nil {
		return nil, fmt.Errorf("sequence: %w", err)
	}
	// A sequence's segments are ready one at a time, each completed by
	// the state saved for the one before: once closed, a full batch needs
	// as many sequences with segments left as it has rows, and without
	// them Next ends (DropRemainder) rather than wait for segments that
	// only its own caller could complete.
	s.barrier.SetGroups(sequenceOfKey)
	capacity := s.capacity
	if capacity == 0 {
		capacity = math.MaxInt // TensorFlow's unbounded -1
	}
	if s.tokens, err = queue.NewFIFO(capacity, []tensor.DType{tensor.Int32},
		queue.Shapes(tensor.Shape{}), queue.Name(s.name+"/capacity_queue")); err != nil {
		return nil, fmt.Errorf("sequence: %w", err)
	}
	s.token = queue.Element{tensor.Scalar[int32](21051976)} // TensorFlow's TOKEN_WITH_IGNORED_VALUE
	return s, nil
}

// Name returns the state saver's name.
func (s *StateSaver) Name() string { return s.name }

// BatchSize returns the number of segments Next returns.
func (s *StateSaver) BatchSize() int { return s.batchSize }

// NumUnroll returns the number of time steps in a segment.
func (s *StateSaver) NumUnroll() int { return s.numUnroll }

// Capacity returns the maximum number of examples held at once, or 0 if
// unbounded.
func (s *StateSaver) Capacity() int { return s.capacity }

// AllowSmallerFinalBatch reports whether Next returns smaller batches once the
// state saver is closed.
func (s *StateSaver) AllowSmallerFinalBatch() bool { return s.allowSmall }

// StateNames returns the names of the states, sorted.
func (s *StateSaver) StateNames() []string { return slices.Clone(s.stateNames) }

// Barrier returns the barrier that holds the segments: component 0 is the
// segment (an internal handle), then one component per state, in
// StateNames order. Its ReadySize is the number of segments ready to be
// taken.
func (s *StateSaver) Barrier() *queue.Barrier { return s.barrier }

// CapacityQueue returns the queue of tokens that bounds the number of
// active examples (SQ-13): its size is the number of examples held.
func (s *StateSaver) CapacityQueue() *queue.FIFO { return s.tokens }

// Prefetch adds one example, TensorFlow's prefetch_op: it checks the
// example, splits it into segments and inserts them, with the initial
// states for the first segment. It blocks while the state saver holds
// Capacity examples. The first example fixes the names, types and shapes
// (apart from time) of the sequences and context; later examples must
// match them.
//
// On a closed state saver Prefetch fails with an error wrapping
// queue.ErrClosed, or queue.ErrCancelled if it was blocked when a
// CloseNow came. Errors about the example name its key.
func (s *StateSaver) Prefetch(ctx context.Context, in Input) error {
	s.mu.Lock()
	l := s.layout
	s.mu.Unlock()
	if l != nil && l.fits(&in) {
		if err := checkSparseParts(&in, l); err != nil {
			return exampleError(in.Key, err)
		}
	} else {
		l2, err := layoutOf(&in)
		if err != nil {
			return exampleError(in.Key, err)
		}
		s.mu.Lock()
		if s.layout == nil {
			s.layout = l2
		} else if err := s.layout.matches(l2); err != nil {
			s.mu.Unlock()
			return exampleError(in.Key, err)
		}
		l = s.layout
		s.mu.Unlock()
	}
	e := s.newExample()
	if err := segment(&in, l, s.numUnroll, e, &s.keys); err != nil {
		s.recycle(e)
		return exampleError(in.Key, err)
	}
	initial := s.initial
	if len(in.InitialStates) > 0 {
		var err error
		if initial, err = s.initialStates(in.InitialStates); err != nil {
			s.recycle(e)
			return exampleError(in.Key, err)
		}
	}
	return s.insert(ctx, e, initial)
}

// newExample returns an example to fill: one whose segments were all
// taken, or a new one with a slot of its own. Reusing examples, with
// their handles and the memory of their keys and parts, and making keys
// in chunks (keyArena) is what keeps Prefetch from allocating.
func (s *StateSaver) newExample() *example {
	s.mu.Lock()
	defer s.mu.Unlock()
	if n := len(s.free); n > 0 {
		e := s.free[n-1]
		s.free[n-1] = nil
		s.free = s.free[:n-1]
		return e
	}
	e := &example{slot: int64(len(s.slots))}
	s.slots = append(s.slots, nil)
	e.keys, e.parts = e.keyRoom[:0], e.partRoom[:0]
	return e
}

// recycle keeps e, which no segment in the barrier or batch being made
// refers to, for newExample.
func (s *StateSaver) recycle(e *example) {
	e.release()
	s.mu.Lock()
	s.free = append(s.free, e)
	s.mu.Unlock()
}

// initialStates returns the initial states of an example that overrides
// some of them, each shaped [1]+shape for InsertMany.
func (s *StateSaver) initialStates(override map[string]tensor.Tensor) ([]tensor.Tensor, error) {
	out := slices.Clone(s.initial)
	for k, v := range override {
		i, ok := s.stateIndex[k]
		if !ok {
			return nil, fmt.Errorf("sequence: state was not declared: %s: %w", k, ErrUnknownState)
		}
		want := s.initial[i].Shape()[1:]
		if v.DType() != s.initial[i].DType() || !v.Shape().Equal(want) {
			return nil, invalidf("initial state %s is %v %v, want %v %v", k, v.DType(), v.Shape(), s.initial[i].DType(), want)
		}
		out[i], _ = v.Clone().Reshape(v.Shape().Prepend(1)) // same size: cannot fail
	}
	return out, nil
}

// insert admits a checked example: it takes a capacity token and inserts
// the segments and initial states into the barrier.
func (s *StateSaver) insert(ctx context.Context, e *example, initial []tensor.Tensor) error {
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		s.recycle(e)
		return fmt.Errorf("sequence: %s is closed: %w", s.name, queue.ErrClosed)
	}
	s.inflight++
	s.mu.Unlock()
	defer s.done()

	if err := s.tokens.Enqueue(ctx, s.token); err != nil {
		key := e.key
		s.recycle(e)
		return exampleError(key, err)
	}
	s.mu.Lock()
	s.slots[e.slot] = e
	s.mu.Unlock()

	// All segments are created by one insert, so they share one insertion
	// index (SQ-11). The barrier copies the handles, into memory it
	// reuses.
	e.setHandles(e.count)
	err := s.barrier.InsertRows(0, e.keys, e.handles, nil)
	for i := 0; err == nil && i < len(initial); i++ {
		err = s.barrier.InsertMany(1+i, e.keys[:1], initial[i])
	}
	if err != nil {
		// A CloseNow gets here (a plain one waits for this call), and
		// so does the key of an example still in the barrier (the
		// barrier's insert is all or nothing): the example's keys are
		// gone, so are its data and token. The example is not reused:
		// after a CloseNow nothing is accepted, and a duplicate's
		// memory goes to the collector.
		s.mu.Lock()
		s.slots[e.slot] = nil
		s.mu.Unlock()
		done, cancel := context.WithCancel(context.Background())
		cancel()
		s.tokens.Dequeue(done) // completes at once if a token is left
		return exampleError(e.key, err)
	}
	return nil
}

// done ends a Prefetch that passed the closing check.
func (s *StateSaver) done() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.inflight--
	if s.closing && s.inflight == 0 && s.idle != nil {
		close(s.idle)
		s.idle = nil
	}
}

// Next returns the next batch of BatchSize segments, TensorFlow's
// next_batch. Segments are taken oldest example first (by insertion
// index). It blocks until enough segments are ready; once the state saver
// is closed it returns a smaller batch with AllowSmallerFinalBatch, and
// then end of input: an error for which errors.Is(err, io.EOF) holds.
//
// Call SaveState on the batch for every state before the examples' next
// segments can be served.
func (s *StateSaver) Next(ctx context.Context) (*Batch, error) {
	return s.NextN(ctx, s.batchSize)
}

// NextInto is Next reusing dst, a batch Next or NextInto returned whose
// states were all saved, for a consumer done with each batch before it
// asks for the next: the batch returned is dst, with its slices, maps and
// the tensors of its keys, sequences, context and states written over.
// dst and what it returned must not be used afterwards. A nil dst, one
// of another state saver or one with a state not saved yet (its
// segments' successors wait for it) is not reused.
func (s *StateSaver) NextInto(ctx context.Context, dst *Batch) (*Batch, error) {
	if dst != nil && (dst.s != s || !dst.allSaved()) {
		dst = nil
	}
	return s.next(ctx, s.batchSize, dst)
}

// NextN is Next with a batch size of n instead of BatchSize, which
// TensorFlow allows by feeding the batch size (SQ-12). n may be 0.
func (s *StateSaver) NextN(ctx context.Context, n int) (*Batch, error) {
	return s.next(ctx, n, nil)
}

// next is NextN into dst (see NextInto).
func (s *StateSaver) next(ctx context.Context, n int, dst *Batch) (*Batch, error) {
	if s.ck == nil {
		return s.nextN(ctx, n, dst)
	}
	var restored map[string]map[string]tensor.Tensor
	err := s.ck.Replay(ctx, func(ctx context.Context, state json.RawMessage) error {
		if restored == nil {
			var err error
			if restored, err = s.restoredStates(state); err != nil {
				// The checkpoint's states do not fit the state saver:
				// its error, as Start's are (audit 95).
				return fmt.Errorf("%w: %w", err, stagehook.ErrCheckpoint)
			}
			s.replayed.start(restored)
		}
		return s.replayOne(ctx, restored)
	})
	if err != nil {
		return nil, fmt.Errorf("sequence: %s: %w", s.name, err)
	}
	if err := s.replayed.end(s.name); err != nil {
		return nil, err
	}
	b, err := s.nextN(ctx, n, dst)
	if err != nil {
		return nil, err
	}
	s.ck.Taken(ctx)
	s.carried.mu.Lock()
	s.carried.unsaved++
	s.carried.odd = s.carried.odd || n != s.batchSize
	s.carried.mu.Unlock()
	b.counted = true
	return b, nil
}

// nextN is NextN without the checkpoint's bookkeeping.
// dst, if not nil, is a batch of s whose memory the new batch reuses.
func (s *StateSaver) nextN(ctx context.Context, n int, dst *Batch) (*Batch, error) {
	var bb queue.BarrierBatch
	var err error
	switch {
	case dst != nil && s.allowSmall:
		bb, err = s.barrier.TakeUpToInto(ctx, n, dst.taken)
	case dst != nil:
		bb, err = s.barrier.TakeManyInto(ctx, n, dst.taken)
	case s.allowSmall:
		bb, err = s.barrier.TakeUpTo(ctx, n)
	default:
		bb, err = s.barrier.TakeMany(ctx, n)
	}
	if err != nil {
		if errors.Is(err, io.EOF) && s.stageErr != nil {
			if serr := s.stageErr(); serr != nil {
				return nil, serr
			}
		}
		return nil, err
	}
	n = bb.Len()
	if s.carried != nil {
		s.carried.delivered(bb.Keys)
	}
	handles := bb.Values[0].Int64s()
	var refs []segRef
	if dst != nil {
		refs = dst.refs[:0]
	}
	refs = resize(refs, n)
	finished := 0
	s.mu.Lock()
	l := s.layout
	for i := range n {
		slot, seg := handles[2*i], int(handles[2*i+1])
		var e *example
		if slot >= 0 && slot < int64(len(s.slots)) {
			e = s.slots[slot]
		}
		if e == nil {
			s.mu.Unlock()
			return nil, fmt.Errorf("sequence: %s: segment %q has no example data", s.name, bb.Keys[i])
		}
		refs[i] = segRef{e, seg}
		if seg+1 >= e.count {
			s.slots[slot] = nil
			finished++
		}
	}
	s.mu.Unlock()
	// SQ-13: the examples whose last segment was taken give their tokens
	// back. The tokens are there, so this does not block, and is not
	// cancelled; one at a time, a token is the element the queue holds,
	// where a DequeueMany would make a batch of them.
	for range finished {
		if _, err := s.tokens.Dequeue(context.Background()); err != nil {
			return nil, fmt.Errorf("sequence: %s: releasing capacity: %w", s.name, err)
		}
	}
	b, err := s.assemble(bb, refs, l, dst)
	// The finished examples are reused once the batch is made: nothing
	// refers to them any more (their segments are all taken, and a batch
	// copies what it takes of them).
	if finished > 0 {
		s.mu.Lock()
		for _, r := range refs {
			if r.seg+1 >= r.e.count {
				r.e.release()
				s.free = append(s.free, r.e)
			}
		}
		s.mu.Unlock()
	}
	clear(refs)
	if b != nil {
		b.refs = refs[:0]
	}
	return b, err
}

// All returns an iterator over the batches, for range loops. It ends at end
// of input; any other error is yielded once and ends it. The loop body must
// call SaveState on each batch.
func (s *StateSaver) All(ctx context.Context) iter.Seq2[*Batch, error] {
	return func(yield func(*Batch, error) bool) {
		for {
			b, err := s.Next(ctx)
			if errors.Is(err, io.EOF) {
				return
			}
			if !yield(b, err) || err != nil {
				return
			}
		}
	}
}

// Close closes the state saver, TensorFlow's close (SQ-14). No new examples
// are accepted afterwards, but the examples already started may finish:
// Close first waits for Prefetch calls in progress, including those
// blocked on capacity, to insert their examples (ctx bounds the wait),
// then closes the barrier. Next keeps serving segments as their states are
// saved, returning a smaller batch at the end with AllowSmallerFinalBatch,
// and then end of input. A second Close fails with an error wrapping
// queue.ErrClosed.
func (s *StateSaver) Close(ctx context.Context) error {
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		return s.alreadyClosed()
	}
	s.closing = true
	var idle chan struct{}
	if s.inflight > 0 {
		idle = make(chan struct{})
		s.idle = idle
	}
	s.mu.Unlock()
	if idle != nil {
		select {
		case <-idle:
		case <-s.cancelCh:
			return nil // a CloseNow took over
		case <-ctx.Done():
			return fmt.Errorf("sequence: close %s: waiting for prefetches: %w", s.name, ctx.Err())
		}
	}
	if err := s.barrier.Close(); err != nil {
		if s.isCancelled() {
			return nil // a CloseNow came first
		}
		return err
	}
	return s.tokens.Close(ctx)
}

// CloseNow closes the state saver at once, TensorFlow's close with
// cancel_pending_enqueues: blocked Prefetch calls fail, segments not yet
// ready are dropped (their SaveState fails), and Next returns only what is
// ready, then end of input. It may follow a Close, as for the barrier; a
// second CloseNow fails with an error wrapping queue.ErrClosed. It does
// not block.
func (s *StateSaver) CloseNow(ctx context.Context) error {
	s.mu.Lock()
	if s.cancelled {
		s.mu.Unlock()
		return s.alreadyClosed()
	}
	s.closing = true
	// Blocked prefetches fail, and keys not yet ready are dropped. The
	// data of their examples stays until the state saver is dropped:
	// nothing will read it.
	s.cancelled = true
	close(s.cancelCh)
	s.mu.Unlock()
	err := s.barrier.CloseNow()
	s.tokens.CloseNow(ctx) // never fails
	return err
}

func (s *StateSaver) alreadyClosed() error {
	return fmt.Errorf("Barrier '%s' is already closed.: %w", s.barrier.Name(), queue.ErrClosed)
}

func (s *StateSaver) isCancelled() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cancelled
}

// IsClosed reports whether Close or CloseNow was called.
func (s *StateSaver) IsClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closing
}

// sequenceOfKey returns the part of a segment's key that names its
// sequence: what follows "%05d_of_%05d:" (SQ-07).
func sequenceOfKey(key string) string {
	return key[strings.IndexByte(key, ':')+1:]
}
