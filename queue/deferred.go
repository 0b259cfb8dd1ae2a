package queue

import (
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/sluiceml/sluice/tensor"
)

// A Deferred stands for a queue that is made when the first element
// arrives. A Go pipeline stage learns its component types and shapes from
// the tensors its step returns, where TensorFlow's graph declares them up
// front, so the stages that batch (package input, bucket, sample) make
// their queues from the first element and hand a Deferred to everything
// that needs the queue before then.
//
// Until the real queue exists a Deferred has no types or shapes, dequeues
// wait for it (or their context), and a Close is remembered: dequeues then
// report end of input, and a real queue installed later is closed at once.
// After that it is the real queue.
type Deferred struct {
	kind     string // for messages before the real queue exists
	name     string
	capacity int
	names    []string
	create   func(first Element) (Queue, error)

	mu     sync.Mutex
	q      Queue
	closed bool          // Close came before the real queue
	ready  chan struct{} // closed once q is set or the Deferred is closed
}

var _ Queue = (*Deferred)(nil)

// NewDeferred returns a Deferred for a queue of the given kind (as
// messages name it, e.g. "FIFOQueue"), name, capacity and component names.
// If create is not nil, the first enqueue makes the real queue with it;
// otherwise the owner installs the real queue with Set, and enqueues before
// that fail as into a closed queue.
func NewDeferred(kind, name string, capacity int, names []string, create func(first Element) (Queue, error)) *Deferred {
	return &Deferred{kind: kind, name: name, capacity: capacity, names: names, create: create, ready: make(chan struct{})}
}

// Set installs the real queue, if none is installed yet. A Deferred closed
// before closes it at once, cancelling: its producers have stopped or been
// stopped.
func (d *Deferred) Set(q Queue) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.setLocked(q)
}

func (d *Deferred) setLocked(q Queue) {
	if d.q != nil {
		return
	}
	d.q = q
	if d.closed {
		q.CloseNow(context.Background())
		return
	}
	close(d.ready)
}

// Queue returns the real queue, or nil before it exists.
func (d *Deferred) Queue() Queue {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.q
}

// forEnqueue returns the real queue, making it from e if it can.
func (d *Deferred) forEnqueue(e Element) (Queue, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.q != nil {
		return d.q, nil
	}
	if d.closed || d.create == nil {
		return nil, fmt.Errorf("%s '%s' is closed.: %w", d.kind, d.name, ErrClosed)
	}
	q, err := d.create(e)
	if err != nil {
		return nil, err
	}
	d.setLocked(q)
	return q, nil
}

// forDequeue waits for the real queue; nil means the Deferred was closed
// before any element arrived.
//
// Once the queue is ready, the real queue decides, whatever the state of
// ctx: like every queue, it serves an available element without looking
// at the context, so the outcome does not depend on which of two ready
// channels a select picks.
func (d *Deferred) forDequeue(ctx context.Context) (Queue, error) {
	select {
	case <-d.ready:
		return d.Queue(), nil
	default:
	}
	select {
	case <-d.ready:
		return d.Queue(), nil
	case <-ctx.Done():
		return nil, fmt.Errorf("Dequeue operation was cancelled: %w", ctx.Err())
	}
}

func (d *Deferred) emptyEOF(n int) error {
	return fmt.Errorf("%s '%s' is closed and has insufficient elements (requested %d, current size 0): %w", d.kind, d.name, n, io.EOF)
}

// Name returns the queue's name.
func (d *Deferred) Name() string { return d.name }

// Capacity returns the capacity given to NewDeferred.
func (d *Deferred) Capacity() int { return d.capacity }

// Names returns the names given to NewDeferred, or else the real queue's.
func (d *Deferred) Names() []string {
	if d.names != nil {
		return d.names
	}
	if q := d.Queue(); q != nil {
		return q.Names()
	}
	return nil
}

// DTypes returns the real queue's component types; nil before it exists.
func (d *Deferred) DTypes() []tensor.DType {
	if q := d.Queue(); q != nil {
		return q.DTypes()
	}
	return nil
}

// Shapes returns the real queue's component shapes; nil before it exists.
func (d *Deferred) Shapes() []tensor.Shape {
	if q := d.Queue(); q != nil {
		return q.Shapes()
	}
	return nil
}

// Size returns the real queue's size if it is a Sizer, else 0; 0 before
// it exists.
func (d *Deferred) Size() int {
	if q, ok := d.Queue().(Sizer); ok {
		return q.Size()
	}
	return 0
}

// Stats returns the real queue's traffic counters, for metrics; zero
// before it exists.
func (d *Deferred) Stats() Stats {
	if s, ok := d.Queue().(interface{ Stats() Stats }); ok {
		return s.Stats()
	}
	return Stats{}
}

func (d *Deferred) Enqueue(ctx context.Context, e Element) error {
	q, err := d.forEnqueue(e)
	if err != nil {
		return err
	}
	return q.Enqueue(ctx, e)
}

func (d *Deferred) EnqueueMany(ctx context.Context, batch Element) error {
	q, err := d.forEnqueue(batch)
	if err != nil {
		return err
	}
	return q.EnqueueMany(ctx, batch)
}

func (d *Deferred) Dequeue(ctx context.Context) (Element, error) {
	q, err := d.forDequeue(ctx)
	if err != nil {
		return nil, err
	}
	if q == nil {
		return nil, d.emptyEOF(1)
	}
	return q.Dequeue(ctx)
}

func (d *Deferred) DequeueMany(ctx context.Context, n int) (Element, error) {
	q, err := d.forDequeue(ctx)
	if err != nil {
		return nil, err
	}
	if q == nil {
		return nil, d.emptyEOF(n)
	}
	return q.DequeueMany(ctx, n)
}

func (d *Deferred) DequeueUpTo(ctx context.Context, n int) (Element, error) {
	q, err := d.forDequeue(ctx)
	if err != nil {
		return nil, err
	}
	if q == nil {
		return nil, d.emptyEOF(n)
	}
	return q.DequeueUpTo(ctx, n)
}

// Close closes the real queue, or, before it exists, the Deferred.
func (d *Deferred) Close(ctx context.Context) error {
	q, closedNow := d.closeEarly()
	if q != nil {
		return q.Close(ctx)
	}
	if !closedNow {
		return fmt.Errorf("Queue '%s' is already closed.: %w", d.name, ErrClosed)
	}
	return nil
}

// CloseNow closes the real queue at once, or, before it exists, the
// Deferred.
func (d *Deferred) CloseNow(ctx context.Context) error {
	if q, _ := d.closeEarly(); q != nil {
		return q.CloseNow(ctx)
	}
	return nil
}

// closeEarly returns the real queue if there is one. Otherwise it closes
// the Deferred and reports whether it was open until now.
func (d *Deferred) closeEarly() (q Queue, closedNow bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.q != nil {
		return d.q, false
	}
	if d.closed {
		return nil, false
	}
	d.closed = true
	close(d.ready)
	return nil, true
}
