package queue

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sluiceml/sluice/tensor"
)

// propertyKind builds one kind of queue for the randomized test and
// converts between int32 values and that queue's elements.
type propertyKind struct {
	name  string
	make  func(seed uint64) (Queue, error)
	batch func(vs []int32) Element // the batch EnqueueMany takes
	value func(b Element) []int32  // the values of a dequeued batch
}

var propertyKinds = []propertyKind{
	{
		name:  "FIFO",
		make:  func(uint64) (Queue, error) { return NewFIFO(7, i32, flat) },
		batch: func(vs []int32) Element { return Element{tensor.New(vs)} },
		value: func(b Element) []int32 { return b[0].Int32s() },
	},
	{
		name:  "RandomShuffle",
		make:  func(seed uint64) (Queue, error) { return NewRandomShuffle(7, 2, i32, flat, Seed(seed)) },
		batch: func(vs []int32) Element { return Element{tensor.New(vs)} },
		value: func(b Element) []int32 { return b[0].Int32s() },
	},
	{
		name: "Priority",
		make: func(uint64) (Queue, error) { return NewPriority(7, i32, flat) },
		batch: func(vs []int32) Element {
			p := make([]int64, len(vs))
			for i, v := range vs {
				p[i] = int64(v % 5)
			}
			return Element{tensor.New(p), tensor.New(vs)}
		},
		value: func(b Element) []int32 { return b[1].Int32s() },
	},
	{
		// Each element is a row of v%3+1 copies of v; padding fills with
		// zeros, so the value is the row's first entry.
		name: "PaddingFIFO",
		make: func(uint64) (Queue, error) {
			return NewPaddingFIFO(7, i32, []tensor.Shape{{tensor.Unknown}})
		},
		value: func(b Element) []int32 {
			t := b[0]
			out := make([]int32, t.Len())
			for i := range out {
				out[i] = t.Row(i).Int32s()[0]
			}
			return out
		},
	},
}

// single returns the element for v (a batch of one, unstacked).
func (k propertyKind) single(v int32) Element {
	if k.batch == nil {
		return Element{tensor.New(padRow(v))}
	}
	b := k.batch([]int32{v})
	e := make(Element, len(b))
	for i, t := range b {
		e[i] = t.Row(0)
	}
	return e
}

func padRow(v int32) []int32 {
	row := make([]int32, v%3+1)
	for i := range row {
		row[i] = v
	}
	return row
}

// A randomized interleaving of every operation — Enqueue, EnqueueMany,
// Dequeue, DequeueMany and DequeueUpTo of random sizes, contexts cancelled
// before or during the call, Close with and without cancelling, issued
// while the others run — from several goroutines, on every queue kind.
// It checks end to end: an element whose enqueue succeeded is
// dequeued exactly once, a single Enqueue that failed left nothing behind,
// nothing is dequeued twice, and every blocked call returns (synctest
// fails the test if the bubble deadlocks).
func TestRandomizedInterleaving(t *testing.T) {
	for _, kind := range propertyKinds {
		for round := range 15 {
			t.Run(fmt.Sprintf("%s/%d", kind.name, round), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) { runInterleaving(t, kind, uint64(round)) })
			})
		}
	}
}

func runInterleaving(t *testing.T, kind propertyKind, seed uint64) {
	q, err := kind.make(seed + 1)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 7))
	var (
		mu        sync.Mutex
		next      int32
		mustSee   = map[int32]bool{} // enqueue succeeded
		mustNot   = map[int32]bool{} // single enqueue failed
		dequeued  = map[int32]int{}
		dupOrLost []string
	)
	// opCtx returns a context that is already cancelled, expires after a
	// short random (virtual) time, or never ends.
	opCtx := func(r *rand.Rand) (context.Context, context.CancelFunc) {
		switch r.IntN(8) {
		case 0:
			ctx, cancel := context.WithCancel(bg)
			cancel()
			return ctx, cancel
		case 1, 2:
			return context.WithTimeout(bg, time.Duration(1+r.IntN(20))*time.Millisecond)
		}
		return context.WithCancel(bg)
	}
	record := func(b Element) {
		mu.Lock()
		defer mu.Unlock()
		for _, v := range kind.value(b) {
			dequeued[v]++
			if dequeued[v] > 1 {
				dupOrLost = append(dupOrLost, fmt.Sprintf("%d dequeued twice", v))
			}
		}
	}

	var producers, consumers sync.WaitGroup
	for p := range 4 {
		r := rand.New(rand.NewPCG(rng.Uint64(), uint64(p)))
		producers.Go(func() {
			for range 25 {
				mu.Lock()
				n := r.IntN(5)
				vs := make([]int32, n)
				for i := range vs {
					next++
					vs[i] = next
				}
				mu.Unlock()
				ctx, cancel := opCtx(r)
				var err error
				single := n == 1 && r.IntN(2) == 0
				switch {
				case single:
					err = q.Enqueue(ctx, kind.single(vs[0]))
				case kind.batch == nil: // PaddingFIFO: rows of one length per batch
					b := make([]int32, 0, n*3)
					width := 1 + r.IntN(3)
					for _, v := range vs {
						for range width {
							b = append(b, v)
						}
					}
					err = q.EnqueueMany(ctx, Element{tensor.New(b, n, width)})
				default:
					err = q.EnqueueMany(ctx, kind.batch(vs))
				}
				cancel()
				mu.Lock()
				for _, v := range vs {
					if err == nil {
						mustSee[v] = true
					} else if single {
						mustNot[v] = true
					}
				}
				mu.Unlock()
				if errors.Is(err, ErrClosed) {
					return
				}
			}
		})
	}
	for c := range 3 {
		r := rand.New(rand.NewPCG(rng.Uint64(), uint64(c)))
		consumers.Go(func() {
			for {
				ctx, cancel := opCtx(r)
				var b Element
				var err error
				switch r.IntN(3) {
				case 0:
					var e Element
					e, err = q.Dequeue(ctx)
					if err == nil {
						b = make(Element, len(e))
						for i, t := range e {
							b[i] = stackOne(t)
						}
					}
				case 1:
					b, err = q.DequeueMany(ctx, r.IntN(6))
				default:
					b, err = q.DequeueUpTo(ctx, 1+r.IntN(5))
				}
				cancel()
				if err == nil {
					record(b)
				} else if isEOF(err) {
					return
				}
			}
		})
	}
	closer := rand.New(rand.NewPCG(rng.Uint64(), 3))
	time.Sleep(time.Duration(closer.IntN(40)) * time.Millisecond)
	if err := closeQueue(bg, q, closer.IntN(2) == 0); err != nil && !errors.Is(err, ErrCancelled) {
		t.Errorf("close: %v", err)
	}
	producers.Wait()
	consumers.Wait()
	// The consumers stop at their first end of input; a DequeueMany may
	// have left fewer elements than it asked for.
	for {
		b, err := q.DequeueUpTo(bg, 100)
		if isEOF(err) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		record(b)
	}
	for v := range mustSee {
		if dequeued[v] != 1 {
			dupOrLost = append(dupOrLost, fmt.Sprintf("%d enqueued but dequeued %d times", v, dequeued[v]))
		}
	}
	for v := range mustNot {
		if dequeued[v] != 0 {
			dupOrLost = append(dupOrLost, fmt.Sprintf("%d: failed Enqueue left it in the queue", v))
		}
	}
	if len(dupOrLost) > 0 {
		t.Fatal(dupOrLost)
	}
	if s := q.(interface{ Stats() Stats }).Stats(); s.Enqueued != s.Dequeued {
		t.Fatalf("stats: %d enqueued, %d dequeued, queue drained", s.Enqueued, s.Dequeued)
	}
}

// stackOne makes a batch of one from a single dequeued component.
func stackOne(t tensor.Tensor) tensor.Tensor {
	b, err := tensor.Stack([]tensor.Tensor{t})
	if err != nil {
		panic(err)
	}
	return b
}
