package bucket

import (
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tensor"
)

// A lazyQueue stands for one of the stage's queues until the first example
// arrives. A Go step returns concrete tensors instead of declaring types
// and shapes in a graph, so the real queues are made from that example
// (see stage.init). Until then enqueues cannot happen (init comes first),
// dequeues wait, and Close is remembered: the real queue is closed as soon
// as it is made, and if none ever is, dequeues report end of input.
type lazyQueue struct {
	kind     string // for messages before the real queue exists
	name     string
	capacity int

	mu     sync.Mutex
	q      queue.Queue
	closed bool          // Close came before the real queue
	ready  chan struct{} // closed once q is set or the queue is closed
}

var _ queue.Queue = (*lazyQueue)(nil)

func newLazyQueue(kind, name string, capacity int) *lazyQueue {
	return &lazyQueue{kind: kind, name: name, capacity: capacity, ready: make(chan struct{})}
}

// set installs the real queue. A queue closed before it existed is closed
// at once, with cancel: its producers have stopped or been stopped.
func (l *lazyQueue) set(q queue.Queue) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.q != nil {
		return
	}
	if l.closed {
		q.Close(context.Background(), true)
		l.q = q
		return
	}
	l.q = q
	close(l.ready)
}

func (l *lazyQueue) current() queue.Queue {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.q
}

// forEnqueue returns the real queue, or the error an enqueue into a
// closed queue gets.
func (l *lazyQueue) forEnqueue() (queue.Queue, error) {
	if q := l.current(); q != nil {
		return q, nil
	}
	return nil, fmt.Errorf("%s '%s' is closed.: %w", l.kind, l.name, queue.ErrClosed)
}

// forDequeue waits for the real queue; nil means the queue was closed
// before any example arrived.
//
// Once the queue is ready, the real queue decides, whatever the state of
// ctx: like every queue, it serves an available element without looking
// at the context, so the outcome does not depend on which of two ready
// channels a select picks.
func (l *lazyQueue) forDequeue(ctx context.Context) (queue.Queue, error) {
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

func (l *lazyQueue) emptyEOF(n int) error {
	return fmt.Errorf("%s '%s' is closed and has insufficient elements (requested %d, current size 0): %w", l.kind, l.name, n, io.EOF)
}

func (l *lazyQueue) Name() string  { return l.name }
func (l *lazyQueue) Capacity() int { return l.capacity }
func (l *lazyQueue) Names() []string {
	if q := l.current(); q != nil {
		return q.Names()
	}
	return nil
}

func (l *lazyQueue) DTypes() []tensor.DType {
	if q := l.current(); q != nil {
		return q.DTypes()
	}
	return nil
}

func (l *lazyQueue) Shapes() []tensor.Shape {
	if q := l.current(); q != nil {
		return q.Shapes()
	}
	return nil
}

func (l *lazyQueue) Size() int {
	if q := l.current(); q != nil {
		return q.Size()
	}
	return 0
}

func (l *lazyQueue) IsClosed() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.q != nil {
		return l.q.IsClosed()
	}
	return l.closed
}

// Stats returns the real queue's traffic counters, for the pipeline's
// metrics.
func (l *lazyQueue) Stats() queue.Stats {
	if s, ok := l.current().(interface{ Stats() queue.Stats }); ok {
		return s.Stats()
	}
	return queue.Stats{}
}

func (l *lazyQueue) Enqueue(ctx context.Context, e queue.Element) error {
	q, err := l.forEnqueue()
	if err != nil {
		return err
	}
	return q.Enqueue(ctx, e)
}

func (l *lazyQueue) EnqueueMany(ctx context.Context, b queue.Element) error {
	q, err := l.forEnqueue()
	if err != nil {
		return err
	}
	return q.EnqueueMany(ctx, b)
}

func (l *lazyQueue) Dequeue(ctx context.Context) (queue.Element, error) {
	q, err := l.forDequeue(ctx)
	if err != nil {
		return nil, err
	}
	if q == nil {
		return nil, l.emptyEOF(1)
	}
	return q.Dequeue(ctx)
}

func (l *lazyQueue) DequeueMany(ctx context.Context, n int) (queue.Element, error) {
	q, err := l.forDequeue(ctx)
	if err != nil {
		return nil, err
	}
	if q == nil {
		return nil, l.emptyEOF(n)
	}
	return q.DequeueMany(ctx, n)
}

func (l *lazyQueue) DequeueUpTo(ctx context.Context, n int) (queue.Element, error) {
	q, err := l.forDequeue(ctx)
	if err != nil {
		return nil, err
	}
	if q == nil {
		return nil, l.emptyEOF(n)
	}
	return q.DequeueUpTo(ctx, n)
}

func (l *lazyQueue) Close(ctx context.Context, cancelPendingEnqueues bool) error {
	l.mu.Lock()
	if q := l.q; q != nil {
		l.mu.Unlock()
		return q.Close(ctx, cancelPendingEnqueues)
	}
	defer l.mu.Unlock()
	if l.closed {
		if cancelPendingEnqueues {
			return nil
		}
		return fmt.Errorf("Queue '%s' is already closed.: %w", l.name, queue.ErrClosed)
	}
	l.closed = true
	close(l.ready)
	return nil
}
