package queue

import (
	"fmt"
	"slices"
	"sync"

	"github.com/sluiceml/sluice/tensor"
)

// A container holds queues shared by name, as queues with the same
// shared_name are one queue in a TensorFlow session: code that asks for a
// queue by a name already taken gets the existing queue, provided it asks
// for the same kind, capacity, types and shapes (Q-49 to Q-51, RSQ-13).
// Nothing in the module shares queues by name yet (a Go program shares a
// queue by passing it), so it is not exported; a shared_name option for
// input's producers would be built on it.
type container struct {
	mu     sync.Mutex
	queues map[string]Queue
}

func newContainer() *container { return &container{queues: map[string]Queue{}} }

// internals gives the parameters of a queue built by this package.
type internals interface{ base() *core }

func (q *core) base() *core { return q }

// share returns the queue registered under name, registering q there if
// the name is free. If another queue holds the name, q must match it in
// kind, capacity, component types and shapes (and, for RandomShuffle
// queues, min_after_dequeue and explicit seeds), as TensorFlow checks when
// it reopens a shared queue; then q is dropped and the existing queue
// returned.
func (c *container) share(name string, q Queue) (Queue, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	old, ok := c.queues[name]
	if !ok {
		c.queues[name] = q
		return q, nil
	}
	a, aok := old.(internals)
	b, bok := q.(internals)
	if !aok || !bok {
		return nil, fmt.Errorf("queue: shared queue %q: only this package's queues can be shared", name)
	}
	x, y := a.base(), b.base()
	mismatch := func(what string, have, want any) error {
		return fmt.Errorf("queue: Shared queue '%s' has %s %v that does not match the requested %v", name, what, have, want)
	}
	switch {
	case x.kind != y.kind:
		return nil, mismatch("kind", x.kind, y.kind)
	case x.capacity != y.capacity:
		return nil, mismatch("capacity", x.capacity, y.capacity)
	case !slices.Equal(x.dtypes, y.dtypes):
		return nil, mismatch("component types", x.dtypes, y.dtypes)
	case (x.shapes == nil) != (y.shapes == nil) || !slices.EqualFunc(x.shapes, y.shapes, tensor.Shape.Equal):
		return nil, mismatch("component shapes", x.shapes, y.shapes)
	case x.minAfterDequeue != y.minAfterDequeue:
		return nil, mismatch("min_after_dequeue", x.minAfterDequeue, y.minAfterDequeue)
	case x.seed != 0 && y.seed != 0 && x.seed != y.seed:
		return nil, mismatch("random seeds", x.seed, y.seed)
	}
	return old, nil
}

// FromList returns queues[index], TensorFlow's QueueBase.from_list, after
// checking that the queues agree in component types and names.
func FromList(index int, queues []Queue) (Queue, error) {
	if len(queues) == 0 {
		return nil, fmt.Errorf("queue: A list of queues expected")
	}
	for _, q := range queues[1:] {
		if !slices.Equal(q.DTypes(), queues[0].DTypes()) {
			return nil, fmt.Errorf("queue: Queues do not have matching component dtypes.")
		}
		if !slices.Equal(q.Names(), queues[0].Names()) {
			return nil, fmt.Errorf("queue: Queues do not have matching component names.")
		}
	}
	if index < 0 || index >= len(queues) {
		return nil, invalidf("Index %d is not in [0, %d)", index, len(queues))
	}
	return queues[index], nil
}

// CommonShapes returns, per component, the shape every queue's elements
// are known to have: dimensions the queues agree on, tensor.Unknown where
// they differ, and nil (unknown rank) where their ranks differ or a queue
// declares no shapes (TensorFlow's from_list static shapes).
func CommonShapes(queues []Queue) []tensor.Shape {
	if len(queues) == 0 {
		return nil
	}
	out := make([]tensor.Shape, len(queues[0].DTypes()))
	for c := range out {
		var common tensor.Shape
		for i, q := range queues {
			shapes := q.Shapes()
			if shapes == nil {
				common = nil
				break
			}
			s := shapes[c]
			if i == 0 {
				common = s.Clone()
				continue
			}
			if common == nil || len(s) != len(common) {
				common = nil
				break
			}
			for d := range common {
				if common[d] != s[d] {
					common[d] = tensor.Unknown
				}
			}
		}
		out[c] = common
	}
	return out
}
