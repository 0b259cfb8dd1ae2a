package bucket

import (
	"context"
	"errors"
	"io"
	"testing"

	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tensor"
)

func newFIFO(t *testing.T) queue.Queue {
	t.Helper()
	q, err := queue.NewFIFO(2, []tensor.DType{tensor.Int64}, queue.WithShapes(tensor.Shape{}))
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// Before the first example: no types, dequeues wait for the real queue or
// their context, enqueues cannot happen, and a close is remembered.
func TestLazyQueueBeforeSet(t *testing.T) {
	l := newLazyQueue("FIFOQueue", "s/bucket_queue_0", 2)
	if l.DTypes() != nil || l.Shapes() != nil || l.Names() != nil || l.Size() != 0 || l.IsClosed() {
		t.Errorf("unset queue: %v %v %v %d %v", l.DTypes(), l.Shapes(), l.Names(), l.Size(), l.IsClosed())
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := l.DequeueMany(ctx, 2); !errors.Is(err, context.Canceled) {
		t.Errorf("DequeueMany(cancelled): %v", err)
	}
	if err := l.Close(t.Context(), false); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(t.Context(), false); !errors.Is(err, queue.ErrClosed) {
		t.Errorf("second Close: %v, want queue.ErrClosed", err)
	}
	if err := l.Close(t.Context(), true); err != nil {
		t.Errorf("cancelling Close: %v", err)
	}
	if err := l.EnqueueMany(t.Context(), queue.Element{tensor.New([]int64{1})}); !errors.Is(err, queue.ErrClosed) {
		t.Errorf("EnqueueMany: %v, want queue.ErrClosed", err)
	}
	for _, f := range []func() error{
		func() error { _, err := l.Dequeue(t.Context()); return err },
		func() error { _, err := l.DequeueMany(t.Context(), 2); return err },
		func() error { _, err := l.DequeueUpTo(t.Context(), 2); return err },
	} {
		if err := f(); !errors.Is(err, io.EOF) {
			t.Errorf("dequeue from a queue closed empty: %v, want io.EOF", err)
		}
	}
	// The first example arrives after a stop: the real queue is closed at
	// once, so the enqueue fails as into any closed queue.
	q := newFIFO(t)
	l.set(q)
	if !q.IsClosed() || !l.IsClosed() {
		t.Error("real queue not closed")
	}
	if err := l.Enqueue(t.Context(), queue.Element{tensor.Scalar[int64](1)}); !errors.Is(err, queue.ErrClosed) {
		t.Errorf("Enqueue: %v, want queue.ErrClosed", err)
	}
}

// After set, the lazy queue is the real queue.
func TestLazyQueueAfterSet(t *testing.T) {
	l := newLazyQueue("FIFOQueue", "q", 2)
	l.set(newFIFO(t))
	ctx := t.Context()
	if err := l.EnqueueMany(ctx, queue.Element{tensor.New([]int64{1, 2})}); err != nil {
		t.Fatal(err)
	}
	if l.Size() != 2 || l.DTypes()[0] != tensor.Int64 || len(l.Shapes()) != 1 || l.Stats().Enqueued != 2 {
		t.Errorf("size %d dtypes %v shapes %v stats %+v", l.Size(), l.DTypes(), l.Shapes(), l.Stats())
	}
	if e, err := l.Dequeue(ctx); err != nil || e[0].Int64s()[0] != 1 {
		t.Errorf("Dequeue: %v %v", e, err)
	}
	l.Close(ctx, false)
	if e, err := l.DequeueUpTo(ctx, 2); err != nil || e[0].Len() != 1 {
		t.Errorf("DequeueUpTo: %v %v", e, err)
	}
}

// The input runner's view of the bucket queues closes them all and moves
// nothing.
func TestBucketSet(t *testing.T) {
	s := &stage{name: "s", buckets: []*lazyQueue{newLazyQueue("FIFOQueue", "a", 2), newLazyQueue("FIFOQueue", "b", 3)}}
	s.buckets[0].set(newFIFO(t))
	set := bucketSet{s}
	if set.Name() != "s/bucket_queues" || set.Capacity() != 5 || set.Size() != 0 || set.IsClosed() {
		t.Errorf("name %q capacity %d size %d closed %v", set.Name(), set.Capacity(), set.Size(), set.IsClosed())
	}
	if set.DTypes()[0] != tensor.Int64 || set.Shapes() == nil || set.Names() != nil {
		t.Errorf("dtypes %v shapes %v names %v", set.DTypes(), set.Shapes(), set.Names())
	}
	ctx := t.Context()
	for _, err := range []error{
		set.Enqueue(ctx, nil),
		set.EnqueueMany(ctx, nil),
		func() error { _, err := set.Dequeue(ctx); return err }(),
		func() error { _, err := set.DequeueMany(ctx, 1); return err }(),
		func() error { _, err := set.DequeueUpTo(ctx, 1); return err }(),
	} {
		if !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("moving elements through the set: %v, want ErrInvalidArgument", err)
		}
	}
	if err := set.Close(ctx, false); err != nil || !set.IsClosed() {
		t.Errorf("Close: %v, closed %v", err, set.IsClosed())
	}
	if err := set.Close(ctx, false); !errors.Is(err, queue.ErrClosed) {
		t.Errorf("second Close: %v, want queue.ErrClosed", err)
	}
}
