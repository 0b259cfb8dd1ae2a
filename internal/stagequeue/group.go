package stagequeue

import (
	"context"
	"errors"

	"github.com/sluiceml/sluice/queue"
)

// A Group closes several queues as one, for a queue runner whose steps
// enqueue into any of them — a bucketing stage's bucket queues — so that
// the end of the runner's input
// closes them all. It moves no elements and is not a queue.Queue: a runner
// needs only a name and the two ways to close (coord.Closer).
type Group struct {
	name   string
	queues []queue.Queue
}

// NewGroup returns a Group of queues.
func NewGroup(name string, queues ...queue.Queue) *Group {
	return &Group{name: name, queues: queues}
}

// Name returns the group's name.
func (g *Group) Name() string { return g.name }

// Close closes every queue of the group; their errors are joined.
func (g *Group) Close(ctx context.Context) error {
	return g.each(func(q queue.Queue) error { return q.Close(ctx) })
}

// CloseNow closes every queue of the group at once; their errors are
// joined.
func (g *Group) CloseNow(ctx context.Context) error {
	return g.each(func(q queue.Queue) error { return q.CloseNow(ctx) })
}

func (g *Group) each(f func(queue.Queue) error) error {
	var errs []error
	for _, q := range g.queues {
		errs = append(errs, f(q))
	}
	return errors.Join(errs...)
}
