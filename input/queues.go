package input

import (
	"fmt"

	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tensor"
)

// queueSpec describes a queue a stage needs.
type queueSpec struct {
	deterministic   bool   // a RandomShuffle queue draws only when full
	kind            string // FIFOQueue, PaddingFIFOQueue, RandomShuffleQueue
	name            string
	capacity        int
	minAfterDequeue int
	seed            uint64
	dtypes          []tensor.DType
	shapes          []tensor.Shape
	names           []string
	free            func([]queue.Element) // queue.Recycle's, or nil
}

// elementInfo is the component types and per-example shapes of an element.
type elementInfo struct {
	dtypes []tensor.DType
	shapes []tensor.Shape
}

// elementSpec derives a batching queue's component types and shapes from
// the first element: the element's own shapes, without the batch
// dimension when it is a batch, and with every dimension unknown when
// batches are padded.
func elementSpec(stage string, e queue.Element, many, pad bool, names []string) (elementInfo, error) {
	if len(e) == 0 {
		return elementInfo{}, fmt.Errorf("Expected at least one tensor in %s().", stage)
	}
	if names != nil && len(names) != len(e) {
		return elementInfo{}, fmt.Errorf("%d names for %d components", len(names), len(e))
	}
	info := elementInfo{dtypes: make([]tensor.DType, len(e)), shapes: make([]tensor.Shape, len(e))}
	for i, t := range e {
		if !t.IsValid() {
			return elementInfo{}, fmt.Errorf("component %d is not a tensor", i)
		}
		shape := t.Shape().Clone()
		if many {
			if len(shape) == 0 {
				return elementInfo{}, fmt.Errorf("component %d: Shape () must have rank at least 1: enqueue_many needs a batch dimension", i)
			}
			shape = shape[1:]
		}
		if pad {
			for d := range shape {
				shape[d] = tensor.Unknown
			}
		}
		info.dtypes[i] = t.DType()
		info.shapes[i] = shape
	}
	return info, nil
}

// newQueue makes the queue a stage needs.
func newQueue(s queueSpec) (queue.Queue, error) {
	opts := []queue.Option{queue.Name(s.name)}
	if s.free != nil {
		opts = append(opts, queue.Recycle(s.free))
	}
	if s.names != nil {
		opts = append(opts, queue.Names(s.names...))
	}
	switch s.kind {
	case "PaddingFIFOQueue":
		return asQueue(queue.NewPaddingFIFO(s.capacity, s.dtypes, s.shapes, opts...))
	case "RandomShuffleQueue":
		opts = append(opts, queue.Shapes(s.shapes...), queue.Seed(s.seed|1))
		if s.deterministic {
			opts = append(opts, queue.WaitFull())
		}
		return asQueue(queue.NewRandomShuffle(s.capacity, s.minAfterDequeue, s.dtypes, opts...))
	}
	return asQueue(queue.NewFIFO(s.capacity, s.dtypes, append(opts, queue.Shapes(s.shapes...))...))
}

// asQueue returns q as a queue.Queue, or a nil one with err: a constructor's
// nil *FIFO in an interface would not be nil, and a caller's nil check
// would let it through.
func asQueue[Q queue.Queue](q Q, err error) (queue.Queue, error) {
	if err != nil {
		return nil, err
	}
	return q, nil
}
