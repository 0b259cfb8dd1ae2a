// Package stagequeue holds the queues that pipeline stages build around
// package queue's and that users never see as such: Lazy, a queue made
// from the first element enqueued (a Go stage learns its component types
// from what its step returns), and Group, which closes the queues one
// runner fills as one. Package input's batchers, bucket and sample use
// them.
package stagequeue

import (
	"context"
	"fmt"
	"io"
	"sync"
	"sync/atomic"

	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tensor"
)

// A Lazy stands for a queue that is made when the first element
// arrives. A Go pipeline stage learns its component types and shapes from
// the tensors its step returns, where TensorFlow's graph declares them up
// front, so the stages that batch (package input, bucket, sample) make
// their queues from the first element and hand a Lazy to everything
// that needs the queue before then.
//
// Until the real queue exists a Lazy has no types or shapes, dequeues
// wait for it (or their context), and a Close is remembered: dequeues then
// report end of input, and a real queue installed later is closed at once.
// After that it is the real queue.
type Lazy struct {
	kind     string // for messages before the real queue exists
	name     string
	capacity int
	names    []string
	create   func(first queue.Element) (queue.Queue, error)

	mu     sync.Mutex
	q      queue.Queue
	closed bool          // Close came before the real queue
	ready  chan struct{} // closed once q is set or the Lazy is closed
	// real is q once set, read without the lock: every enqueue and
	// dequeue asks for the real queue, from several goroutines.
	real atomic.Pointer[realQueue]
}

type realQueue struct{ q queue.Queue }

var (
	_ queue.Queue = (*Lazy)(nil)
	_ queue.Sizer = (*Lazy)(nil)
)

// NewLazy returns a Lazy for a queue of the given kind (as
// messages name it, e.g. "FIFOQueue"), name, capacity and component names.
// If create is not nil, the first enqueue makes the real queue with it;
// otherwise the owner installs the real queue with Set, and enqueues before
// that fail as into a closed queue.
func NewLazy(kind, name string, capacity int, names []string, create func(first queue.Element) (queue.Queue, error)) *Lazy {
	return &Lazy{kind: kind, name: name, capacity: capacity, names: names, create: create, ready: make(chan struct{})}
}

// Set installs the real queue, if none is installed yet. A Lazy closed
// before closes it at once, cancelling: its producers have stopped or been
// stopped.
func (l *Lazy) Set(q queue.Queue) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.setLocked(q)
}

func (l *Lazy) setLocked(q queue.Queue) {
	if l.q != nil {
		return
	}
	l.q = q
	l.real.Store(&realQueue{q})
	if l.closed {
		q.CloseNow(context.Background())
		return
	}
	close(l.ready)
}

// current returns the real queue, or nil before it exists.
func (l *Lazy) current() queue.Queue {
	if r := l.real.Load(); r != nil {
		return r.q
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.q
}

// forEnqueue returns the real queue, making it from e if it can.
func (l *Lazy) forEnqueue(e queue.Element) (queue.Queue, error) {
	if r := l.real.Load(); r != nil {
		return r.q, nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.q != nil {
		return l.q, nil
	}
	if l.closed || l.create == nil {
		return nil, fmt.Errorf("%s '%s' is closed.: %w", l.kind, l.name, queue.ErrClosed)
	}
	q, err := l.create(e)
	if err != nil {
		return nil, err
	}
	l.setLocked(q)
	return q, nil
}

// forDequeue waits for the real queue; nil means the Lazy was closed
// before any element arrived.
//
// Once the queue is ready, the real queue decides, whatever the state of
// ctx: like every queue, it serves an available element without looking
// at the context, so the outcome does not depend on which of two ready
// channels a select picks.
func (l *Lazy) forDequeue(ctx context.Context) (queue.Queue, error) {
	select {
	case <-l.ready:
		return l.current(), nil
	default:
	}
	select {
	case <-l.ready:
		return l.current(), nil
	case <-ctx.Done():
		return nil, fmt.Errorf("Dequeue operation was cancelled: %w", ctx.Err())
	}
}

func (l *Lazy) emptyEOF(n int) error {
	return fmt.Errorf("%s '%s' is closed and has insufficient elements (requested %d, current size 0): %w", l.kind, l.name, n, io.EOF)
}

// Name returns the queue's name.
func (l *Lazy) Name() string { return l.name }

// Capacity returns the capacity given to NewLazy.
func (l *Lazy) Capacity() int { return l.capacity }

// Names returns the names given to NewLazy, or else the real queue's.
func (l *Lazy) Names() []string {
	if l.names != nil {
		return l.names
	}
	if q := l.current(); q != nil {
		return q.Names()
	}
	return nil
}

// DTypes returns the real queue's component types; nil before it exists.
func (l *Lazy) DTypes() []tensor.DType {
	if q := l.current(); q != nil {
		return q.DTypes()
	}
	return nil
}

// Shapes returns the real queue's component shapes; nil before it exists.
func (l *Lazy) Shapes() []tensor.Shape {
	if q := l.current(); q != nil {
		return q.Shapes()
	}
	return nil
}

// Size returns the real queue's size if it is a queue.Sizer, else 0; 0
// before it exists.
func (l *Lazy) Size() int {
	if q, ok := l.current().(queue.Sizer); ok {
		return q.Size()
	}
	return 0
}

// Stats returns the real queue's traffic counters, for metrics; zero
// before it exists.
func (l *Lazy) Stats() queue.Stats {
	if s, ok := l.current().(interface{ Stats() queue.Stats }); ok {
		return s.Stats()
	}
	return queue.Stats{}
}

func (l *Lazy) Enqueue(ctx context.Context, e queue.Element) error {
	q, err := l.forEnqueue(e)
	if err != nil {
		return err
	}
	return q.Enqueue(ctx, e)
}

func (l *Lazy) EnqueueMany(ctx context.Context, batch queue.Element) error {
	q, err := l.forEnqueue(batch)
	if err != nil {
		return err
	}
	return q.EnqueueMany(ctx, batch)
}

func (l *Lazy) Dequeue(ctx context.Context) (queue.Element, error) {
	q, err := l.forDequeue(ctx)
	if err != nil {
		return nil, err
	}
	if q == nil {
		return nil, l.emptyEOF(1)
	}
	return q.Dequeue(ctx)
}

func (l *Lazy) DequeueMany(ctx context.Context, n int) (queue.Element, error) {
	return l.batch(ctx, n, func(q queue.Queue) (queue.Element, error) { return q.DequeueMany(ctx, n) })
}

func (l *Lazy) DequeueUpTo(ctx context.Context, n int) (queue.Element, error) {
	return l.batch(ctx, n, func(q queue.Queue) (queue.Element, error) { return q.DequeueUpTo(ctx, n) })
}

// batch takes a batch of n from the real queue with take, once there is
// one, or reports end of input if the Lazy was closed before.
func (l *Lazy) batch(ctx context.Context, n int, take func(q queue.Queue) (queue.Element, error)) (queue.Element, error) {
	q, err := l.forDequeue(ctx)
	if err != nil {
		return nil, err
	}
	if q == nil {
		return nil, l.emptyEOF(n)
	}
	return take(q)
}

// An intoQueue writes batches into a caller's tensors (the queue package's
// queues do).
type intoQueue interface {
	DequeueManyInto(ctx context.Context, n int, dst queue.Element) (queue.Element, error)
	DequeueUpToInto(ctx context.Context, n int, dst queue.Element) (queue.Element, error)
}

// DequeueManyInto is DequeueMany writing the batch into dst where the real
// queue can (see queue.FIFO's DequeueManyInto).
func (l *Lazy) DequeueManyInto(ctx context.Context, n int, dst queue.Element) (queue.Element, error) {
	return l.batch(ctx, n, func(q queue.Queue) (queue.Element, error) {
		if iq, ok := q.(intoQueue); ok {
			return iq.DequeueManyInto(ctx, n, dst)
		}
		return q.DequeueMany(ctx, n)
	})
}

// DequeueUpToInto is DequeueUpTo writing the batch into dst where the
// real queue can.
func (l *Lazy) DequeueUpToInto(ctx context.Context, n int, dst queue.Element) (queue.Element, error) {
	return l.batch(ctx, n, func(q queue.Queue) (queue.Element, error) {
		if iq, ok := q.(intoQueue); ok {
			return iq.DequeueUpToInto(ctx, n, dst)
		}
		return q.DequeueUpTo(ctx, n)
	})
}

// Close closes the real queue, or, before it exists, the Lazy.
func (l *Lazy) Close(ctx context.Context) error {
	q, closedNow := l.closeEarly()
	if q != nil {
		return q.Close(ctx)
	}
	if !closedNow {
		return fmt.Errorf("Queue '%s' is already closed.: %w", l.name, queue.ErrClosed)
	}
	return nil
}

// CloseNow closes the real queue at once, or, before it exists, the Lazy.
func (l *Lazy) CloseNow(ctx context.Context) error {
	if q, _ := l.closeEarly(); q != nil {
		return q.CloseNow(ctx)
	}
	return nil
}

// closeEarly returns the real queue if there is one. Otherwise it closes
// the Lazy and reports whether it was open until now.
func (l *Lazy) closeEarly() (q queue.Queue, closedNow bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.q != nil {
		return l.q, false
	}
	if l.closed {
		return nil, false
	}
	l.closed = true
	close(l.ready)
	return nil, true
}
