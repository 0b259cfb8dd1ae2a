package queue

import (
	"context"
	"errors"

	"github.com/sluiceml/sluice/tensor"
)

// A Group presents several queues as one to a queue runner whose steps
// enqueue into any of them — a bucketing stage's bucket queues, a
// sampler's per-class queues — so that the end of the runner's input
// closes them all. Size and Capacity are the sums, DTypes and Shapes the
// first queue's. A Group moves no elements: its enqueues and dequeues fail
// with ErrInvalidArgument.
type Group struct {
	name   string
	queues []Queue
}

var _ Queue = (*Group)(nil)

// NewGroup returns a Group of at least one queue.
func NewGroup(name string, queues ...Queue) *Group {
	return &Group{name: name, queues: queues}
}

func (g *Group) Name() string           { return g.name }
func (g *Group) DTypes() []tensor.DType { return g.queues[0].DTypes() }
func (g *Group) Shapes() []tensor.Shape { return g.queues[0].Shapes() }
func (g *Group) Names() []string        { return nil }

// Close closes every queue of the group; their errors are joined.
func (g *Group) Close(ctx context.Context) error {
	return g.each(func(q Queue) error { return q.Close(ctx) })
}

// CloseNow closes every queue of the group at once; their errors are
// joined.
func (g *Group) CloseNow(ctx context.Context) error {
	return g.each(func(q Queue) error { return q.CloseNow(ctx) })
}

func (g *Group) each(f func(Queue) error) error {
	var errs []error
	for _, q := range g.queues {
		errs = append(errs, f(q))
	}
	return errors.Join(errs...)
}

// IsClosed reports whether every queue of the group is closed.
func (g *Group) IsClosed() bool {
	for _, q := range g.queues {
		if !q.IsClosed() {
			return false
		}
	}
	return true
}

func (g *Group) Size() (n int) {
	for _, q := range g.queues {
		n += q.Size()
	}
	return n
}

func (g *Group) Capacity() (n int) {
	for _, q := range g.queues {
		n += q.Capacity()
	}
	return n
}

func (g *Group) Enqueue(context.Context, Element) error     { return g.unsupported() }
func (g *Group) EnqueueMany(context.Context, Element) error { return g.unsupported() }
func (g *Group) Dequeue(context.Context) (Element, error)   { return nil, g.unsupported() }
func (g *Group) DequeueMany(context.Context, int) (Element, error) {
	return nil, g.unsupported()
}
func (g *Group) DequeueUpTo(context.Context, int) (Element, error) {
	return nil, g.unsupported()
}

func (g *Group) unsupported() error {
	return invalidf("%s stands for a group of queues and moves no elements", g.name)
}
