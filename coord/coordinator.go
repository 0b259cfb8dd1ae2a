package coord

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultGracePeriod is how long Join waits, after a stop was requested,
// for goroutines to finish (TensorFlow's stop_grace_period_secs).
const DefaultGracePeriod = 120 * time.Second

// ErrStillRunning is wrapped by the error Join returns when goroutines did
// not finish within the grace period. Its text is TensorFlow's; Join adds
// the goroutines' names, separated by spaces:
//
//	Coordinator stopped with threads still running: QueueRunnerThread-q-step0
var ErrStillRunning = errors.New("Coordinator stopped with threads still running")

// A Coordinator coordinates the termination of a set of goroutines. Its
// methods are safe for concurrent use. Make one with New: the zero value
// is not ready for use.
type Coordinator struct {
	isClean func(error) bool

	stopped atomic.Bool // written with mu held; read without, on hot paths

	mu        sync.Mutex
	stopCh    chan struct{}
	ctx       context.Context
	cancel    context.CancelFunc
	err       error // the first error reported while not yet stopped
	hasJoined bool
	running   map[*member]struct{}
	idle      chan struct{} // closed when running becomes empty
}

// member is one registered goroutine.
type member struct {
	name string
	done chan struct{}
}

// An Option configures a Coordinator.
type Option func(*Coordinator)

// CleanStopErrors adds errors that, like end of input, stop the
// coordinator without being an error (TensorFlow's
// clean_stop_exception_types). An error is clean if errors.Is matches it
// against any of them.
func CleanStopErrors(errs ...error) Option {
	return func(c *Coordinator) {
		prev := c.isClean
		c.isClean = func(err error) bool {
			for _, e := range errs {
				if errors.Is(err, e) {
					return true
				}
			}
			return prev(err)
		}
	}
}

// New returns a coordinator that has not been asked to stop. End of input
// (io.EOF) is a clean stop.
func New(opts ...Option) *Coordinator {
	c := &Coordinator{
		isClean: func(err error) bool { return errors.Is(err, io.EOF) },
		running: make(map[*member]struct{}),
		idle:    make(chan struct{}),
	}
	close(c.idle)
	c.reset()
	for _, o := range opts {
		o(c)
	}
	return c
}

// reset makes the coordinator fresh; c.mu must be held (or c unshared).
func (c *Coordinator) reset() {
	c.stopped.Store(false)
	c.stopCh = make(chan struct{})
	c.ctx, c.cancel = context.WithCancel(context.Background())
	c.err = nil
	c.hasJoined = false
}

// RequestStop asks every goroutine to stop. If err is not nil and not a
// clean stop, it is recorded as the reason, unless a stop was requested
// before: only the first report counts. Once Join has returned, a stop
// request is too late to be recorded; RequestStop then returns err to the
// caller instead (TensorFlow re-raises it) and otherwise returns nil.
func (c *Coordinator) RequestStop(err error) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.hasJoined && err != nil && !c.isClean(err) {
		return err
	}
	if c.stopped.Load() {
		return nil
	}
	if err != nil && !c.isClean(err) {
		c.err = err
	}
	c.stopped.Store(true)
	close(c.stopCh)
	c.cancel()
	return nil
}

// ShouldStop reports whether a stop was requested.
func (c *Coordinator) ShouldStop() bool { return c.stopped.Load() }

// Done returns a channel that is closed when a stop is requested.
func (c *Coordinator) Done() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stopCh
}

// Context returns a context that is cancelled when a stop is requested.
// Goroutines block with it so that a stop reaches them at once.
func (c *Coordinator) Context() context.Context {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ctx
}

// Err returns the error recorded by RequestStop, or nil; after Join, the
// first error a goroutine of Go or a QueueRunner returned too late to be
// recorded, if none was.
func (c *Coordinator) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// WaitForStop waits until a stop is requested or ctx ends, and reports
// whether a stop was requested (TensorFlow's wait_for_stop, whose timeout
// is ctx's deadline here). A stop already requested is reported even if
// ctx has ended.
func (c *Coordinator) WaitForStop(ctx context.Context) bool {
	done := c.Done()
	select {
	case <-done:
		return true
	default:
	}
	select {
	case <-done:
		return true
	case <-ctx.Done():
		return false
	}
}

// StopOnError runs f and reports its error, if any, with RequestStop
// (TensorFlow's stop_on_exception). Like TensorFlow's, StopOnError
// swallows the error once the coordinator has it, and returns nil; after
// Join, when it is too late to be recorded, it returns it (TensorFlow
// re-raises it). A panic in f is recovered and reported as an error too.
func (c *Coordinator) StopOnError(f func() error) (late error) {
	defer func() {
		if r := recover(); r != nil {
			late = c.RequestStop(fmt.Errorf("coord: panic: %v", r))
		}
	}()
	if err := f(); err != nil {
		return c.RequestStop(err)
	}
	return nil
}

// Go runs f in a new goroutine registered with the coordinator under name,
// so that Join waits for it and names it if it outlives the grace period.
// f receives ctx merged with the coordinator's stop: it is cancelled when
// either is. If f returns an error, the coordinator stops with it; an
// error that only reports ctx's cancellation stops it cleanly. An error
// returned after Join, too late for it, is kept for Err (TensorFlow hands
// it to the thread's excepthook).
func (c *Coordinator) Go(ctx context.Context, name string, f func(ctx context.Context) error) {
	m := c.register(name)
	stopCtx := c.Context()
	go func() {
		defer c.unregister(m)
		runCtx, cancel := mergeContexts(ctx, stopCtx)
		defer cancel()
		defer func() {
			if r := recover(); r != nil {
				c.RequestStop(fmt.Errorf("coord: goroutine %s panicked: %v", name, r))
			}
		}()
		err := f(runCtx)
		switch {
		case err == nil:
		case ctx.Err() != nil && errors.Is(err, ctx.Err()):
			// The caller cancelled ctx: a stop, not a failure.
			c.RequestStop(nil)
		case stopCtx.Err() != nil && errors.Is(err, runCtx.Err()):
			// The coordinator's own stop, already requested: nothing to
			// report. Reported, it was kept for Err after Join, or, after
			// a ClearStop, stopped the coordinator's next run (audit 54).
		default:
			c.keepLate(c.RequestStop(err))
		}
	}()
}

// keepLate keeps for Err an error reported after Join, if no error is
// recorded.
func (c *Coordinator) keepLate(err error) {
	if err == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil {
		c.err = err
	}
}

func (c *Coordinator) register(name string) *member {
	m := &member{name: name, done: make(chan struct{})}
	c.mu.Lock()
	if len(c.running) == 0 {
		c.idle = make(chan struct{})
	}
	c.running[m] = struct{}{}
	c.mu.Unlock()
	return m
}

func (c *Coordinator) unregister(m *member) {
	c.mu.Lock()
	delete(c.running, m)
	close(m.done)
	if len(c.running) == 0 {
		close(c.idle)
	}
	c.mu.Unlock()
}

// mergeContexts returns a context cancelled when a or b is.
func mergeContexts(a, b context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(a)
	stop := context.AfterFunc(b, cancel)
	return ctx, func() { stop(); cancel() }
}

// Join waits for the registered goroutines. It returns when all of them
// have finished, or when a stop was requested and then every goroutine
// finished within gracePeriod. It returns the error recorded by
// RequestStop, if any; otherwise, if goroutines were still running at the
// end of the grace period, an error wrapping ErrStillRunning that names
// them in TensorFlow's words. A zero gracePeriod means DefaultGracePeriod,
// a negative one none (TensorFlow's stop_grace_period_secs=0). After Join,
// a RequestStop with an error returns the error to its caller (see
// RequestStop) until ClearStop.
//
// When ctx ends first, Join returns an error wrapping ctx.Err() and the
// coordinator is not marked as joined: the goroutines run on, and Join may
// be called again. Goroutines that have all finished are joined even if
// ctx has ended.
func (c *Coordinator) Join(ctx context.Context, gracePeriod time.Duration) error {
	switch {
	case gracePeriod == 0:
		gracePeriod = DefaultGracePeriod
	case gracePeriod < 0:
		gracePeriod = 0
	}
	var grace <-chan time.Time
	stop := c.Done()
	for {
		c.mu.Lock()
		idle := c.idle
		c.mu.Unlock()
		select {
		case <-idle:
			return c.finishJoin(nil)
		default:
		}
		select {
		case <-idle:
			return c.finishJoin(nil)
		case <-ctx.Done():
			return fmt.Errorf("coord: join: %w", ctx.Err())
		case <-stop:
			// The grace period starts at the stop (CO-05).
			t := time.NewTimer(gracePeriod)
			defer t.Stop()
			grace, stop = t.C, nil
		case <-grace:
			return c.finishJoin(c.runningNames())
		}
	}
}

// finishJoin marks the coordinator joined and returns Join's result.
func (c *Coordinator) finishJoin(straggling []string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.hasJoined = true
	if c.err == nil && len(straggling) > 0 {
		return fmt.Errorf("%w: %s", ErrStillRunning, strings.Join(straggling, " "))
	}
	return c.err
}

func (c *Coordinator) runningNames() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	names := make([]string, 0, len(c.running))
	for m := range c.running {
		names = append(names, m.name)
	}
	slices.Sort(names)
	return names
}

// ClearStop makes the coordinator reusable after a Join: it clears the
// stop request, the recorded error and the joined state. Goroutines still
// running go on: without a stop requested, their contexts are not
// cancelled (TensorFlow's clear_stop only resets its flags).
func (c *Coordinator) ClearStop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.stopped.Load() {
		c.err, c.hasJoined = nil, false
		return
	}
	c.reset() // the stop cancelled the context its goroutines have
}

// Loop runs f in a registered goroutine, back to back when interval is 0,
// otherwise at the boundaries start, start+interval, start+2·interval, …
// (TensorFlow's LooperThread.loop). A call that overruns boundaries is
// followed at once by one call for each boundary it missed, as in
// TensorFlow.
//
// Before every call, the first included, Loop checks whether a stop was
// requested or ctx ended, and returns if so: f never runs on a stopped
// coordinator, and a stop during the wait for the next boundary ends the
// loop at once. A stop requested while f runs is seen when f returns.
// End of input from f ends the loop and stops the coordinator cleanly;
// any other error stops it with that error.
func (c *Coordinator) Loop(ctx context.Context, name string, interval time.Duration, f func(ctx context.Context) error) {
	c.Go(ctx, name, func(ctx context.Context) error {
		// ctx follows a stop only through a goroutine of its own, a
		// moment late; ShouldStop and Done see it at once.
		stop := c.Done()
		stopped := func() bool { return c.ShouldStop() || ctx.Err() != nil }
		var timer *time.Timer
		next := time.Now()
		for {
			if interval > 0 {
				if wait := time.Until(next); wait > 0 {
					if timer == nil {
						timer = time.NewTimer(wait)
						defer timer.Stop()
					} else {
						timer.Reset(wait)
					}
					select {
					case <-stop:
					case <-ctx.Done():
					case <-timer.C:
					}
				}
				next = next.Add(interval)
			}
			if stopped() {
				return nil
			}
			if err := f(ctx); err != nil {
				return err
			}
		}
	})
}
