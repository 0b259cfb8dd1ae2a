package stagequeue

import (
	"context"
	"errors"
	"io"
	"testing"

	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tensor"
)

func int64FIFO(t *testing.T) *queue.FIFO {
	t.Helper()
	q, err := queue.NewFIFO(2, []tensor.DType{tensor.Int64}, queue.Shapes(tensor.Shape{}))
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// Before the real queue: no types, dequeues wait for it or their context,
// enqueues without a create func fail, and a close is remembered.
func TestLazyBeforeSet(t *testing.T) {
	d := NewLazy("FIFOQueue", "s/bucket_queue_0", 2, nil, nil)
	if d.DTypes() != nil || d.Shapes() != nil || d.Names() != nil || d.Size() != 0 || d.Capacity() != 2 || d.current() != nil {
		t.Errorf("unset queue: %v %v %v %d %d", d.DTypes(), d.Shapes(), d.Names(), d.Size(), d.Capacity())
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := d.DequeueMany(ctx, 2); !errors.Is(err, context.Canceled) {
		t.Errorf("DequeueMany(cancelled): %v", err)
	}
	if err := d.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(t.Context()); !errors.Is(err, queue.ErrClosed) {
		t.Errorf("second Close: %v, want queue.ErrClosed", err)
	}
	if err := d.CloseNow(t.Context()); err != nil {
		t.Errorf("CloseNow: %v", err)
	}
	if err := d.EnqueueMany(t.Context(), queue.Element{tensor.New([]int64{1})}); !errors.Is(err, queue.ErrClosed) {
		t.Errorf("EnqueueMany: %v, want queue.ErrClosed", err)
	}
	for _, f := range []func() error{
		func() error { _, err := d.Dequeue(t.Context()); return err },
		func() error { _, err := d.DequeueMany(t.Context(), 2); return err },
		func() error { _, err := d.DequeueUpTo(t.Context(), 2); return err },
	} {
		if err := f(); !errors.Is(err, io.EOF) {
			t.Errorf("dequeue from a queue closed empty: %v, want io.EOF", err)
		}
	}
	// The real queue arrives after a stop: it is closed at once, so an
	// enqueue fails as into any closed queue.
	q := int64FIFO(t)
	d.Set(q)
	if !q.IsClosed() {
		t.Error("real queue not closed")
	}
	if err := d.Enqueue(t.Context(), queue.Element{tensor.Scalar[int64](1)}); !errors.Is(err, queue.ErrClosed) {
		t.Errorf("Enqueue: %v, want queue.ErrClosed", err)
	}
}

// After Set, the Lazy is the real queue; a second Set changes nothing.
func TestLazyAfterSet(t *testing.T) {
	d := NewLazy("FIFOQueue", "q", 2, nil, nil)
	q := int64FIFO(t)
	d.Set(q)
	d.Set(int64FIFO(t))
	if d.current() != q {
		t.Fatal("second Set replaced the real queue")
	}
	ctx := t.Context()
	if err := d.EnqueueMany(ctx, queue.Element{tensor.New([]int64{1, 2})}); err != nil {
		t.Fatal(err)
	}
	if d.Size() != 2 || d.DTypes()[0] != tensor.Int64 || len(d.Shapes()) != 1 || d.Stats().Enqueued != 2 {
		t.Errorf("size %d dtypes %v shapes %v stats %+v", d.Size(), d.DTypes(), d.Shapes(), d.Stats())
	}
	if e, err := d.Dequeue(ctx); err != nil || e[0].Int64s()[0] != 1 {
		t.Errorf("Dequeue: %v %v", e, err)
	}
	d.Close(ctx)
	if e, err := d.DequeueUpTo(ctx, 2); err != nil || e[0].Len() != 1 {
		t.Errorf("DequeueUpTo: %v %v", e, err)
	}
}

// With a create func the first enqueue makes the real queue from its
// element; a waiting dequeue then gets it. An error from create is the
// enqueue's, and a later enqueue tries again.
func TestLazyCreate(t *testing.T) {
	fail := true
	var made []queue.Element
	d := NewLazy("FIFOQueue", "batch", 2, []string{"x"}, func(first queue.Element) (queue.Queue, error) {
		made = append(made, first)
		if fail {
			return nil, errors.New("bad first element")
		}
		return queue.NewFIFO(2, []tensor.DType{first[0].DType()}, queue.Shapes(first[0].Shape()))
	})
	if got := d.Names(); len(got) != 1 || got[0] != "x" {
		t.Errorf("Names = %q", got)
	}
	if err := d.Enqueue(t.Context(), queue.Element{tensor.Scalar[int64](7)}); err == nil || err.Error() != "bad first element" {
		t.Fatalf("Enqueue with failing create: %v", err)
	}
	got := make(chan queue.Element, 1)
	go func() {
		e, _ := d.Dequeue(t.Context())
		got <- e
	}()
	fail = false
	if err := d.Enqueue(t.Context(), queue.Element{tensor.Scalar[int64](8)}); err != nil {
		t.Fatal(err)
	}
	if e := <-got; e[0].Int64s()[0] != 8 || len(made) != 2 || d.DTypes()[0] != tensor.Int64 {
		t.Errorf("dequeued %v after %d creates", e, len(made))
	}
}
