package queue

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sluiceml/sluice/tensor"
)

// Spec items of PIPELINE.md sections 1–5 that the other test files do not
// cover. Items with no Go meaning: Q-01 (an Element is always a slice;
// names are read with Lookup or ToMap), Q-41 (no static graph shapes; the
// batch's shape is checked instead), Q-55 (no co-scheduled graph ops) and
// PRI-04 (the priority's type is fixed, Int64, so it cannot be a string).

// EnqueueMany components must agree in the batch dimension, with or
// without declared shapes, whichever component disagrees.
func TestEnqueueManyBatchDimMismatch(t *testing.T) {
	three := []tensor.DType{tensor.Int32, tensor.Int32, tensor.Int32}
	free, _ := NewFIFO(10, three)
	shaped, _ := NewFIFO(10, three, Shapes(tensor.Shape{}, tensor.Shape{}, tensor.Shape{}))
	cases := [][]int{{3, 2, 3}, {2, 3, 3}, {3, 3, 2}}
	for _, q := range []*FIFO{free, shaped} {
		for _, lens := range cases {
			b := make(Element, 3)
			for i, n := range lens {
				b[i] = tensor.Zeros(tensor.Int32, tensor.Shape{n})
			}
			err := q.EnqueueMany(bg, b)
			if !errors.Is(err, ErrInvalidArgument) {
				t.Errorf("lengths %v: err = %v", lens, err)
			}
			if q.Size() != 0 {
				t.Fatalf("lengths %v: rejected batch inserted %d elements", lens, q.Size())
			}
		}
	}
}

// reading the size never consumes.
func TestSizeDoesNotConsume(t *testing.T) {
	q := mustFIFO(t, 1)
	q.Enqueue(bg, sc(7))
	for i := range 500 {
		if n := q.Size(); n != 1 {
			t.Fatalf("read %d: size %d", i, n)
		}
	}
	if val(q.Dequeue(bg)) != 7 {
		t.Fatal("element changed")
	}
}

// Q-20, FIFO-08: a dequeue on an empty queue blocks until elements come;
// so do DequeueMany and DequeueUpTo until the whole batch is there.
func TestDequeueBlocksUntilEnqueue(t *testing.T) {
	type deq func(q *FIFO) []int32
	ops := map[string]deq{
		"Dequeue":     func(q *FIFO) []int32 { return []int32{val(q.Dequeue(bg))} },
		"DequeueMany": func(q *FIFO) []int32 { return vals(q.DequeueMany(bg, 4)) },
		"DequeueUpTo": func(q *FIFO) []int32 { return vals(q.DequeueUpTo(bg, 4)) },
	}
	for name, op := range ops {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				q := mustFIFO(t, 10)
				res := make(chan []int32, 1)
				go func() { res <- op(q) }()
				time.Sleep(time.Second) // virtual time: the consumer has long been waiting
				synctest.Wait()
				if len(res) != 0 {
					t.Fatal("returned from an empty queue")
				}
				q.EnqueueMany(bg, vec(10, 20, 30, 40))
				got := <-res
				if !slices.Equal(got, []int32{10, 20, 30, 40}[:len(got)]) || (name != "Dequeue" && len(got) != 4) {
					t.Fatalf("got %v", got)
				}
			})
		})
	}
}

// blocked calls are served strictly in arrival order per direction.
// A blocked DequeueMany at the head absorbs new elements before a later
// Dequeue gets any, and a blocked EnqueueMany at the head finishes before
// a later Enqueue inserts.
func TestArrivalOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := mustFIFO(t, 2)
		many := make(chan []int32, 1)
		one := make(chan int32, 1)
		go func() { many <- vals(q.DequeueMany(bg, 3)) }()
		synctest.Wait()
		go func() { one <- val(q.Dequeue(bg)) }()
		synctest.Wait()
		for i := range int32(4) {
			q.Enqueue(bg, sc(i))
		}
		if got := <-many; !slices.Equal(got, []int32{0, 1, 2}) {
			t.Fatalf("head DequeueMany got %v", got)
		}
		if got := <-one; got != 3 {
			t.Fatalf("later Dequeue got %d", got)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		q := mustFIFO(t, 2)
		q.EnqueueMany(bg, vec(1, 2))
		many := make(chan error, 1)
		one := make(chan error, 1)
		go func() { many <- q.EnqueueMany(bg, vec(3, 4, 5)) }()
		synctest.Wait()
		go func() { one <- q.Enqueue(bg, sc(6)) }()
		synctest.Wait()
		var got []int32
		for range 6 {
			got = append(got, val(q.Dequeue(bg)))
		}
		if err := errors.Join(<-many, <-one); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, []int32{1, 2, 3, 4, 5, 6}) {
			t.Fatalf("order %v", got)
		}
	})
}

// the count of DequeueMany and DequeueUpTo may come from data, here
// another queue.
func TestDequeueCountFromQueue(t *testing.T) {
	counts, _ := NewFIFO(10, []tensor.DType{tensor.Int32}, Shapes(tensor.Shape{}))
	counts.EnqueueMany(bg, vec(2, 3))
	q := mustFIFO(t, 10)
	q.EnqueueMany(bg, vec(1, 2, 3, 4, 5))
	n := int(val(counts.Dequeue(bg)))
	if got := vals(q.DequeueMany(bg, n)); !slices.Equal(got, []int32{1, 2}) {
		t.Fatalf("DequeueMany: %v", got)
	}
	n = int(val(counts.Dequeue(bg)))
	if got := vals(q.DequeueUpTo(bg, n)); !slices.Equal(got, []int32{3, 4, 5}) {
		t.Fatalf("DequeueUpTo: %v", got)
	}
}

// a non-cancel Close queued behind blocked enqueues is cancelled by
// a CloseNow, along with the enqueues, and in TensorFlow 2.21's words for
// them: "Enqueue operation was cancelled" (an attempt of the enqueue
// list).
func TestCancelCloseCancelsQueuedClose(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := mustFIFO(t, 1)
		q.Enqueue(bg, sc(1))
		enq := make(chan error, 1)
		closed := make(chan error, 1)
		go func() { enq <- q.Enqueue(bg, sc(2)) }()
		synctest.Wait()
		go func() { closed <- q.Close(bg) }()
		synctest.Wait()
		if q.IsClosed() {
			t.Fatal("Q-56: IsClosed true while the close waits behind an enqueue")
		}
		if err := q.CloseNow(bg); err != nil {
			t.Fatal(err)
		}
		for _, c := range []chan error{enq, closed} {
			if err := <-c; !errors.Is(err, ErrCancelled) || !strings.HasPrefix(err.Error(), "Enqueue operation was cancelled") {
				t.Fatalf("err = %v", err)
			}
		}
		if val(q.Dequeue(bg)) != 1 {
			t.Fatal("element inserted before the close lost")
		}
		if _, err := q.Dequeue(bg); !isEOF(err) {
			t.Fatalf("after drain: %v", err)
		}
	})
}

// DequeueUpTo on a closed queue still serves the enqueues that were
// ahead of the close, rather than failing while they are pending.
func TestUpToWaitsForEnqueuesAheadOfClose(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := mustFIFO(t, 2)
		q.EnqueueMany(bg, vec(1, 2))
		enq := make(chan error, 1)
		go func() { enq <- q.EnqueueMany(bg, vec(3, 4, 5)) }()
		synctest.Wait()
		closed := make(chan error, 1)
		go func() { closed <- q.Close(bg) }()
		synctest.Wait()
		var got []int32
		for {
			b, err := q.DequeueUpTo(bg, 2)
			if isEOF(err) {
				break
			}
			got = append(got, vals(b, err)...)
		}
		if err := errors.Join(<-enq, <-closed); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, []int32{1, 2, 3, 4, 5}) {
			t.Fatalf("got %v", got)
		}
	})
}

// FIFO-05, PAD-05: high-rank elements round-trip unchanged, also through a
// padding queue whose elements need no padding.
func TestHighRankRoundTrip(t *testing.T) {
	data := make([]float32, 10*4*4*4*4)
	for i := range data {
		data[i] = float32(i)
	}
	in := tensor.New(data, 10, 4, 4, 4, 4)
	fifo, _ := NewFIFO(10, f32, Shapes(tensor.Shape{4, 4, 4, 4}))
	pad, _ := NewPaddingFIFO(10, f32, []tensor.Shape{{4, tensor.Unknown, 4, tensor.Unknown}})
	for _, q := range []Queue{fifo, pad} {
		if err := q.EnqueueMany(bg, Element{in}); err != nil {
			t.Fatal(err)
		}
		out, err := q.DequeueMany(bg, 10)
		if err != nil || !tensor.Equal(out[0], in) {
			t.Fatalf("%T: %v", q, err)
		}
	}
}

// PAD-07: the padding queue has the FIFO's order, close and cancel rules,
// and TensorFlow 2.21's messages: the FIFOQueue's for enqueues and single
// dequeues, which it inherits, its own name in those of its DequeueMany
// and DequeueUpTo.
func TestPaddingFIFOBehavesAsFIFO(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q, _ := NewPaddingFIFO(2, i32, []tensor.Shape{{tensor.Unknown}}, Name("pq"))
		q.Enqueue(bg, vec(1))
		q.Enqueue(bg, vec(2, 2))
		enq := make(chan error, 1)
		go func() { enq <- q.Enqueue(bg, vec(3, 3, 3)) }()
		synctest.Wait()
		closed := make(chan error, 1)
		go func() { closed <- q.Close(bg) }()
		synctest.Wait()
		if len(closed) != 0 {
			t.Fatal("close did not wait for the pending enqueue")
		}
		if e, _ := q.Dequeue(bg); !slices.Equal(e[0].Int32s(), []int32{1}) {
			t.Fatalf("first %v", e)
		}
		if err := errors.Join(<-enq, <-closed); err != nil {
			t.Fatal(err)
		}
		if err := q.Enqueue(bg, vec(4)); !errors.Is(err, ErrClosed) || !strings.HasPrefix(err.Error(), "FIFOQueue 'pq' is closed.") {
			t.Fatalf("enqueue after close: %v", err)
		}
		b, err := q.DequeueUpTo(bg, 5)
		if err != nil || !tensor.Equal(b[0], tensor.New([]int32{2, 2, 0, 3, 3, 3}, 2, 3)) {
			t.Fatalf("padded remainder %v, %v", b, err)
		}
		_, err = q.DequeueMany(bg, 1)
		if !isEOF(err) || !strings.HasPrefix(err.Error(), "PaddingFIFOQueue 'pq' is closed and has insufficient elements (requested 1, current size 0)") {
			t.Fatalf("end of input: %v", err)
		}
		_, err = q.Dequeue(bg)
		if !isEOF(err) || !strings.HasPrefix(err.Error(), "FIFOQueue 'pq' is closed and has insufficient elements (requested 1, current size 0)") {
			t.Fatalf("end of input, one element: %v", err)
		}
	})
}

// RSQ-07, RSQ-08: a closed RandomShuffle queue refuses enqueues, and a
// closed empty one ends batches with end of input despite min_after_dequeue.
func TestShuffleClosed(t *testing.T) {
	q := mustShuffle(t, 10, 5, Name("rq"))
	q.Close(bg)
	if _, err := q.DequeueMany(bg, 4); !isEOF(err) || !strings.Contains(err.Error(), "RandomShuffleQueue 'rq' is closed and has insufficient elements (requested 4, current size 0)") {
		t.Fatalf("RSQ-07 DequeueMany: %v", err)
	}
	if _, err := q.DequeueUpTo(bg, 4); !isEOF(err) {
		t.Fatalf("RSQ-07 DequeueUpTo: %v", err)
	}
	for _, err := range []error{q.Enqueue(bg, sc(1)), q.EnqueueMany(bg, vec(1, 2))} {
		if !errors.Is(err, ErrClosed) || !strings.Contains(err.Error(), "RandomShuffleQueue 'rq' is closed.") {
			t.Fatalf("RSQ-08: %v", err)
		}
	}
}

// RSQ-10: a non-cancel Close waits behind a blocked EnqueueMany, which
// completes after a dequeue makes room; then enqueues fail.
func TestShuffleCloseWaitsForEnqueue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := mustShuffle(t, 4, 0)
		q.EnqueueMany(bg, vec(10, 20, 30))
		enq := make(chan error, 1)
		go func() { enq <- q.EnqueueMany(bg, vec(50, 60)) }()
		synctest.Wait()
		if q.Size() != 4 {
			t.Fatalf("50 not inserted at once: size %d", q.Size())
		}
		closed := make(chan error, 1)
		go func() { closed <- q.Close(bg) }()
		synctest.Wait()
		if len(closed) != 0 || len(enq) != 0 {
			t.Fatal("close or enqueue finished before a dequeue")
		}
		got := []int32{val(q.Dequeue(bg))}
		if err := errors.Join(<-enq, <-closed); err != nil {
			t.Fatal(err)
		}
		if err := q.EnqueueMany(bg, vec(70)); !errors.Is(err, ErrClosed) {
			t.Fatalf("enqueue after close: %v", err)
		}
		got = append(got, vals(q.DequeueUpTo(bg, 10))...)
		slices.Sort(got)
		if !slices.Equal(got, []int32{10, 20, 30, 50, 60}) {
			t.Fatalf("got %v", got)
		}
	})
}

// RSQ-14: a RandomShuffle queue makes partial progress as a FIFO does
// preserving the multiset.
func TestShufflePartialProgress(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := mustShuffle(t, 5, 0)
		enq := make(chan error, 1)
		go func() { enq <- q.EnqueueMany(bg, vec(1, 2, 3, 4, 5, 6, 7, 8, 9, 10)) }()
		synctest.Wait()
		if q.Size() != 5 {
			t.Fatalf("size %d, want 5", q.Size())
		}
		got := vals(q.DequeueMany(bg, 10))
		if err := <-enq; err != nil {
			t.Fatal(err)
		}
		slices.Sort(got)
		if !slices.Equal(got, []int32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}) {
			t.Fatalf("got %v", got)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		q := mustShuffle(t, 2, 0)
		res := make(chan []int32, 1)
		go func() { res <- vals(q.DequeueMany(bg, 4)) }()
		for i := range int32(4) {
			synctest.Wait()
			if len(res) != 0 {
				t.Fatal("returned before four elements")
			}
			q.Enqueue(bg, sc(i))
		}
		got := <-res
		slices.Sort(got)
		if !slices.Equal(got, []int32{0, 1, 2, 3}) {
			t.Fatalf("got %v", got)
		}
	})
}

// PRI-01: the priority is component 0 of every element, before the
// components the queue was declared with; EnqueueMany takes a vector of
// priorities. The priority is checked even without declared shapes.
func TestPriorityLayout(t *testing.T) {
	q, err := NewPriority(10, []tensor.DType{tensor.String, tensor.Float32}, Names("s", "f"))
	if err != nil {
		t.Fatal(err)
	}
	if d := q.DTypes(); !slices.Equal(d, []tensor.DType{tensor.Int64, tensor.String, tensor.Float32}) {
		t.Fatalf("DTypes %v", d)
	}
	if n := q.Names(); !slices.Equal(n, []string{"priority", "s", "f"}) {
		t.Fatalf("Names %v", n)
	}
	err = q.EnqueueMany(bg, Element{tensor.New([]int64{3, -1}), tensor.Strings("c", "a"), tensor.New([]float32{3, 1})})
	if err != nil {
		t.Fatal(err)
	}
	q.Enqueue(bg, Element{tensor.Scalar(int64(2)), tensor.StringScalar("b"), tensor.Scalar(float32(2))})
	for _, want := range []string{"a", "b", "c"} {
		e, err := q.Dequeue(bg)
		if err != nil {
			t.Fatal(err)
		}
		if s, _ := Lookup(q, e, "s"); string(s.Strings()[0]) != want {
			t.Fatalf("got %q, want %q", s.Strings()[0], want)
		}
	}
	for _, bad := range []Element{
		{tensor.New([]int64{}), tensor.StringScalar("x"), tensor.Scalar(float32(0))},
		{tensor.Scalar(int32(1)), tensor.StringScalar("x"), tensor.Scalar(float32(0))},
	} {
		if err := q.Enqueue(bg, bad); !errors.Is(err, ErrInvalidArgument) {
			t.Fatalf("bad priority %v: %v", bad[0], err)
		}
	}
	if err := q.EnqueueMany(bg, Element{tensor.Scalar(int64(1)), tensor.Strings("x"), tensor.New([]float32{1})}); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("scalar priorities for a batch: %v", err)
	}
	if _, err := NewPriority(10, f32, Shapes(tensor.Shape{2}, tensor.Shape{})); err == nil {
		t.Fatal("shapes for more components than types accepted")
	}
}

// Stats count elements and the time blocked calls waited (virtual time).
func TestStats(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := mustFIFO(t, 1)
		done := make(chan Element, 1)
		go func() {
			e, _ := q.Dequeue(bg)
			done <- e
		}()
		time.Sleep(3 * time.Second)
		q.Enqueue(bg, sc(1))
		<-done
		q.Enqueue(bg, sc(2))
		go func() { q.Enqueue(bg, sc(3)) }()
		time.Sleep(2 * time.Second)
		q.Dequeue(bg)
		synctest.Wait()
		s := q.Stats()
		if s.Enqueued != 3 || s.Dequeued != 2 {
			t.Fatalf("counts %+v", s)
		}
		if s.DequeueBlocked != 3*time.Second || s.EnqueueBlocked != 2*time.Second {
			t.Fatalf("blocked times %+v", s)
		}
		// A cancelled DequeueMany gives back what it absorbed, and the
		// counts with it.
		ctx, cancel := context.WithCancel(bg)
		go func() { q.DequeueMany(ctx, 5) }()
		synctest.Wait()
		cancel()
		synctest.Wait()
		if s := q.Stats(); s.Dequeued != 2 || q.Size() != 1 {
			t.Fatalf("after cancelled DequeueMany: %+v, size %d", s, q.Size())
		}
	})
}

// DequeueManyInto reuses the caller's batch when it fits and allocates
// components that do not.
func TestDequeueManyInto(t *testing.T) {
	q, _ := NewFIFO(10, []tensor.DType{tensor.Int32, tensor.Float32}, Shapes(tensor.Shape{2}, tensor.Shape{}))
	for i := range int32(6) {
		q.Enqueue(bg, Element{tensor.New([]int32{i, -i}), tensor.Scalar(float32(i))})
	}
	dst := Element{tensor.Zeros(tensor.Int32, tensor.Shape{3, 2}), tensor.Zeros(tensor.Float32, tensor.Shape{4})}
	keep := dst[0].Int32s()
	b, err := q.DequeueManyInto(bg, 3, dst)
	if err != nil {
		t.Fatal(err)
	}
	if &b[0] != &dst[0] || &b[0].Int32s()[0] != &keep[0] {
		t.Fatal("fitting component not written in place")
	}
	if !slices.Equal(keep, []int32{0, 0, 1, -1, 2, -2}) || !slices.Equal(b[1].Float32s(), []float32{0, 1, 2}) {
		t.Fatalf("batch %v", b)
	}
	b, err = q.DequeueManyInto(bg, 3, b)
	if err != nil || &b[0].Int32s()[0] != &keep[0] || !slices.Equal(keep, []int32{3, -3, 4, -4, 5, -5}) ||
		!slices.Equal(b[1].Float32s(), []float32{3, 4, 5}) {
		t.Fatalf("second batch %v, %v", b, err)
	}
	q.Close(bg)
	if _, err := q.DequeueManyInto(bg, 3, b); !isEOF(err) || keep[0] != 3 {
		t.Fatalf("at end of input: %v, dst changed to %v", err, keep)
	}
}

// RSQ-12: seed 0 seeds from the clock, so two unseeded queues draw
// different orders (100 elements: equal orders have probability 1/100!).
func TestShuffleUnseededDiffers(t *testing.T) {
	order := func() []int32 {
		q := mustShuffle(t, 100, 0)
		all := make([]int32, 100)
		for i := range all {
			all[i] = int32(i)
		}
		q.EnqueueMany(bg, vec(all...))
		return vals(q.DequeueMany(bg, 100))
	}
	if a, b := order(), order(); slices.Equal(a, b) {
		t.Fatalf("two unseeded queues drew the same order %v", a)
	}
}

// PRI-02, PRI-03: priorities enqueued from 40 goroutines in batches of 5
// come out sorted through single dequeues, each value still with its
// priority.
func TestPriorityConcurrentSingleDequeues(t *testing.T) {
	q, _ := NewPriority(1000, i32, flat)
	var wg sync.WaitGroup
	for g := range 40 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(g), 5))
			p := make([]int64, 5)
			v := make([]int32, 5)
			for i := range p {
				p[i] = int64(r.IntN(200) - 100)
				v[i] = int32(p[i]) * 3
			}
			if err := q.EnqueueMany(bg, Element{tensor.New(p), tensor.New(v)}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	var prev int64 = -1 << 62
	for range 200 {
		e, err := q.Dequeue(bg)
		if err != nil {
			t.Fatal(err)
		}
		p, v := e[0].Int64s()[0], e[1].Int32s()[0]
		if p < prev || int32(p)*3 != v {
			t.Fatalf("priority %d after %d, value %d", p, prev, v)
		}
		prev = p
	}
	if q.Size() != 0 {
		t.Fatalf("%d left", q.Size())
	}
}

// TestQ28PartialBatchEOFMessage: the end of input of a DequeueMany that
// had taken part of its batch when the queue was closed (Q-28, Q-33,
// Q-34) counts, as TensorFlow's does, the elements still missing and the
// queue's size before the taken ones are given back; they are all back
// afterwards. TensorFlow 2.21, for each of its kinds that take a waiting
// batch's elements as they come: [10 20 30 40], DequeueMany(3), then a
// blocked DequeueMany(3) closed with 1 taken; and [1 2 3], a blocked
// DequeueMany(5) closed with 3 taken: both "(requested 2, current size
// 0)".
func TestQ28PartialBatchEOFMessage(t *testing.T) {
	kinds := []struct {
		name string
		make func() (local, error)
	}{
		{"FIFOQueue", func() (local, error) { return NewFIFO(10, i32, flat, Name("q")) }},
		{"PaddingFIFOQueue", func() (local, error) {
			return NewPaddingFIFO(10, i32, []tensor.Shape{{}}, Name("q"))
		}},
		{"RandomShuffleQueue", func() (local, error) { return NewRandomShuffle(10, 0, i32, flat, Name("q"), Seed(1)) }},
	}
	cases := []struct {
		name     string
		in       []int32
		first, n int // a DequeueMany(first) that succeeds, then the blocked DequeueMany(n)
		left     int
	}{
		{"Q-33", []int32{10, 20, 30, 40}, 3, 3, 1},
		{"Q-34", []int32{1, 2, 3}, 0, 5, 3},
	}
	for _, k := range kinds {
		for _, c := range cases {
			t.Run(k.name+"/"+c.name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					q, err := k.make()
					if err != nil {
						t.Fatal(err)
					}
					q.EnqueueMany(bg, vec(c.in...))
					if c.first > 0 {
						if _, err := q.DequeueMany(bg, c.first); err != nil {
							t.Fatal(err)
						}
					}
					errc := make(chan error, 1)
					go func() { _, err := q.DequeueMany(bg, c.n); errc <- err }()
					synctest.Wait()
					q.Close(bg)
					want := k.name + " 'q' is closed and has insufficient elements (requested 2, current size 0)"
					if err := <-errc; !isEOF(err) || !strings.Contains(err.Error(), want) {
						t.Fatalf("got %v; TensorFlow: %s", err, want)
					}
					if q.Size() != c.left {
						t.Fatalf("size %d afterwards, TensorFlow %d", q.Size(), c.left)
					}
				})
			})
		}
	}
}

// TestQ42CancelledEnqueueManyKeepsRows: the one exception to a cancelled
// call leaving the queue unchanged (the Queue doc): rows a cancelled
// EnqueueMany had inserted stay, as in TensorFlow, whose timed-out
// enqueue_many of 1..10 into a queue of capacity 5 leaves 1..5 queued
// (enqueue_many_partial in testdata/queues_tf.json).
func TestQ42CancelledEnqueueManyKeepsRows(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := mustFIFO(t, 2)
		ctx, cancel := context.WithTimeout(bg, time.Millisecond)
		defer cancel()
		if err := q.EnqueueMany(ctx, vec(1, 2, 3)); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatal(err)
		}
		if got := vals(q.DequeueMany(bg, q.Size())); !slices.Equal(got, []int32{1, 2}) {
			t.Fatalf("queued after the cancelled EnqueueMany: %v, want [1 2]", got)
		}
	})
}
