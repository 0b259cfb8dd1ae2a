package queue

import (
	"context"
	"errors"
	"io"
	"slices"
	"testing"
	"time"

	"github.com/sluiceml/sluice/tensor"
)

// TestRecycle: a queue with Recycle hands over exactly the elements its
// batch dequeues copied into batches, each once and after the copy, never
// an element a single Dequeue returned or a failed dequeue took back; and
// it refuses EnqueueMany.
func TestRecycle(t *testing.T) {
	kinds := []struct {
		name string
		make func(opts ...Option) (Queue, error)
	}{
		{"FIFO", func(opts ...Option) (Queue, error) { return NewFIFO(10, i32, append(opts, flat)...) }},
		{"PaddingFIFO", func(opts ...Option) (Queue, error) {
			return NewPaddingFIFO(10, i32, []tensor.Shape{{}}, opts...)
		}},
		{"RandomShuffle", func(opts ...Option) (Queue, error) {
			return NewRandomShuffle(10, 2, i32, append(opts, flat, Seed(7))...)
		}},
		{"Priority", func(opts ...Option) (Queue, error) { return NewPriority(10, i32, append(opts, flat)...) }},
	}
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			var freed []Element
			var batches []Element
			q, err := k.make(Recycle(func(elems []Element) {
				// Called after the copy: the batch already holds the
				// elements' values, so overwriting them must not show.
				freed = append(freed, elems...)
				for _, e := range elems {
					e[len(e)-1].Int32s()[0] = -1
				}
			}))
			if err != nil {
				t.Fatal(err)
			}
			elem := func(v int32) Element {
				if k.name == "Priority" {
					return Element{tensor.Scalar(int64(v)), tensor.Scalar(v)}
				}
				return Element{tensor.Scalar(v)}
			}
			var in []Element
			for v := range int32(8) {
				e := elem(v)
				in = append(in, e)
				if err := q.Enqueue(bg, e); err != nil {
					t.Fatal(err)
				}
			}
			if err := q.EnqueueMany(bg, Element{tensor.New([]int32{1, 2})}); !errors.Is(err, ErrInvalidArgument) {
				t.Fatalf("EnqueueMany: %v, want ErrInvalidArgument", err)
			}
			single, err := q.Dequeue(bg)
			if err != nil {
				t.Fatal(err)
			}
			b, err := q.DequeueMany(bg, 3)
			if err != nil {
				t.Fatal(err)
			}
			batches = append(batches, b)
			// A dequeue that cannot be served and is cancelled takes
			// nothing for good: nothing is freed.
			ctx, cancel := context.WithTimeout(bg, 10*time.Millisecond)
			if _, err := q.DequeueMany(ctx, 5); !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("DequeueMany(5) of 4 with a timeout: %v", err)
			}
			cancel()
			if len(freed) != 3 {
				t.Fatalf("%d elements freed after one batch of 3, want 3", len(freed))
			}
			q.Close(bg)
			b, err = q.DequeueUpTo(bg, 10)
			if err != nil {
				t.Fatal(err)
			}
			batches = append(batches, b)
			if _, err := q.DequeueUpTo(bg, 10); !errors.Is(err, io.EOF) {
				t.Fatalf("DequeueUpTo of a drained queue: %v", err)
			}
			// Every element but the single one was freed, once.
			if len(freed) != 7 {
				t.Fatalf("%d elements freed, want 7", len(freed))
			}
			for _, e := range freed {
				if &e[0] == &single[0] {
					t.Fatal("the element of a single Dequeue was freed")
				}
				if !slices.ContainsFunc(in, func(x Element) bool { return &x[0] == &e[0] }) {
					t.Fatal("a freed element is not one that was enqueued")
				}
			}
			var seen []int32
			for _, b := range batches {
				for _, v := range b[len(b)-1].Int32s() {
					if v < 0 {
						t.Fatalf("a batch shows a value written after its elements were freed: %v", b)
					}
					seen = append(seen, v)
				}
			}
			seen = append(seen, single[len(single)-1].Int32s()[0])
			slices.Sort(seen)
			if !slices.Equal(seen, []int32{0, 1, 2, 3, 4, 5, 6, 7}) {
				t.Fatalf("values delivered %v, want 0..7 once each", seen)
			}
		})
	}
}
