package queue

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/sluiceml/sluice/tensor"
)

// prioElems is a batch of (priority, value) elements for a Priority queue
// of one Int32 component.
type prioElems struct {
	p []int64
	v []int32
}

func (e prioElems) element() Element { return Element{tensor.New(e.p), tensor.New(e.v)} }

// enqueue puts e in q: with Enqueue if it is one element, as TensorFlow's
// scenarios did, else with EnqueueMany.
func (e prioElems) enqueue(t *testing.T, q *Priority) {
	t.Helper()
	var err error
	if len(e.p) == 1 {
		err = q.Enqueue(bg, Element{tensor.Scalar(e.p[0]), tensor.Scalar(e.v[0])})
	} else {
		err = q.EnqueueMany(bg, e.element())
	}
	if err != nil {
		t.Fatal(err)
	}
}

func mustPriority(t *testing.T, capacity int) *Priority {
	t.Helper()
	q, err := NewPriority(capacity, i32, flat, Name("pq"))
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// dequeueBatch is DequeueUpTo if upTo, else DequeueMany.
func dequeueBatch(ctx context.Context, q Queue, n int, upTo bool) (Element, error) {
	if upTo {
		return q.DequeueUpTo(ctx, n)
	}
	return q.DequeueMany(ctx, n)
}

type batchResult struct {
	b   Element
	err error
}

// goDequeue starts a batch dequeue in a goroutine of its own and returns
// where its result comes.
func goDequeue(ctx context.Context, q Queue, n int, upTo bool) <-chan batchResult {
	c := make(chan batchResult, 1)
	go func() {
		b, err := dequeueBatch(ctx, q, n, upTo)
		c <- batchResult{b, err}
	}()
	return c
}

// TestPRI02BlockedBatchIsSmallestInOrder: a Priority queue's DequeueMany
// or DequeueUpTo that has to wait takes nothing until the queue holds its
// whole batch, then takes the n smallest, in order (PRI-02, PRI-03); while
// it waits, Size counts the elements queued. The values are TensorFlow
// 2.21's (tf.compat.v1.PriorityQueue, the dequeue run in a thread and the
// enqueues after it, 0.3–0.5 s apart).
func TestPRI02BlockedBatchIsSmallestInOrder(t *testing.T) {
	tests := []struct {
		name     string
		before   prioElems   // queued before the dequeue
		n        int         // dequeued
		upTo     bool        // with DequeueUpTo
		then     []prioElems // enqueued while it waits, in turn
		waitSize int         // Size before the last of then
		want     prioElems   // the batch
		left     int         // Size afterwards
	}{{
		name: "many(2), 5 then 1",
		n:    2,
		then: []prioElems{{[]int64{5}, []int32{50}}, {[]int64{1}, []int32{10}}},
		want: prioElems{[]int64{1, 5}, []int32{10, 50}}, waitSize: 1,
	}, {
		name: "many(3), 5, 4, then many [3 2 1]",
		n:    3,
		then: []prioElems{{[]int64{5}, []int32{50}}, {[]int64{4}, []int32{40}}, {[]int64{3, 2, 1}, []int32{30, 20, 10}}},
		want: prioElems{[]int64{1, 2, 3}, []int32{10, 20, 30}}, waitSize: 2, left: 2,
	}, {
		name: "up to 3, 9, 2, then many [7 1]",
		n:    3, upTo: true,
		then: []prioElems{{[]int64{9}, []int32{90}}, {[]int64{2}, []int32{20}}, {[]int64{7, 1}, []int32{70, 10}}},
		want: prioElems{[]int64{1, 2, 7}, []int32{10, 20, 70}}, waitSize: 2, left: 1,
	}, {
		// Equal priorities leave in insertion order.
		name:   "many(3), equal priorities",
		before: prioElems{[]int64{1, 1}, []int32{100, 200}},
		n:      3,
		then:   []prioElems{{[]int64{1}, []int32{300}}},
		want:   prioElems{[]int64{1, 1, 1}, []int32{100, 200, 300}}, waitSize: 2,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				q := mustPriority(t, 10)
				if tt.before.p != nil {
					tt.before.enqueue(t, q)
				}
				got := goDequeue(bg, q, tt.n, tt.upTo)
				for i, e := range tt.then {
					synctest.Wait()
					if i == len(tt.then)-1 {
						if s := q.Size(); s != tt.waitSize {
							t.Errorf("Size while the batch waits: %d, TensorFlow %d", s, tt.waitSize)
						}
						select {
						case r := <-got:
							t.Fatalf("the batch returned early: %v, %v", r.b, r.err)
						default:
						}
					}
					e.enqueue(t, q)
				}
				r := <-got
				if r.err != nil {
					t.Fatal(r.err)
				}
				if p, v := r.b[0].Int64s(), r.b[1].Int32s(); !slices.Equal(p, tt.want.p) || !slices.Equal(v, tt.want.v) {
					t.Errorf("batch %v %v, TensorFlow %v %v", p, v, tt.want.p, tt.want.v)
				}
				if s := q.Size(); s != tt.left {
					t.Errorf("Size afterwards %d, TensorFlow %d", s, tt.left)
				}
			})
		})
	}
}

// TestPRI02BlockedBatchAtClose: a Priority queue's batch waiting when the
// queue is closed. TensorFlow 2.21's
// messages and sizes, except where noted: TensorFlow's PriorityQueue
// takes what is left for a DequeueUpTo into a batch of n, finds the queue
// empty and fails, "(requested n-left, current size 0)", dropping the
// elements; sluice returns them, as its other kinds and TensorFlow's do
// (CONFORMANCE.md).
func TestPRI02BlockedBatchAtClose(t *testing.T) {
	tests := []struct {
		name     string
		before   prioElems
		n        int
		upTo     bool
		closed   bool    // closed before the dequeue
		now      bool    // CloseNow rather than Close
		want     []int32 // the batch's values; nil: an error
		wantErr  string
		left     []int32 // single dequeues afterwards
		tfDiffer bool    // TensorFlow 2.21 drops the elements (see above)
	}{{
		name:    "many(3) with 2",
		before:  prioElems{[]int64{3, 1}, []int32{30, 10}},
		n:       3,
		wantErr: "PriorityQueue 'pq' is closed and has insufficient elements (requested 3, current size 2)",
		left:    []int32{10, 30},
	}, {
		// TensorFlow (tf/check2.py): equal priorities are dequeued in
		// insertion order afterwards.
		name:    "many(3) with 2 of equal priority",
		before:  prioElems{[]int64{1, 1}, []int32{100, 200}},
		n:       3,
		wantErr: "(requested 3, current size 2)",
		left:    []int32{100, 200},
	}, {
		name: "up to 3 on empty",
		n:    3, upTo: true,
		wantErr: "PriorityQueue 'pq' is closed and has insufficient elements (requested 3, current size 0)",
	}, {
		name:   "up to 3 with 2",
		before: prioElems{[]int64{3, 1}, []int32{30, 10}},
		n:      3, upTo: true,
		want: []int32{10, 30}, tfDiffer: true,
	}, {
		name:   "up to 3 with 2, CloseNow",
		before: prioElems{[]int64{3, 1}, []int32{30, 10}},
		n:      3, upTo: true, now: true,
		want: []int32{10, 30}, tfDiffer: true,
	}, {
		name:   "up to 3 with 2, closed before",
		before: prioElems{[]int64{3, 1}, []int32{30, 10}},
		n:      3, upTo: true, closed: true,
		want: []int32{10, 30}, tfDiffer: true,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				q := mustPriority(t, 10)
				if tt.before.p != nil {
					tt.before.enqueue(t, q)
				}
				if tt.closed {
					closeQueue(bg, q, tt.now)
				}
				got := goDequeue(bg, q, tt.n, tt.upTo)
				synctest.Wait()
				if !tt.closed {
					if s := q.Size(); s != len(tt.before.p) {
						t.Errorf("Size while the batch waits: %d, TensorFlow %d", s, len(tt.before.p))
					}
					closeQueue(bg, q, tt.now)
				}
				r := <-got
				switch {
				case tt.want != nil:
					if r.err != nil || !slices.Equal(r.b[1].Int32s(), tt.want) {
						t.Fatalf("got %v, %v; want %v", r.b, r.err, tt.want)
					}
				case !isEOF(r.err) || !strings.Contains(r.err.Error(), tt.wantErr):
					t.Fatalf("got %v, %v; TensorFlow: %s", r.b, r.err, tt.wantErr)
				}
				var left []int32
				for q.Size() > 0 {
					e, err := q.Dequeue(bg)
					if err != nil {
						t.Fatal(err)
					}
					left = append(left, e[1].Int32s()[0])
				}
				if !slices.Equal(left, tt.left) {
					t.Errorf("left %v, TensorFlow %v", left, tt.left)
				}
			})
		})
	}
}

// TestPRI02BlockedBatchesServedInArrivalOrder: only the first blocked
// dequeue of a Priority queue is served, as for every kind: a
// second, smaller one waits behind it even when the queue could serve it.
// TensorFlow 2.21: DequeueMany(3), then DequeueMany(1), both blocked;
// enqueue 5: both still blocked, size 1; enqueue_many [4 3]: the first
// gets [3 4 5], the second still waits.
func TestPRI02BlockedBatchesServedInArrivalOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := mustPriority(t, 10)
		first := goDequeue(bg, q, 3, false)
		synctest.Wait()
		second := goDequeue(bg, q, 1, false)
		synctest.Wait()
		prioElems{[]int64{5}, []int32{50}}.enqueue(t, q)
		synctest.Wait()
		if len(first) != 0 || len(second) != 0 || q.Size() != 1 {
			t.Fatalf("after one element: first done %v, second done %v, size %d; TensorFlow: both wait, size 1",
				len(first) != 0, len(second) != 0, q.Size())
		}
		prioElems{[]int64{4, 3}, []int32{40, 30}}.enqueue(t, q)
		r := <-first
		if r.err != nil || !slices.Equal(r.b[0].Int64s(), []int64{3, 4, 5}) {
			t.Fatalf("first: %v, %v; TensorFlow [3 4 5]", r.b, r.err)
		}
		synctest.Wait()
		if len(second) != 0 {
			t.Fatal("second returned on an empty queue")
		}
		prioElems{[]int64{7}, []int32{70}}.enqueue(t, q)
		if r := <-second; r.err != nil || r.b[0].Int64s()[0] != 7 {
			t.Fatalf("second: %v, %v", r.b, r.err)
		}
	})
}

// TestQ48PriorityBatchCancelled: a cancelled Priority batch dequeue had
// taken nothing, so the queue is as it was, equal priorities in insertion
// order, and the dequeue behind it is served.
func TestQ48PriorityBatchCancelled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := mustPriority(t, 10)
		prioElems{[]int64{1, 1}, []int32{100, 200}}.enqueue(t, q)
		ctx, cancel := context.WithCancel(bg)
		first := goDequeue(ctx, q, 3, false)
		synctest.Wait()
		second := goDequeue(bg, q, 2, true)
		synctest.Wait()
		if q.Size() != 2 || len(second) != 0 {
			t.Fatalf("size %d, second done %v; want 2 and waiting behind the first", q.Size(), len(second) != 0)
		}
		cancel()
		if r := <-first; !errors.Is(r.err, context.Canceled) {
			t.Fatalf("first: %v, %v", r.b, r.err)
		}
		if r := <-second; r.err != nil || !slices.Equal(r.b[1].Int32s(), []int32{100, 200}) {
			t.Fatalf("second: %v, %v; want [100 200]", r.b, r.err)
		}
	})
}

// TestPRI02BatchLargerThanCapacity: a Priority batch larger than the
// queue's capacity can never find all its elements queued. TensorFlow
// 2.21's waits for ever, and so does the producer once the queue is full
// (PriorityQueue(2): dequeue_many(3) blocked, enqueue_many [5 4], a third
// enqueue blocked; size 2, both still blocked after 1 s). sluice's takes
// the full queue and waits for the rest, as its other kinds do, and
// sorts the batch (PRI-02). Cancelled, it gives back what it took, each
// element where it was among equal priorities.
func TestPRI02BatchLargerThanCapacity(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := mustPriority(t, 2)
		got := goDequeue(bg, q, 3, false)
		synctest.Wait()
		prioElems{[]int64{5, 4}, []int32{50, 40}}.enqueue(t, q)
		prioElems{[]int64{1}, []int32{10}}.enqueue(t, q) // TensorFlow's blocks here
		r := <-got
		if r.err != nil || !slices.Equal(r.b[0].Int64s(), []int64{1, 4, 5}) || !slices.Equal(r.b[1].Int32s(), []int32{10, 40, 50}) {
			t.Fatalf("got %v, %v; want [1 4 5] [10 40 50]", r.b, r.err)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		q := mustPriority(t, 2)
		ctx, cancel := context.WithCancel(bg)
		got := goDequeue(ctx, q, 5, false)
		synctest.Wait()
		prioElems{[]int64{1, 1}, []int32{100, 200}}.enqueue(t, q)
		prioElems{[]int64{1}, []int32{300}}.enqueue(t, q)
		synctest.Wait()
		if q.Size() != 1 {
			t.Fatalf("size %d while the batch waits, want 1 (two taken)", q.Size())
		}
		cancel()
		if r := <-got; !errors.Is(r.err, context.Canceled) {
			t.Fatalf("got %v, %v", r.b, r.err)
		}
		for _, want := range []int32{100, 200, 300} {
			e, err := q.Dequeue(bg)
			if err != nil || e[1].Int32s()[0] != want {
				t.Fatalf("got %v, %v; want %d: equal priorities in insertion order", e, err, want)
			}
		}
	})
}

// TestFlushOrder: each attempt list runs its heads for as long as they
// complete before the other list's head runs, as TensorFlow's QueueBase
// does. A blocked DequeueMany(2) and a blocked Dequeue, then an
// EnqueueMany of priorities 5, 6, 7, 1 into a Priority queue of capacity
// 3: TensorFlow 2.21 gives the DequeueMany [5 6] and the Dequeue 7, and
// leaves the 1 queued (found by a differential run against it). Serving
// the two lists' heads one step each in turn put the 1 in before the
// Dequeue ran, which took it.
func TestFlushOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := mustPriority(t, 3)
		many := goDequeue(bg, q, 2, false)
		synctest.Wait()
		one := make(chan batchResult, 1)
		go func() {
			e, err := q.Dequeue(bg)
			one <- batchResult{e, err}
		}()
		synctest.Wait()
		prioElems{[]int64{5, 6, 7, 1}, []int32{50, 60, 70, 10}}.enqueue(t, q)
		a, b := <-many, <-one
		if a.err != nil || b.err != nil {
			t.Fatal(a.err, b.err)
		}
		if p := a.b[0].Int64s(); !slices.Equal(p, []int64{5, 6}) {
			t.Errorf("DequeueMany(2) took priorities %v, TensorFlow [5 6]", p)
		}
		if p := b.b[0].Int64s(); !slices.Equal(p, []int64{7}) {
			t.Errorf("Dequeue took priority %v, TensorFlow 7", p)
		}
		left, err := q.Dequeue(bg)
		if err != nil || left[0].Int64s()[0] != 1 || q.Size() != 0 {
			t.Errorf("left %v (%v), size %d; TensorFlow leaves the 1", left, err, q.Size())
		}
	})
}
