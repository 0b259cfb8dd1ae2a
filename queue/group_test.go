package queue

import (
	"errors"
	"testing"

	"github.com/sluiceml/sluice/tensor"
)

// A Group closes all its queues and sums their sizes; it moves nothing.
func TestGroup(t *testing.T) {
	a := NewDeferred("FIFOQueue", "a", 2, nil, nil)
	a.Set(int64FIFO(t))
	b := NewDeferred("FIFOQueue", "b", 3, nil, nil)
	g := NewGroup("s/bucket_queues", a, b)
	if err := a.Enqueue(bg, Element{tensor.Scalar[int64](1)}); err != nil {
		t.Fatal(err)
	}
	if g.Name() != "s/bucket_queues" || g.Capacity() != 5 || g.Size() != 1 || g.IsClosed() {
		t.Errorf("name %q capacity %d size %d closed %v", g.Name(), g.Capacity(), g.Size(), g.IsClosed())
	}
	if g.DTypes()[0] != tensor.Int64 || g.Shapes() == nil || g.Names() != nil {
		t.Errorf("dtypes %v shapes %v names %v", g.DTypes(), g.Shapes(), g.Names())
	}
	for _, err := range []error{
		g.Enqueue(bg, nil),
		g.EnqueueMany(bg, nil),
		func() error { _, err := g.Dequeue(bg); return err }(),
		func() error { _, err := g.DequeueMany(bg, 1); return err }(),
		func() error { _, err := g.DequeueUpTo(bg, 1); return err }(),
	} {
		if !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("moving elements through the group: %v, want ErrInvalidArgument", err)
		}
	}
	if err := g.Close(bg); err != nil || !g.IsClosed() || !a.IsClosed() || !b.IsClosed() {
		t.Errorf("Close: %v, closed %v %v %v", err, g.IsClosed(), a.IsClosed(), b.IsClosed())
	}
	if err := g.Close(bg); !errors.Is(err, ErrClosed) {
		t.Errorf("second Close: %v, want ErrClosed", err)
	}
}
