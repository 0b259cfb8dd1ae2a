package coord

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/sluiceml/sluice/queue"
)

// A Step is one unit of a queue runner's work, usually "produce one
// element and enqueue it". The runner calls it over and over. A step
// reports that its input has ended by returning an error for which
// errors.Is(err, io.EOF) holds, or that its queue was closed by returning
// queue.ErrClosed or queue.ErrCancelled.
type Step func(ctx context.Context) error

// ErrNoQueue is returned by NewQueueRunner without a queue or steps.
var ErrNoQueue = errors.New("coord: must provide queue and enqueue steps")

// A Closer is what a QueueRunner needs of the queue it fills: a name, for
// its goroutines' names, and the two ways to close it (see queue.Queue),
// Close when the steps' input has ended and CloseNow when the coordinator
// stops. Every queue.Queue is a Closer; so is sequence.StateSaver, which
// TensorFlow too runs under a QueueRunner, and a group of queues that one
// runner's steps fill together.
type Closer interface {
	Name() string
	Close(ctx context.Context) error
	CloseNow(ctx context.Context) error
}

// A QueueRunner runs a queue's enqueue steps in goroutines, TensorFlow's
// tf.train.QueueRunner. Each step gets a goroutine that calls it in a loop
// until the coordinator stops, the step reports end of input or a closed
// queue, or the step fails. When the last goroutine ends because its input
// ended, the runner closes the queue, so the consumers drain it and then
// see end of input. When the coordinator stops, the runner closes the
// queue with CloseNow, failing any enqueue still blocked on it.
type QueueRunner struct {
	q         Closer
	steps     []Step
	stepNames []string
	isClosed  func(error) bool
	inTurn    bool // steps take turns (InTurn)

	mu      sync.Mutex
	running int           // goroutines started by the current Start still running
	done    chan struct{} // closed when they have all ended
	errs    []error
}

// A RunnerOption configures a QueueRunner.
type RunnerOption func(*QueueRunner)

// StepNames names the steps, for goroutine names in Join's messages. The
// default names are "step0", "step1", ...
func StepNames(names ...string) RunnerOption {
	return func(r *QueueRunner) { r.stepNames = names }
}

// InTurn makes the steps take turns: one step call at a time, in the
// order of the steps, step 0 first, a step whose input has ended leaving
// the rotation. The elements the steps enqueue then reach the queue in an
// order fixed by the steps alone, not by the timing of their goroutines:
// deterministic pipelines (input.Deterministic) run their runners so. The
// steps no longer run in parallel with each other, only with the rest of
// the pipeline.
func InTurn() RunnerOption {
	return func(r *QueueRunner) { r.inTurn = true }
}

// QueueClosedErrors replaces the errors that end a step's goroutine
// cleanly (TensorFlow's queue_closed_exception_types). The default is end
// of input (io.EOF), queue.ErrClosed and queue.ErrCancelled.
func QueueClosedErrors(errs ...error) RunnerOption {
	return func(r *QueueRunner) {
		r.isClosed = func(err error) bool {
			for _, e := range errs {
				if errors.Is(err, e) {
					return true
				}
			}
			return false
		}
	}
}

// NewQueueRunner returns a runner for q that runs steps. It fails with
// ErrNoQueue if q is nil or there are no steps.
func NewQueueRunner(q Closer, steps []Step, opts ...RunnerOption) (*QueueRunner, error) {
	if q == nil || len(steps) == 0 {
		return nil, ErrNoQueue
	}
	r := &QueueRunner{q: q, steps: steps}
	QueueClosedErrors(io.EOF, queue.ErrClosed, queue.ErrCancelled)(r)
	for _, o := range opts {
		o(r)
	}
	if r.stepNames != nil && len(r.stepNames) != len(steps) {
		return nil, fmt.Errorf("coord: %d step names for %d steps", len(r.stepNames), len(steps))
	}
	return r, nil
}

// Name returns the name of the runner's queue.
func (r *QueueRunner) Name() string { return r.q.Name() }

// Errs returns the errors steps failed with while the runner had no
// coordinator (TensorFlow's exceptions_raised).
func (r *QueueRunner) Errs() []error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]error(nil), r.errs...)
}

// Running reports whether goroutines of the runner are still running.
func (r *QueueRunner) Running() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.running > 0
}

// Start starts one goroutine per step, registered with c, and one that
// closes the queue with CloseNow when c stops. It returns false, starting
// nothing, if goroutines of an earlier Start are still running. If c has
// already stopped, the goroutines end without running a step. c may be
// nil: then step errors are only collected (see Errs) and nothing cancels
// the queue.
func (r *QueueRunner) Start(ctx context.Context, c *Coordinator) bool {
	r.mu.Lock()
	if r.running > 0 {
		r.mu.Unlock()
		return false
	}
	r.running = len(r.steps)
	r.errs = nil
	finished := make(chan struct{})
	r.done = finished
	var turns *turnstile
	if r.inTurn {
		turns = newTurnstile(len(r.steps))
	}
	r.mu.Unlock()

	for i, step := range r.steps {
		name := fmt.Sprintf("QueueRunnerThread-%s-%s", r.q.Name(), r.stepName(i))
		run := func(ctx context.Context) error { return r.loop(ctx, c, name, step, i, turns, finished) }
		if c != nil {
			c.Go(ctx, name, run)
		} else {
			go run(ctx)
		}
	}
	if c != nil {
		c.Go(ctx, fmt.Sprintf("QueueRunnerThread-%s-close_on_stop", r.q.Name()), func(context.Context) error {
			select {
			case <-c.Done():
			case <-finished:
				// Every step has ended. If one failed, it stopped the
				// coordinator before finishing, and the queue must still
				// be cancelled so that its consumers do not wait for ever.
				if !c.ShouldStop() {
					return nil
				}
			}
			// A CloseNow does not wait, so a background context is
			// right: the stop must reach the queue.
			r.q.CloseNow(context.Background())
			return nil
		})
	}
	return true
}

func (r *QueueRunner) stepName(i int) string {
	if r.stepNames != nil {
		return r.stepNames[i]
	}
	return fmt.Sprintf("step%d", i)
}

// loop runs one step until it ends; see QueueRunner.
func (r *QueueRunner) loop(ctx context.Context, c *Coordinator, name string, step Step, i int, turns *turnstile, finished chan struct{}) (err error) {
	clean := false
	if turns != nil {
		defer turns.leave(i)
	}
	defer func() {
		if p := recover(); p != nil {
			// A panicking step is a failed step, reported like one, so
			// that close_on_stop still cancels the queue.
			err = fmt.Errorf("coord: %s: step panicked: %v", name, p)
		}
		// Report the error before this goroutine counts as finished, so
		// the coordinator has stopped by the time close_on_stop looks.
		if !clean && err != nil {
			if c != nil {
				// Recorded by the coordinator, or, after its Join,
				// returned as too late, and kept here (Errs).
				err = c.RequestStop(err)
			}
		}
		if c != nil && !clean && ctx.Err() != nil {
			// The caller cancelled the run: a clean stop, which also
			// makes close_on_stop release the queue's consumers.
			c.RequestStop(nil)
		}
		r.mu.Lock()
		r.running--
		last := r.running == 0
		if err != nil {
			r.errs = append(r.errs, err)
		}
		r.mu.Unlock()
		if last {
			if clean {
				// Errors closing are ignored, as in TensorFlow: the queue
				// may already be closed by a cancel.
				r.q.Close(ctx)
			}
			close(finished)
		}
	}()
	done := ctx.Done()
	for {
		// Both checks are lock-free. ctx carries the coordinator's stop
		// too, but a step must not run even once after a stop (QR-07),
		// and ctx learns of it a moment later than the flag.
		if c != nil && c.ShouldStop() {
			return nil
		}
		select {
		case <-done:
			return nil
		default:
		}
		if turns != nil && !turns.wait(ctx, i) {
			return nil
		}
		err := step(ctx)
		if err == nil {
			if turns != nil {
				turns.pass(i)
			}
			continue
		}
		if ctx.Err() != nil {
			// The step's context ended: a stop, or the caller's
			// cancellation, not a failure of the step.
			return nil
		}
		if r.isClosed(err) {
			clean = true
			return nil
		}
		if c != nil && c.ShouldStop() {
			// The stop cancelled the step; that is not a new error.
			return nil
		}
		return err
	}
}

// Wait waits until the goroutines of the last Start have ended, or ctx
// ends. It is how a caller that started the runner without a coordinator
// learns that it has finished; with a coordinator, use its Join.
func (r *QueueRunner) Wait(ctx context.Context) error {
	r.mu.Lock()
	done := r.done
	r.mu.Unlock()
	if done == nil {
		return nil
	}
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("coord: wait for queue runner %q: %w", r.Name(), ctx.Err())
	}
}

// StartAll starts every runner under c, TensorFlow's start_queue_runners.
// It returns the number of runners it started (runners still running from
// an earlier start are skipped).
func StartAll(ctx context.Context, c *Coordinator, runners ...*QueueRunner) int {
	n := 0
	for _, r := range runners {
		if r.Start(ctx, c) {
			n++
		}
	}
	return n
}

// A turnstile passes one turn around a runner's steps, in order. A step
// holds the turn while its call runs; leaving, it passes the turn on if it
// holds it, and is skipped from then on.
type turnstile struct {
	mu     sync.Mutex
	active []bool
	turn   []chan struct{} // a receive from turn[i] is step i's turn
	holder int             // the step holding the turn, or -1
}

func newTurnstile(n int) *turnstile {
	t := &turnstile{active: make([]bool, n), turn: make([]chan struct{}, n), holder: -1}
	for i := range n {
		t.active[i], t.turn[i] = true, make(chan struct{}, 1)
	}
	t.turn[0] <- struct{}{}
	return t
}

// wait waits for step i's turn; false if ctx ended first.
func (t *turnstile) wait(ctx context.Context, i int) bool {
	select {
	case <-t.turn[i]:
		t.mu.Lock()
		t.holder = i
		t.mu.Unlock()
		return true
	case <-ctx.Done():
		return false
	}
}

// pass gives the turn step i holds to the next active step.
func (t *turnstile) pass(i int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.holder = -1
	t.passLocked(i)
}

func (t *turnstile) passLocked(i int) {
	n := len(t.active)
	for k := 1; k <= n; k++ {
		if j := (i + k) % n; t.active[j] {
			t.turn[j] <- struct{}{}
			return
		}
	}
}

// leave takes step i out of the rotation, passing the turn on if it holds
// it (or it was on its way to it).
func (t *turnstile) leave(i int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.active[i] = false
	if t.holder == i {
		t.holder = -1
		t.passLocked(i)
		return
	}
	select {
	case <-t.turn[i]:
		t.passLocked(i)
	default:
	}
}
