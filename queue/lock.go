package queue

import (
	"context"
	"runtime"
	"runtime/metrics"
	"sync"
	"time"
)

// lockSpin bounds how long lock retries a held mutex before it parks:
// longer than a batch dequeue holds the lock for its draws (4–16 µs for
// 128 from a shuffle buffer of 10 000), shorter than the wake-up a park
// costs.
const lockSpin = 50 * time.Microsecond

// lock takes q.mu, first retrying a while when the holder has drawn, or
// is drawing, a batch's elements (drawing is set from the first draw until
// the holder lets go). sync.Mutex parks a waiter after a spin of about a
// microsecond, and a parked goroutine costs more than the wait: its core,
// left without work, goes idle, and the waiter, once readied into the
// runnable slot of the core that released the lock, waits for the idle
// core to wake and steal it. On the seed pipeline on two cores, readers
// whose Enqueue met the lock held by a batch dequeue's draws left a core
// idle for 68 µs on average each time, 10% of the run. Retrying keeps the
// core: the drawing holder is running and lets go within microseconds.
// Other holders are waited for in Lock as before: their holds are short,
// and retrying on every held lock made many goroutines contending for a
// FIFO (BenchmarkFIFO4x4) 2–3 times slower. On one core (GOMAXPROCS 1)
// the holder cannot be running, so lock parks at once.
func (q *core) lock() {
	if q.drawing.Load() {
		q.lockDrawn()
		return
	}
	q.mu.Lock()
}

func (q *core) lockDrawn() {
	if runtime.GOMAXPROCS(0) > 1 {
		start := time.Now()
		for {
			for range 64 {
				if q.mu.TryLock() {
					return
				}
			}
			if time.Since(start) > lockSpin {
				break
			}
		}
	}
	q.mu.Lock()
}

// blockSpin bounds how long a blocked call (an enqueue into a full queue, a
// dequeue waiting for its elements) keeps its core, yielding it to any
// other goroutine ready to run, before it parks; blockSpins bounds the
// yields, for a testing/synctest bubble, whose clock stands still while a
// goroutine runs. A call that parks leaves its core without work when no
// other goroutine is ready, and the core sleeps: on the seed pipeline on
// two cores a reader blocked on the full shuffle queue (or the consumer
// on its batch) was made ready by the other side within tens of
// microseconds, but then waited 100-200 µs for its sleeping core to wake,
// about 220 times a pass of 800 batches. Waiting running, it goes on at
// once. The yields cost CPU, so a call spins only on more than one core
// (on one, GOMAXPROCS 1, the other side cannot run while this one waits)
// and only while the waits of its side of the queue (enqueues,
// dequeues) are short: when the last one took longer than blockSpin from
// its start to its end (not to the wake-up), as when a slow consumer
// keeps the readers waiting for room, the next parks at once.
const (
	blockSpin  = 100 * time.Microsecond
	blockSpins = 2000
)

// spinWait returns once done or ctx is done, after blockSpin, or as soon
// as a yield finds another goroutine to run: then the core has work, and
// parking does not leave it idle (with many goroutines waiting on a small
// queue, yielding to each other only took the scheduler's time: 8 on a
// FIFO of 8 on two cores, BenchmarkFIFO4x4Cap8, were 20-50% slower).
func spinWait(ctx context.Context, done <-chan struct{}, start time.Time) {
	if runtime.GOMAXPROCS(0) == 1 {
		return
	}
	cancel := ctx.Done()
	last := start
	for i := range blockSpins {
		if i%8 == 0 && othersRunnable() {
			return
		}
		select {
		case <-done:
			return
		case <-cancel:
			return
		default:
		}
		runtime.Gosched()
		now := time.Now()
		if now.Sub(last) > yieldRan || now.Sub(start) > blockSpin {
			return
		}
		last = now
	}
}

// yieldRan is how long a yield that returns at once takes at most; one
// that took longer ran another goroutine.
const yieldRan = 5 * time.Microsecond

// othersRunnable reports whether goroutines wait for a core: then the
// cores have work, and a waiting call parks rather than taking one of
// them. A yield cannot tell: it returns at once when this core has no
// other goroutine ready, though another core's may have several
// (BenchmarkFIFO4x4Cap8: 4 producers and 4 consumers on a FIFO of 8,
// two cores, a quarter slower and costlier spinning).
func othersRunnable() bool {
	s := runnableSamples.Get().(*[1]metrics.Sample)
	metrics.Read(s[:])
	n := uint64(0)
	if s[0].Value.Kind() == metrics.KindUint64 {
		n = s[0].Value.Uint64()
	}
	runnableSamples.Put(s)
	return n > 0
}

// runnableSamples holds othersRunnable's samples, which metrics.Read
// makes escape: one allocated per call would be one per blocked call.
var runnableSamples = sync.Pool{New: func() any {
	return &[1]metrics.Sample{{Name: "/sched/goroutines/runnable:goroutines"}}
}}
