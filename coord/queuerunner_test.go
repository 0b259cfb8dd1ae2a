package coord

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tensor"
)

func fifo(t *testing.T, capacity int, name string) *queue.FIFO {
	t.Helper()
	q, err := queue.NewFIFO(capacity, []tensor.DType{tensor.Float32}, queue.Shapes(tensor.Shape{}), queue.Name(name))
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// countUpTo is TensorFlow's count_up_to as a step: it counts to limit and
// then reports end of input.
func countUpTo(v *atomic.Int64, limit int64) Step {
	return func(context.Context) error {
		if v.Load() >= limit {
			return io.EOF
		}
		v.Add(1)
		return nil
	}
}

// QR-01
func TestNewQueueRunnerChecks(t *testing.T) {
	if _, err := NewQueueRunner(nil, []Step{func(context.Context) error { return nil }}); !errors.Is(err, ErrNoQueue) {
		t.Fatalf("nil queue: %v", err)
	}
	if _, err := NewQueueRunner(fifo(t, 1, "q"), nil); !errors.Is(err, ErrNoQueue) {
		t.Fatalf("no steps: %v", err)
	}
}

// QR-04: steps end cleanly at end of input.
func TestQueueRunnerCountUpTo(t *testing.T) {
	var a, b atomic.Int64
	q := fifo(t, 10, "q")
	r, _ := NewQueueRunner(q, []Step{countUpTo(&a, 3), countUpTo(&b, 30)})
	c := New()
	if !r.Start(t.Context(), c) {
		t.Fatal("Start = false")
	}
	if err := c.Join(t.Context(), time.Second); err != nil {
		t.Fatal(err)
	}
	if a.Load() != 3 || b.Load() != 30 || len(r.Errs()) != 0 {
		t.Fatalf("a=%d b=%d errs=%v", a.Load(), b.Load(), r.Errs())
	}
	if !q.IsClosed() {
		t.Fatal("QR-03: the last goroutine to end did not close the queue")
	}
}

// QR-05: q1.enqueue(q0.dequeue()); closing q0 cascades to q1.
func TestQueueRunnerCascade(t *testing.T) {
	q0, q1 := fifo(t, 10, "q0"), fifo(t, 10, "q1")
	step := func(ctx context.Context) error {
		e, err := q0.Dequeue(ctx)
		if err != nil {
			return err
		}
		return q1.Enqueue(ctx, e)
	}
	r, _ := NewQueueRunner(q1, []Step{step})
	c := New()
	r.Start(t.Context(), c)
	q0.Enqueue(t.Context(), queue.Element{tensor.Scalar(float32(10))})
	q0.Enqueue(t.Context(), queue.Element{tensor.Scalar(float32(10))})
	q0.Close(t.Context())
	for range 2 {
		e, err := q1.Dequeue(t.Context())
		if err != nil || e[0].Float32s()[0] != 10 {
			t.Fatalf("got %v %v", e, err)
		}
	}
	if _, err := q1.Dequeue(t.Context()); !errors.Is(err, io.EOF) || !strings.Contains(err.Error(), "is closed") {
		t.Fatalf("got %v", err)
	}
	if err := c.Join(t.Context(), time.Second); err != nil {
		t.Fatal(err)
	}
}

// QR-06: an error stops the coordinator and comes back from Join; without
// a coordinator it is collected.
func TestQueueRunnerErrors(t *testing.T) {
	bad := errors.New("Operation not in the graph")
	fail := func(context.Context) error { return bad }
	r, _ := NewQueueRunner(fifo(t, 1, "q"), []Step{fail, fail})
	r.Start(t.Context(), nil)
	if err := r.Wait(t.Context()); err != nil {
		t.Fatal(err)
	}
	if errs := r.Errs(); len(errs) != 2 || !errors.Is(errs[0], bad) || !errors.Is(errs[1], bad) {
		t.Fatalf("errs %v", errs)
	}
	if r.Running() {
		t.Fatal("Running after Wait")
	}
	// QR-08: a new Start resets the collected errors.
	r.steps = []Step{func(context.Context) error { return io.EOF }}
	r.Start(t.Context(), nil)
	r.Wait(t.Context())
	if errs := r.Errs(); len(errs) != 0 {
		t.Fatalf("errors not reset by Start: %v", errs)
	}

	c := New()
	r2, _ := NewQueueRunner(fifo(t, 1, "q"), []Step{fail})
	r2.Start(t.Context(), c)
	if err := c.Join(t.Context(), time.Second); !errors.Is(err, bad) {
		t.Fatalf("Join = %v", err)
	}
}

// QR-07: a stopped coordinator: steps never run.
func TestQueueRunnerAlreadyStopped(t *testing.T) {
	var v atomic.Int64
	c := New()
	c.RequestStop(nil)
	r, _ := NewQueueRunner(fifo(t, 1, "q"), []Step{countUpTo(&v, 3)})
	r.Start(t.Context(), c)
	c.Join(t.Context(), time.Second)
	if v.Load() != 0 {
		t.Fatalf("step ran %d times", v.Load())
	}
}

// QR-08: no second set of goroutines while the first runs.
func TestQueueRunnerNoDuplicateStart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := fifo(t, 1, "q")
		r, _ := NewQueueRunner(q, []Step{func(ctx context.Context) error {
			return q.Enqueue(ctx, queue.Element{tensor.Scalar(float32(1))})
		}})
		c := New()
		if !r.Start(t.Context(), c) {
			t.Fatal("first Start = false")
		}
		synctest.Wait()
		if r.Start(t.Context(), c) {
			t.Fatal("second Start while running = true")
		}
		if n := StartAll(t.Context(), c, r); n != 0 {
			t.Fatalf("StartAll started %d", n)
		}
		c.RequestStop(nil)
		if err := c.Join(t.Context(), time.Second); err != nil {
			t.Fatal(err)
		}
	})
}

// a runner blocked on a full queue is released by a stop, and Join
// returns within the grace period.
func TestQueueRunnerStopUnblocks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := fifo(t, 2, "full")
		r, _ := NewQueueRunner(q, []Step{func(context.Context) error {
			// A background context: only the CloseNow can free it.
			return q.Enqueue(context.Background(), queue.Element{tensor.Scalar(float32(1))})
		}}, StepNames("enqueue"))
		c := New()
		r.Start(t.Context(), c)
		synctest.Wait()
		if q.Size() != 2 {
			t.Fatalf("size %d", q.Size())
		}
		c.RequestStop(nil)
		if err := c.Join(t.Context(), time.Second); err != nil {
			t.Fatalf("Join = %v", err)
		}
		if r.Name() != "full" {
			t.Fatalf("QR-09: name %q", r.Name())
		}
	})
}

// QR-02, CO-04: goroutine names in Join's message.
func TestQueueRunnerGoroutineNames(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := fifo(t, 1, "scope/queue")
		r, _ := NewQueueRunner(q, []Step{func(ctx context.Context) error {
			time.Sleep(time.Hour) // ignores the stop
			return nil
		}}, StepNames("slow"))
		c := New()
		r.Start(t.Context(), c)
		synctest.Wait()
		c.RequestStop(nil)
		err := c.Join(t.Context(), time.Second)
		if !errors.Is(err, ErrStillRunning) || !strings.Contains(err.Error(), "QueueRunnerThread-scope/queue-slow") {
			t.Fatalf("Join = %v", err)
		}
		time.Sleep(2 * time.Hour)
	})
}

// A runner whose step fails must still cancel its queue, so that its
// consumers see end of input instead of waiting for ever (close_on_stop
// races the runner's end: repeat to cover both orders).
func TestQueueRunnerFailureClosesQueue(t *testing.T) {
	for range 50 {
		q := fifo(t, 2, "q")
		r, _ := NewQueueRunner(q, []Step{func(context.Context) error { return errors.New("boom") }})
		c := New()
		r.Start(t.Context(), c)
		if err := c.Join(t.Context(), time.Second); err == nil {
			t.Fatal("Join = nil")
		}
		if !q.IsClosed() {
			t.Fatal("queue left open after a failed step")
		}
	}
}

// QR-03: only the last goroutine to end closes the queue.
func TestQueueRunnerLastOneCloses(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := fifo(t, 10, "q")
		release := make(chan struct{})
		quick := func(context.Context) error { return io.EOF }
		slow := func(ctx context.Context) error {
			<-release
			return fmt.Errorf("upstream: %w", io.EOF)
		}
		r, _ := NewQueueRunner(q, []Step{quick, slow})
		c := New()
		r.Start(t.Context(), c)
		synctest.Wait()
		if q.IsClosed() || !r.Running() {
			t.Fatalf("closed %v running %v with one goroutine still running", q.IsClosed(), r.Running())
		}
		close(release)
		if err := c.Join(t.Context(), time.Second); err != nil {
			t.Fatal(err)
		}
		if !q.IsClosed() || c.ShouldStop() {
			t.Fatalf("closed %v stopped %v", q.IsClosed(), c.ShouldStop())
		}
		// Closed with Close: what is in the queue stays for the
		// consumers, who then see end of input.
		if _, err := q.Dequeue(t.Context()); !errors.Is(err, io.EOF) {
			t.Fatalf("got %v", err)
		}
	})
}

// QR-01: the errors that end a goroutine cleanly are configurable.
func TestQueueRunnerClosedErrors(t *testing.T) {
	errDone := errors.New("done")
	tests := []struct {
		name    string
		opts    []RunnerOption
		stepErr error
		clean   bool
	}{
		{"end of input", nil, fmt.Errorf("reader: %w", io.EOF), true},
		{"closed queue", nil, fmt.Errorf("enqueue: %w", queue.ErrClosed), true},
		{"cancelled enqueue", nil, queue.ErrCancelled, true},
		{"other", nil, errDone, false},
		{"custom kind", []RunnerOption{QueueClosedErrors(errDone)}, errDone, true},
		{"custom list replaces the default", []RunnerOption{QueueClosedErrors(errDone)}, queue.ErrClosed, false},
	}
	for _, tt := range tests {
		q := fifo(t, 1, "q")
		r, _ := NewQueueRunner(q, []Step{func(context.Context) error { return tt.stepErr }}, tt.opts...)
		c := New()
		r.Start(t.Context(), c)
		err := c.Join(t.Context(), time.Second)
		if tt.clean != (err == nil) {
			t.Errorf("%s: Join = %v", tt.name, err)
		}
		if tt.clean && c.ShouldStop() {
			t.Errorf("%s: a clean end stopped the coordinator", tt.name)
		}
		if !q.IsClosed() {
			t.Errorf("%s: queue left open", tt.name)
		}
	}
	if _, err := NewQueueRunner(fifo(t, 1, "q"), []Step{nil}, StepNames("a", "b")); err == nil {
		t.Error("two names for one step accepted")
	}
}

// QR-06 with a coordinator: the failing runner's queue is cancelled by
// close_on_stop, and a consumer blocked on it is released.
func TestQueueRunnerErrorReleasesConsumers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := fifo(t, 1, "q")
		bad := errors.New("Operation not in the graph")
		release := make(chan struct{})
		r, _ := NewQueueRunner(q, []Step{func(context.Context) error {
			<-release
			return bad
		}})
		c := New()
		r.Start(t.Context(), c)
		errc := make(chan error, 1)
		go func() {
			_, err := q.Dequeue(context.Background())
			errc <- err
		}()
		synctest.Wait()
		close(release)
		if err := <-errc; !errors.Is(err, io.EOF) {
			t.Fatalf("consumer got %v", err)
		}
		if err := c.Join(t.Context(), time.Second); !errors.Is(err, bad) {
			t.Fatalf("Join = %v", err)
		}
	})
}

// StartAll starts every runner of a pipeline under one coordinator
// (TensorFlow's start_queue_runners over the QUEUE_RUNNERS collection).
func TestStartAll(t *testing.T) {
	var a, b atomic.Int64
	r1, _ := NewQueueRunner(fifo(t, 1, "q1"), []Step{countUpTo(&a, 5)})
	r2, _ := NewQueueRunner(fifo(t, 1, "q2"), []Step{countUpTo(&b, 7)})
	c := New()
	if n := StartAll(t.Context(), c, r1, r2); n != 2 {
		t.Fatalf("started %d", n)
	}
	if err := c.Join(t.Context(), time.Second); err != nil {
		t.Fatal(err)
	}
	if a.Load() != 5 || b.Load() != 7 {
		t.Fatalf("a=%d b=%d", a.Load(), b.Load())
	}
	// Both ended: they can start again (QR-08 allows a restart).
	if n := StartAll(t.Context(), c, r1, r2); n != 2 {
		t.Fatalf("restart started %d", n)
	}
	c.Join(t.Context(), time.Second)
}

// A runner without a coordinator stops when its context is cancelled,
// even if its step never blocks.
func TestQueueRunnerContextCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	r, _ := NewQueueRunner(fifo(t, 1, "q"), []Step{func(context.Context) error { return nil }})
	r.Start(ctx, nil)
	cancel()
	if err := r.Wait(t.Context()); err != nil {
		t.Fatal(err)
	}
	if errs := r.Errs(); len(errs) != 0 {
		t.Fatalf("a cancellation counted as an error: %v", errs)
	}
}

// BenchmarkQueueRunnerStep measures the runner's overhead per step: the
// loop, the stop checks and the end-of-input handling around a step that
// does nothing.
func BenchmarkQueueRunnerStep(b *testing.B) {
	q, _ := queue.NewFIFO(1, []tensor.DType{tensor.Float32})
	var n atomic.Int64
	limit := int64(b.N)
	step := func(context.Context) error {
		if n.Add(1) > limit {
			return io.EOF
		}
		return nil
	}
	r, _ := NewQueueRunner(q, []Step{step})
	c := New()
	b.ReportAllocs()
	b.ResetTimer()
	r.Start(b.Context(), c)
	if err := c.Join(b.Context(), time.Minute); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkQueueRunnerEnqueue moves scalars through a runner into a FIFO
// and out to a consumer: the cost per element of a one-stage pipeline.
func BenchmarkQueueRunnerEnqueue(b *testing.B) {
	ctx := context.Background()
	q, _ := queue.NewFIFO(64, []tensor.DType{tensor.Float32}, queue.Shapes(tensor.Shape{}))
	e := queue.Element{tensor.Scalar(float32(1))}
	var n atomic.Int64
	limit := int64(b.N)
	step := func(ctx context.Context) error {
		if n.Add(1) > limit {
			return io.EOF
		}
		return q.Enqueue(ctx, e)
	}
	r, _ := NewQueueRunner(q, []Step{step})
	c := New()
	b.ReportAllocs()
	b.SetBytes(4)
	b.ResetTimer()
	r.Start(ctx, c)
	for {
		if _, err := q.Dequeue(ctx); err != nil {
			if !errors.Is(err, io.EOF) {
				b.Fatal(err)
			}
			break
		}
	}
	if err := c.Join(ctx, time.Minute); err != nil {
		b.Fatal(err)
	}
}

// A panicking step fails like an erroring one: the coordinator stops with
// it and the queue is cancelled; without a coordinator it is collected.
func TestQueueRunnerStepPanics(t *testing.T) {
	boom := func(context.Context) error { panic("boom") }
	q := fifo(t, 1, "q")
	r, _ := NewQueueRunner(q, []Step{boom}, StepNames("parse"))
	c := New()
	r.Start(t.Context(), c)
	if err := c.Join(t.Context(), time.Second); err == nil || !strings.Contains(err.Error(), "QueueRunnerThread-q-parse: step panicked: boom") {
		t.Fatalf("Join = %v", err)
	}
	if !q.IsClosed() {
		t.Fatal("queue left open")
	}
	r2, _ := NewQueueRunner(fifo(t, 1, "q"), []Step{boom})
	r2.Start(t.Context(), nil)
	r2.Wait(t.Context())
	if errs := r2.Errs(); len(errs) != 1 || !strings.Contains(errs[0].Error(), "panicked") {
		t.Fatalf("errs %v", errs)
	}
}

// With a coordinator, cancelling the runner's context is a clean stop:
// the queue is cancelled so that its consumers are released too.
func TestQueueRunnerContextCancelStops(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := fifo(t, 1, "q")
		ctx, cancel := context.WithCancel(t.Context())
		r, _ := NewQueueRunner(q, []Step{func(ctx context.Context) error {
			<-ctx.Done() // a reader waiting for input
			return ctx.Err()
		}})
		c := New()
		r.Start(ctx, c)
		errc := make(chan error, 1)
		go func() {
			_, err := q.Dequeue(context.Background())
			errc <- err
		}()
		synctest.Wait()
		cancel()
		if err := c.Join(t.Context(), time.Second); err != nil || !c.ShouldStop() {
			t.Fatalf("Join = %v, stopped %v", err, c.ShouldStop())
		}
		if err := <-errc; !errors.Is(err, io.EOF) {
			t.Fatalf("consumer got %v", err)
		}
	})
}
