package queue

import (
	"runtime"
	"testing"
	"time"

	"github.com/sluiceml/sluice/tensor"
)

// TestSpinStops: once a blocked call has spun for blockSpin in vain (a
// consumer far slower than its producers), the calls of its side park at
// once, and a short wait makes them spin again; the other side is not
// affected.
func TestSpinStops(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("calls spin only on more than one core")
	}
	if raceEnabled {
		t.Skip("the race detector slows a yield past yieldRan: spins give up at once")
	}
	q, err := NewFIFO(1, i32, flat)
	if err != nil {
		t.Fatal(err)
	}
	c := q.core
	e := Element{tensor.Scalar(int32(1))}
	if err := q.Enqueue(t.Context(), e); err != nil {
		t.Fatal(err)
	}
	// An enqueue blocked on the full queue for 5 ms: its spin runs out.
	// A spin gives up, saying nothing, if a yield ran another goroutine,
	// which a loaded machine can make it seem to: a few tries.
	for try := 0; try < 5 && !c.longWaits[0].Load(); try++ {
		errc := make(chan error, 1)
		go func() { errc <- q.Enqueue(t.Context(), e) }()
		time.Sleep(5 * time.Millisecond)
		if _, err := q.Dequeue(t.Context()); err != nil {
			t.Fatal(err)
		}
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
	}
	if !c.longWaits[0].Load() {
		t.Fatal("enqueues blocked 5 ms still spin")
	}
	if c.longWaits[1].Load() {
		t.Fatal("dequeues stopped spinning, though none waited")
	}
	// A parked enqueue that waits a moment only makes them spin again.
	for try := 0; try < 5 && c.longWaits[0].Load(); try++ {
		errc := make(chan error, 1)
		go func() { errc <- q.Enqueue(t.Context(), e) }()
		waitEnqueueBlocked(c)
		if _, err := q.Dequeue(t.Context()); err != nil {
			t.Fatal(err)
		}
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
	}
	if c.longWaits[0].Load() {
		t.Fatal("enqueues that waited a moment still park at once")
	}
}

// waitEnqueueBlocked returns once an enqueue waits in c.
func waitEnqueueBlocked(c *core) {
	for {
		c.mu.Lock()
		n := len(c.enq)
		c.mu.Unlock()
		if n > 0 {
			return
		}
		runtime.Gosched()
	}
}
