package queue

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/sluiceml/sluice/tensor"
)

// TestEnqueueManyRows: the rows of an EnqueueMany, held as the batch and
// an index, come out as the elements they were, through a single Dequeue
// and through batch dequeues of every kind, whatever the caller does with
// its slice of tensors after the call.
func TestEnqueueManyRows(t *testing.T) {
	dtypes := []tensor.DType{tensor.Int64, tensor.Float32, tensor.String}
	shapes := Shapes(tensor.Shape{}, tensor.Shape{2}, tensor.Shape{})
	kinds := []struct {
		name string
		make func() (intoQueue, error)
	}{
		{"FIFO", func() (intoQueue, error) { return NewFIFO(10, dtypes, shapes) }},
		{"PaddingFIFO", func() (intoQueue, error) {
			return NewPaddingFIFO(10, dtypes, []tensor.Shape{{}, {2}, {}})
		}},
		{"RandomShuffle", func() (intoQueue, error) { return NewRandomShuffle(10, 0, dtypes, shapes, Seed(3)) }},
		// Component 0, the priority, is the queue's own.
		{"Priority", func() (intoQueue, error) {
			return NewPriority(10, dtypes[1:], Shapes(tensor.Shape{2}, tensor.Shape{}))
		}},
	}
	batch := func() Element {
		return Element{
			tensor.New([]int64{4, 1, 3, 0, 2}),
			tensor.New([]float32{40, 41, 10, 11, 30, 31, 0, 1, 20, 21}, 5, 2),
			tensor.Strings("e", "b", "d", "a", "c"),
		}
	}
	// key identifies an element by all its components.
	key := func(t *testing.T, e Element) string {
		t.Helper()
		p, f, s := e[0].Int64s()[0], e[1].Float32s(), string(e[2].Strings()[0])
		if f[0] != float32(10*p) || f[1] != float32(10*p+1) || s != string(rune('a'+p)) {
			t.Fatalf("element %d, %v, %q mixes rows", p, f, s)
		}
		return s
	}
	for _, k := range kinds {
		for _, via := range []string{"Dequeue", "DequeueMany", "DequeueManyInto", "DequeueUpTo"} {
			t.Run(k.name+"/"+via, func(t *testing.T) {
				q, err := k.make()
				if err != nil {
					t.Fatal(err)
				}
				b := batch()
				if err := q.EnqueueMany(bg, b); err != nil {
					t.Fatal(err)
				}
				// The caller's slice is its own again.
				b[0], b[1], b[2] = tensor.New([]int64{9}), tensor.Tensor{}, tensor.Tensor{}
				if err := q.Close(bg); err != nil {
					t.Fatal(err)
				}
				var got []string
				switch via {
				case "Dequeue":
					for range 5 {
						e, err := q.Dequeue(bg)
						if err != nil {
							t.Fatal(err)
						}
						got = append(got, key(t, e))
					}
				default:
					var out Element
					switch via {
					case "DequeueMany":
						out, err = q.DequeueMany(bg, 5)
					case "DequeueManyInto":
						dst := Element{tensor.Zeros(tensor.Int64, tensor.Shape{5}), tensor.Zeros(tensor.Float32, tensor.Shape{5, 2}), tensor.Zeros(tensor.String, tensor.Shape{5})}
						out, err = q.DequeueManyInto(bg, 5, dst)
					case "DequeueUpTo":
						out, err = q.DequeueUpTo(bg, 7)
					}
					if err != nil {
						t.Fatal(err)
					}
					for i := range out[0].Len() {
						got = append(got, key(t, Element{out[0].Row(i), out[1].Row(i), out[2].Row(i)}))
					}
				}
				if k.name == "FIFO" || k.name == "PaddingFIFO" {
					if want := []string{"e", "b", "d", "a", "c"}; !slices.Equal(got, want) {
						t.Fatalf("got %q, want %q", got, want)
					}
				}
				if k.name == "Priority" {
					if want := []string{"a", "b", "c", "d", "e"}; !slices.Equal(got, want) {
						t.Fatalf("got %q, want %q", got, want)
					}
				}
				slices.Sort(got)
				if want := []string{"a", "b", "c", "d", "e"}; !slices.Equal(got, want) {
					t.Fatalf("got %q, want each of %q once", got, want)
				}
			})
		}
	}
}

// intoQueue is what every queue kind of this package offers.
type intoQueue interface {
	Queue
	DequeueManyInto(ctx context.Context, n int, dst Element) (Element, error)
}

// TestCompletedBatchHandOff: a blocked DequeueManyInto is completed by
// enqueues in other goroutines, which assemble its batch (into its dst)
// before waking it, while its context may end at any moment. Every
// element comes out exactly once: in a batch the dequeue returned, or
// still in the queue after a cancelled one. Run under -race, it also
// checks that the batch written by another goroutine is seen whole.
func TestCompletedBatchHandOff(t *testing.T) {
	const batch, rounds = 4, 200
	for _, kind := range []string{"FIFO", "RandomShuffle"} {
		t.Run(kind, func(t *testing.T) {
			var q intoQueue
			var err error
			if kind == "FIFO" {
				q, err = NewFIFO(64, i32, flat)
			} else {
				q, err = NewRandomShuffle(64, 0, i32, flat, Seed(5))
			}
			if err != nil {
				t.Fatal(err)
			}
			seen := map[int32]int{}
			dst := Element{tensor.Zeros(tensor.Int32, tensor.Shape{batch})}
			next := int32(0)
			for r := range rounds {
				ctx, cancel := context.WithCancel(bg)
				var wg sync.WaitGroup
				for range batch {
					v := next
					next++
					wg.Go(func() {
						if err := q.Enqueue(bg, sc(v)); err != nil {
							t.Error(err)
						}
					})
				}
				if r%3 == 0 {
					wg.Go(cancel)
				}
				out, err := q.DequeueManyInto(ctx, batch, dst)
				wg.Wait()
				cancel()
				switch {
				case errors.Is(err, context.Canceled):
				case err != nil:
					t.Fatal(err)
				default:
					if &out[0].Int32s()[0] != &dst[0].Int32s()[0] {
						t.Fatal("the batch is not in dst")
					}
					for _, v := range out[0].Int32s() {
						seen[v]++
					}
				}
			}
			if err := q.Close(bg); err != nil {
				t.Fatal(err)
			}
			for {
				e, err := q.Dequeue(bg)
				if err != nil {
					break
				}
				seen[e[0].Int32s()[0]]++
			}
			for v := range next {
				if seen[v] != 1 {
					t.Fatalf("element %d seen %d times", v, seen[v])
				}
			}
		})
	}
}
