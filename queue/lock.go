package queue

import (
	"runtime"
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
