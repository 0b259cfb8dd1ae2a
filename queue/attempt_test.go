package queue

import (
	"context"
	"errors"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/sluiceml/sluice/tensor"
)

// TestAttemptReuse: a call that blocks reuses the attempt, and the
// channel, of a call that returned. Each round races the cancellation of
// a blocked call against the call that completes it, on the same queue
// round after round, so that the next round's calls take over the
// attempts of this one's. Every element must arrive exactly once, and a
// call that cannot complete, made with a context already ended, must
// report the cancellation: a wake-up left behind for a reused attempt
// would complete it at once, with no result.
func TestAttemptReuse(t *testing.T) {
	rounds := 3000
	if raceEnabled {
		rounds = 1000
	}
	if testing.Short() {
		rounds = 300
	}
	ended, cancel := context.WithCancel(bg)
	cancel()
	type outcome struct {
		e   Element
		err error
	}
	// race runs call in a goroutine, ctx's cancellation in another and
	// complete in this one, and returns call's outcome.
	race := func(q *FIFO, call func(ctx context.Context) (Element, error), complete func()) outcome {
		ctx, cancel := context.WithCancel(bg)
		defer cancel()
		done := make(chan outcome, 1)
		go func() {
			e, err := call(ctx)
			done <- outcome{e, err}
		}()
		waitBlocked(q.core)
		// Either may come first, or both at once: one starts in another
		// goroutine, taking a while to run, and the other follows in
		// this one after a spin of random length.
		first, second := cancel, complete
		if rand.IntN(2) == 0 {
			first, second = second, first
		}
		var wg sync.WaitGroup
		wg.Go(first)
		for range rand.IntN(20000) {
			sink.Add(1)
		}
		second()
		wg.Wait()
		return <-done
	}
	// cancelled fails unless err is a cancellation.
	cancelled := func(t *testing.T, err error, what string) {
		t.Helper()
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("%s: err %v, want a cancellation", what, err)
		}
	}
	for _, tc := range []struct {
		name     string
		capacity int
		round    func(t *testing.T, q *FIFO, i int32) (completed bool)
	}{
		{"Dequeue", 1, func(t *testing.T, q *FIFO, i int32) bool {
			o := race(q, func(ctx context.Context) (Element, error) { return q.Dequeue(ctx) },
				func() { must(t, q.Enqueue(bg, sc(i))) })
			if o.err == nil {
				if got := val(o.e, nil); got != i {
					t.Fatalf("Dequeue got %d, want %d", got, i)
				}
			} else {
				cancelled(t, o.err, "Dequeue")
				if got := val(q.Dequeue(bg)); got != i {
					t.Fatalf("after a cancelled Dequeue, got %d, want %d", got, i)
				}
			}
			_, err := q.Dequeue(ended)
			cancelled(t, err, "Dequeue of an empty queue")
			return o.err == nil
		}},
		{"DequeueMany", 4, func(t *testing.T, q *FIFO, i int32) bool {
			want := []int32{2 * i, 2*i + 1}
			o := race(q, func(ctx context.Context) (Element, error) { return q.DequeueMany(ctx, 2) },
				func() { must(t, q.EnqueueMany(bg, vec(want...))) })
			if o.err == nil {
				if got := vals(o.e, nil); !slices.Equal(got, want) {
					t.Fatalf("DequeueMany got %v, want %v", got, want)
				}
			} else {
				cancelled(t, o.err, "DequeueMany")
				if got := vals(q.DequeueMany(bg, 2)); !slices.Equal(got, want) {
					t.Fatalf("after a cancelled DequeueMany, got %v, want %v", got, want)
				}
			}
			_, err := q.DequeueMany(ended, 1)
			cancelled(t, err, "DequeueMany of an empty queue")
			return o.err == nil
		}},
		{"Enqueue", 1, func(t *testing.T, q *FIFO, i int32) bool {
			must(t, q.Enqueue(bg, sc(-1)))
			o := race(q, func(ctx context.Context) (Element, error) { return nil, q.Enqueue(ctx, sc(i)) },
				func() {
					if got := val(q.Dequeue(bg)); got != -1 {
						t.Errorf("Dequeue got %d, want -1", got)
					}
				})
			if o.err == nil {
				if got := val(q.Dequeue(bg)); got != i {
					t.Fatalf("after Enqueue, got %d, want %d", got, i)
				}
			} else {
				cancelled(t, o.err, "Enqueue")
			}
			must(t, q.Enqueue(bg, sc(-2)))
			cancelled(t, q.Enqueue(ended, sc(-3)), "Enqueue to a full queue")
			if got := val(q.Dequeue(bg)); got != -2 {
				t.Fatalf("Dequeue got %d, want -2", got)
			}
			return o.err == nil
		}},
		{"EnqueueMany", 2, func(t *testing.T, q *FIFO, i int32) bool {
			must(t, q.EnqueueMany(bg, vec(-1, -1)))
			o := race(q, func(ctx context.Context) (Element, error) { return nil, q.EnqueueMany(ctx, vec(2*i, 2*i+1)) },
				func() {
					if got := vals(q.DequeueMany(bg, 2)); !slices.Equal(got, []int32{-1, -1}) {
						t.Errorf("DequeueMany got %v, want [-1 -1]", got)
					}
				})
			// Rows inserted before a cancellation stay: the first
			// row or both.
			want := []int32{2 * i, 2*i + 1}
			if o.err != nil {
				cancelled(t, o.err, "EnqueueMany")
				want = want[:q.Size()]
			}
			if got := vals(q.DequeueUpTo(ended, len(want))); len(want) > 0 && !slices.Equal(got, want) {
				t.Fatalf("after EnqueueMany, got %v, want %v", got, want)
			}
			must(t, q.EnqueueMany(bg, vec(-2, -2)))
			cancelled(t, q.EnqueueMany(ended, vec(-3)), "EnqueueMany to a full queue")
			if got := vals(q.DequeueMany(bg, 2)); !slices.Equal(got, []int32{-2, -2}) {
				t.Fatalf("DequeueMany got %v, want [-2 -2]", got)
			}
			return o.err == nil
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := mustFIFO(t, tc.capacity)
			completed := 0
			for i := range int32(rounds) {
				if tc.round(t, q, i) {
					completed++
				}
				if n := q.Size(); n != 0 {
					t.Fatalf("round %d left %d elements", i, n)
				}
			}
			t.Logf("%d of %d calls completed, the others were cancelled", completed, rounds)
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// waitBlocked returns once a call is blocked on q.
func waitBlocked(q *core) {
	for {
		q.mu.Lock()
		n := len(q.enq) + len(q.deq)
		q.mu.Unlock()
		if n > 0 {
			return
		}
		runtime.Gosched()
	}
}

// sink keeps a spin from being optimized away.
var sink atomic.Int64

// TestEnqueueManyListReuse: the rows of an EnqueueMany are the queue's,
// whatever the caller does with its list of tensors afterwards, and
// whether the call completed or was cancelled part way. A producer
// enqueues batches of 1 to 7 rows through one list of its own, which it
// overwrites after every call, some calls cancelled; a consumer takes
// elements one, several or up to several at a time, until the queue is
// closed and empty. Every row inserted must come out once, with its own
// value: a queue that kept the caller's list, or shared one list between
// batches, would give some rows values the producer wrote later or
// another batch's. The rows a cancelled call inserted are a prefix of its
// batch.
func TestEnqueueManyListReuse(t *testing.T) {
	batches := 20000
	if raceEnabled || testing.Short() {
		batches = 500
	}
	kinds := []struct {
		name string
		make func() (local, error)
	}{
		{"FIFO", func() (local, error) { return NewFIFO(20, i32, flat) }},
		{"RandomShuffle", func() (local, error) { return NewRandomShuffle(20, 5, i32, flat, Seed(3)) }},
		{"PaddingFIFO", func() (local, error) { return NewPaddingFIFO(20, i32, []tensor.Shape{{}}) }},
	}
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			q, err := k.make()
			if err != nil {
				t.Fatal(err)
			}
			// Batch i has rows 8i, 8i+1, ...: a value names its batch.
			sizes := make([]int, batches)
			cancelled := make([]bool, batches)
			var wg sync.WaitGroup
			wg.Go(func() {
				list := make(Element, 1)
				junk := tensor.New([]int32{-1, -1, -1, -1, -1, -1, -1})
				for i := range batches {
					n := 1 + rand.IntN(7)
					sizes[i] = n
					vs := make([]int32, n)
					for r := range vs {
						vs[r] = int32(8*i + r)
					}
					list[0] = tensor.New(vs)
					ctx, cancel := context.WithCancel(bg)
					if rand.IntN(8) == 0 {
						go cancel()
					}
					err := q.EnqueueMany(ctx, list)
					cancel()
					if err != nil {
						if !errors.Is(err, context.Canceled) {
							t.Errorf("EnqueueMany: %v", err)
						}
						cancelled[i] = true
					}
					list[0] = junk
				}
				if err := q.Close(bg); err != nil {
					t.Errorf("Close: %v", err)
				}
			})
			var got []int32
			for {
				var e Element
				var err error
				switch n := 1 + rand.IntN(6); rand.IntN(3) {
				case 0:
					e, err = q.Dequeue(bg)
				case 1:
					e, err = q.DequeueMany(bg, n)
				default:
					e, err = q.DequeueUpTo(bg, n)
				}
				if isEOF(err) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, e[0].Int32s()...)
			}
			// The first end of input may be a DequeueMany's, of a closed
			// queue with fewer elements left.
			for {
				e, err := q.DequeueUpTo(bg, 10)
				if isEOF(err) {
					break
				}
				got = append(got, vals(e, err)...)
			}
			wg.Wait()
			if n := q.Size(); n != 0 {
				t.Fatalf("%d elements left", n)
			}
			rows := make([][]int32, batches)
			for _, v := range got {
				if v < 0 || int(v/8) >= batches || int(v%8) >= sizes[v/8] {
					t.Fatalf("got %d, no row of any batch", v)
				}
				rows[v/8] = append(rows[v/8], v)
			}
			for i, r := range rows {
				slices.Sort(r)
				want := sizes[i]
				if cancelled[i] {
					want = len(r)
				}
				for j, v := range r {
					if v != int32(8*i+j) || j >= want {
						t.Fatalf("batch %d of %d rows (cancelled %v): got rows %v", i, sizes[i], cancelled[i], r)
					}
				}
				if len(r) != want {
					t.Fatalf("batch %d: got rows %v, want %d", i, r, want)
				}
			}
		})
	}
}

// TestBlockedCallsAllocs: once a queue has attempts for the calls that
// block at once, a call that blocks allocates nothing: a producer whose
// every Enqueue meets a full queue, and consumers whose every Dequeue or
// DequeueManyInto meets an empty one.
func TestBlockedCallsAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	tests := []struct {
		name    string
		consume func(q *FIFO, dst Element) (Element, error)
	}{
		{"Dequeue", func(q *FIFO, _ Element) (Element, error) { return q.Dequeue(bg) }},
		{"DequeueManyInto", func(q *FIFO, dst Element) (Element, error) { return q.DequeueManyInto(bg, 1, dst) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := mustFIFO(t, 1)
			e := sc(1)
			const perRun = 100
			ctx, cancel := context.WithCancel(bg)
			var wg sync.WaitGroup
			wg.Go(func() {
				var dst Element
				for {
					got, err := tt.consume(q, dst)
					if err != nil {
						return // closed
					}
					dst = got
				}
			})
			step := func() {
				for range perRun {
					if err := q.Enqueue(ctx, e); err != nil {
						t.Fatal(err)
					}
				}
			}
			step()
			n := testing.AllocsPerRun(20, step)
			q.CloseNow(bg)
			cancel()
			wg.Wait()
			// AllocsPerRun counts the whole process's: a stray
			// allocation of the runtime's is let pass.
			if n > 1 {
				t.Errorf("%.1f allocations for %d enqueues and dequeues that block, want none", n, perRun)
			}
		})
	}
}
