package queue

import (
	"context"
	"errors"

	"github.com/sluiceml/sluice/tensor"
)

// An Element is one entry of a queue: one tensor per component, in the
// queue's component order. In a batch (EnqueueMany, DequeueMany) each
// component has an extra leading dimension, the batch dimension.
type Element []tensor.Tensor

// Queue is what the stages of a pipeline need of a queue: its name and
// component types, shapes and names, the five ways to move elements, and
// the two ways to close it. FIFO, PaddingFIFO, RandomShuffle and Priority
// implement it, as does natsqueue.Queue, whose elements live on a server.
// Every method is safe for concurrent use.
//
// Blocking methods take a context: when it is cancelled or its deadline
// passes, the call returns an error that wraps ctx.Err() and the queue is
// left as if the call had never been made (where TensorFlow has session
// close and op timeouts; a DequeueMany's elements already taken go back,
// which TensorFlow loses), with one exception: the rows a cancelled
// EnqueueMany had already inserted stay queued, as in TensorFlow, and the
// error does not say how many there were, so that retrying the whole
// batch may queue some rows twice.
//
// How full a queue is belongs to Sizer, which not every Queue can be.
type Queue interface {
	// Name returns the queue's name, as its error messages print it.
	Name() string
	// DTypes returns the component types.
	DTypes() []tensor.DType
	// Shapes returns the declared component shapes, or nil if the queue was
	// built without shapes.
	Shapes() []tensor.Shape
	// Names returns the component names, or nil for an unnamed queue.
	Names() []string

	// Enqueue adds one element, blocking while the queue is full.
	Enqueue(ctx context.Context, e Element) error
	// EnqueueMany adds the rows of a batch (dimension 0 of every component)
	// as separate elements. It inserts as many as fit at once and blocks
	// for the rest; rows inserted stay if the call is cancelled.
	EnqueueMany(ctx context.Context, batch Element) error
	// Dequeue removes one element, blocking while none is available.
	Dequeue(ctx context.Context) (Element, error)
	// DequeueMany removes exactly n elements and returns them as a batch.
	DequeueMany(ctx context.Context, n int) (Element, error)
	// DequeueUpTo is DequeueMany, except that on a closed queue it returns
	// the remaining 1..n-1 elements instead of failing.
	DequeueUpTo(ctx context.Context, n int) (Element, error)

	// Close closes the queue, TensorFlow's close(): enqueues that are
	// already blocked complete, later ones fail with ErrClosed, and
	// dequeues drain what is left, then report end of input (io.EOF).
	// It waits for the blocked enqueues, so it takes a context.
	Close(ctx context.Context) error
	// CloseNow closes the queue as Close does, except that enqueues
	// already blocked fail at once with ErrCancelled (TensorFlow's
	// cancel_pending_enqueues=True). It does not wait for them.
	CloseNow(ctx context.Context) error
}

// A Sizer is a queue that knows at once, without asking anyone and so
// without failing, how many elements it holds and how many it can hold:
// the queues of this package. A pipeline's metrics report the queues that
// are Sizers. natsqueue.Queue is not one: its count lives on a server,
// and its State takes a context and can fail.
type Sizer interface {
	// Size returns the number of elements in the queue.
	Size() int
	// Capacity returns the most elements the queue holds, save for one
	// case: a DequeueMany that ends without its batch, cancelled or closed
	// out, gives back the elements it had taken, room or
	// not, so that none is lost. Size may then exceed Capacity until the
	// queue drains; enqueues wait until it is below.
	Capacity() int
}

// Errors that callers test with errors.Is. End of input, TensorFlow's
// OutOfRange, is io.EOF.
var (
	// ErrClosed reports an enqueue into a closed queue (TensorFlow's
	// Cancelled "... is closed").
	ErrClosed = errors.New("queue is closed")
	// ErrCancelled reports a blocked enqueue failed by a CloseNow
	// (TensorFlow's "Enqueue operation was cancelled").
	ErrCancelled = errors.New("operation was cancelled")
	// ErrInvalidArgument reports an element of the wrong type or shape, or a
	// request the queue cannot serve (TensorFlow's InvalidArgument).
	ErrInvalidArgument = errors.New("invalid argument")
	// ErrResourceExhausted reports a padded batch too large for the
	// machine's memory (TensorFlow's ResourceExhausted "OOM when
	// allocating tensor"): elements that are small alone can pad to a
	// batch of any size, [n,0] and [0,n] to [2,n,n]. The elements the
	// dequeue took are lost, as in TensorFlow.
	ErrResourceExhausted = tensor.ErrResourceExhausted
)
