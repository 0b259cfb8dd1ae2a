package queue

import (
	"github.com/sluiceml/sluice/tensor"
)

// FIFO is a first-in, first-out queue, TensorFlow's FIFOQueue.
type FIFO struct{ *core }

// PaddingFIFO is a FIFO queue whose components may vary in size: a batch
// is padded on the right, per component and dimension, to its largest
// element, with zeros or empty strings (TensorFlow's PaddingFIFOQueue).
// Single dequeues are never padded.
type PaddingFIFO struct{ *core }

// RandomShuffle is a queue that dequeues elements in random order,
// TensorFlow's RandomShuffleQueue. While it is open, a dequeue leaves at
// least minAfterDequeue elements behind, so draws are made from a pool of
// that size; once it is closed, that limit is lifted and it drains.
type RandomShuffle struct{ *core }

// Priority is a queue that dequeues the element with the smallest priority
// first, TensorFlow's PriorityQueue. Component 0 of every element is its
// priority, an Int64 scalar (a vector of priorities in a batch); the
// component types given to NewPriority are those that follow it. A
// DequeueMany or DequeueUpTo that has to wait takes its elements only
// once the queue holds all of them, so that a batch is the n smallest, in
// order, as TensorFlow's.
type Priority struct{ *core }

// The queues of this package are Sizers: their contents are in memory.
var (
	_ interface {
		Queue
		Sizer
	} = (*FIFO)(nil)
	_ interface {
		Queue
		Sizer
	} = (*PaddingFIFO)(nil)
	_ interface {
		Queue
		Sizer
	} = (*RandomShuffle)(nil)
	_ interface {
		Queue
		Sizer
	} = (*Priority)(nil)
)

// NewFIFO returns a FIFO queue of at most capacity elements with the given
// component types. Shapes, if declared with Shapes, must be fully
// defined; without them the queue accepts any shapes but cannot make
// batches (DequeueMany and DequeueUpTo fail).
func NewFIFO(capacity int, dtypes []tensor.DType, opts ...Option) (*FIFO, error) {
	c, _, err := newCore("FIFOQueue", "fifo_queue", capacity, dtypes, opts)
	if err != nil {
		return nil, err
	}
	if err := c.requireFullShapes(); err != nil {
		return nil, err
	}
	c.s = &fifoStore{}
	return &FIFO{c}, nil
}

// NewPaddingFIFO returns a PaddingFIFO queue. shapes is required, one per
// component; dimensions may be tensor.Unknown.
func NewPaddingFIFO(capacity int, dtypes []tensor.DType, shapes []tensor.Shape, opts ...Option) (*PaddingFIFO, error) {
	if shapes == nil {
		return nil, buildErrorf("When providing partial shapes, a list of shapes must be provided.")
	}
	if len(shapes) != len(dtypes) {
		return nil, buildErrorf("Shapes must be provided for all components, but received %d dtypes and %d shapes.", len(dtypes), len(shapes))
	}
	c, _, err := newCore("PaddingFIFOQueue", "padding_fifo_queue", capacity, dtypes, append(opts, Shapes(shapes...)))
	if err != nil {
		return nil, err
	}
	c.s = &fifoStore{}
	c.pad = true
	c.views = make([][]tensor.Tensor, len(dtypes))
	return &PaddingFIFO{c}, nil
}

// NewRandomShuffle returns a RandomShuffle queue. minAfterDequeue must be
// less than capacity. Seed makes its order repeatable.
func NewRandomShuffle(capacity, minAfterDequeue int, dtypes []tensor.DType, opts ...Option) (*RandomShuffle, error) {
	c, cfg, err := newCore("RandomShuffleQueue", "random_shuffle_queue", capacity, dtypes, opts)
	if err != nil {
		return nil, err
	}
	if err := c.requireFullShapes(); err != nil {
		return nil, err
	}
	if minAfterDequeue < 0 || minAfterDequeue >= capacity {
		return nil, buildErrorf("min_after_dequeue %d must be in [0, capacity %d)", minAfterDequeue, capacity)
	}
	c.minAfterDequeue = minAfterDequeue
	if cfg.waitFull {
		c.minAfterDequeue = capacity - 1
	}
	c.seed = cfg.seed
	c.s = newShuffleStore(cfg.seed)
	return &RandomShuffle{c}, nil
}

// NewPriority returns a Priority queue whose elements are an Int64
// priority followed by components of the given types (and shapes, if
// declared with Shapes, which then describes those components only).
func NewPriority(capacity int, dtypes []tensor.DType, opts ...Option) (*Priority, error) {
	// Shapes and names given describe the components after the priority;
	// add the priority's own before building.
	cfg := &config{}
	for _, o := range opts {
		o(cfg)
	}
	if cfg.shapes != nil {
		if len(cfg.shapes) != len(dtypes) {
			return nil, buildErrorf("Queue shapes must have the same length as dtypes")
		}
		opts = append(opts, Shapes(append([]tensor.Shape{{}}, cfg.shapes...)...))
	}
	if cfg.names != nil {
		if len(cfg.names) != len(dtypes) {
			return nil, buildErrorf("List of names must have the same length as the list of dtypes")
		}
		opts = append(opts, Names(append([]string{"priority"}, cfg.names...)...))
	}
	c, _, err := newCore("PriorityQueue", "priority_queue", capacity, append([]tensor.DType{tensor.Int64}, dtypes...), opts)
	if err != nil {
		return nil, err
	}
	if err := c.requireFullShapes(); err != nil {
		return nil, err
	}
	c.s = &priorityStore{}
	c.priority = true
	return &Priority{c}, nil
}
