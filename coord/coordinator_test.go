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
	"testing"
	"testing/synctest"
	"time"
)

// CO-01
func TestNewCoordinatorNotStopped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := New()
		if c.ShouldStop() {
			t.Fatal("new coordinator should not stop")
		}
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Millisecond)
		defer cancel()
		if c.WaitForStop(ctx) {
			t.Fatal("WaitForStop returned true before a stop")
		}
		c.RequestStop(nil)
		// ctx has ended: a stop already requested is still reported.
		if !c.ShouldStop() || !c.WaitForStop(ctx) {
			t.Fatal("stop not seen")
		}
		select {
		case <-c.Done():
		default:
			t.Fatal("Done not closed")
		}
		if c.Context().Err() == nil {
			t.Fatal("Context not cancelled by stop")
		}
	})
}

// CO-02
func TestWaitForStopWakesOnRequest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := New()
		go func() {
			time.Sleep(time.Second)
			c.RequestStop(nil)
		}()
		start := time.Now()
		ctx, cancel := context.WithTimeout(t.Context(), time.Hour)
		defer cancel()
		if !c.WaitForStop(ctx) {
			t.Fatal("WaitForStop = false")
		}
		if d := time.Since(start); d != time.Second {
			t.Fatalf("woke after %v, want 1s", d)
		}
	})
}

// CO-03: goroutines that end on their own are joined without a stop.
func TestJoinWithoutStop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := New()
		var done atomic.Int32
		for i := range 3 {
			c.Go(t.Context(), fmt.Sprint("g", i), func(ctx context.Context) error {
				time.Sleep(time.Duration(i) * time.Millisecond)
				done.Add(1)
				return nil
			})
		}
		if err := c.Join(t.Context(), 0); err != nil {
			t.Fatal(err)
		}
		if done.Load() != 3 || c.ShouldStop() {
			t.Fatalf("done=%d stopped=%v", done.Load(), c.ShouldStop())
		}
	})
}

// CO-04, CO-05: the grace period starts at the stop, and stragglers are
// named.
func TestJoinGracePeriod(t *testing.T) {
	for _, grace := range []time.Duration{time.Nanosecond, 2 * time.Millisecond, time.Second} {
		synctest.Test(t, func(t *testing.T) {
			c := New()
			c.Go(t.Context(), "stopper", func(ctx context.Context) error {
				c.RequestStop(nil)
				return nil
			})
			c.Go(t.Context(), "sleeper", func(ctx context.Context) error {
				time.Sleep(10 * time.Second)
				return nil
			})
			start := time.Now()
			err := c.Join(t.Context(), grace)
			if !errors.Is(err, ErrStillRunning) || err.Error() != "Coordinator stopped with threads still running: sleeper" {
				t.Fatalf("grace %v: Join = %v", grace, err)
			}
			if d := time.Since(start); d != grace {
				t.Fatalf("Join took %v, want %v", d, grace)
			}
			if strings.Contains(err.Error(), "stopper") {
				t.Fatalf("finished goroutine named: %v", err)
			}
			time.Sleep(10 * time.Second) // let the sleeper end inside the bubble
		})
	}
}

// CO-06, CO-07: the first error wins and beats the straggler error.
func TestFirstErrorWins(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := New()
		c.Go(t.Context(), "first", func(ctx context.Context) error {
			time.Sleep(10 * time.Millisecond)
			return errors.New("First")
		})
		c.Go(t.Context(), "late", func(ctx context.Context) error {
			time.Sleep(20 * time.Millisecond)
			return errors.New("Too late")
		})
		c.Go(t.Context(), "straggler", func(ctx context.Context) error {
			time.Sleep(time.Hour)
			return nil
		})
		if err := c.Join(t.Context(), time.Second); err == nil || err.Error() != "First" {
			t.Fatalf("Join = %v, want First", err)
		}
		time.Sleep(time.Hour)
	})
}

// CO-08: a clean stop first means later errors are not recorded.
func TestCleanStopFirst(t *testing.T) {
	c := New()
	c.RequestStop(nil)
	c.RequestStop(errors.New("ignored"))
	if err := c.Join(t.Context(), time.Second); err != nil {
		t.Fatalf("Join = %v", err)
	}
}

// CO-09: end of input and configured errors are clean stops.
func TestCleanStopErrors(t *testing.T) {
	c := New()
	c.RequestStop(fmt.Errorf("queue drained: %w", io.EOF))
	if err := c.Join(t.Context(), time.Second); err != nil {
		t.Fatalf("io.EOF: Join = %v", err)
	}
	errValue := errors.New("value")
	c = New(CleanStopErrors(errValue))
	c.RequestStop(fmt.Errorf("wrapped: %w", errValue))
	if err := c.Join(t.Context(), time.Second); err != nil {
		t.Fatalf("clean error: Join = %v", err)
	}
	c = New(CleanStopErrors(errValue))
	c.RequestStop(errors.New("other"))
	if err := c.Join(t.Context(), time.Second); err == nil {
		t.Fatal("other error not reported")
	}
}

// CO-10, CO-11: ClearStop, and stop requests after Join.
func TestClearStopAndLateRequests(t *testing.T) {
	c := New()
	c.Go(t.Context(), "t", func(ctx context.Context) error { return errors.New("First") })
	if err := c.Join(t.Context(), time.Second); err == nil || err.Error() != "First" {
		t.Fatalf("Join = %v", err)
	}
	tooLate := errors.New("Too late")
	if err := c.RequestStop(tooLate); err != tooLate {
		t.Fatalf("RequestStop after Join = %v, want the error back", err)
	}
	c.ClearStop()
	if c.ShouldStop() || c.Err() != nil {
		t.Fatal("ClearStop did not reset")
	}
	c.Go(t.Context(), "t", func(ctx context.Context) error { return errors.New("Second") })
	if err := c.Join(t.Context(), time.Second); err == nil || err.Error() != "Second" {
		t.Fatalf("Join = %v, want Second", err)
	}
	c.ClearStop()
	if err := c.RequestStop(errors.New("After clear")); err != nil {
		t.Fatalf("RequestStop after ClearStop = %v", err)
	}
	if err := c.Join(t.Context(), time.Second); err == nil || err.Error() != "After clear" {
		t.Fatalf("Join = %v, want After clear", err)
	}
}

// CO-13: StopOnError reports errors and panics and swallows them.
func TestStopOnError(t *testing.T) {
	c := New()
	c.StopOnError(func() error { return nil })
	if c.ShouldStop() {
		t.Fatal("stopped without an error")
	}
	c.StopOnError(func() error { panic("boom") })
	if !c.ShouldStop() || c.Err() == nil || !strings.Contains(c.Err().Error(), "boom") {
		t.Fatalf("panic not reported: %v", c.Err())
	}
}

// A stop cancels the context every goroutine runs with, so blocked calls
// return at once.
func TestStopCancelsGoroutines(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := New()
		c.Go(t.Context(), "blocked", func(ctx context.Context) error {
			<-ctx.Done()
			return ctx.Err()
		})
		synctest.Wait()
		c.RequestStop(nil)
		if err := c.Join(t.Context(), time.Second); err != nil {
			t.Fatalf("Join = %v", err)
		}
	})
}

// A goroutine that ends after Join gave up on it, with its context's
// cancellation, reports nothing: the stop was the coordinator's own. It
// was kept for Err, and after a ClearStop (CO-10) it stopped the
// coordinator's next run (audit 54).
func TestLateCancellationIsNoError(t *testing.T) {
	for _, clear := range []bool{false, true} {
		t.Run(fmt.Sprintf("ClearStop=%v", clear), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				c := New()
				c.Go(t.Context(), "slow to stop", func(ctx context.Context) error {
					<-ctx.Done()
					time.Sleep(50 * time.Millisecond)
					return fmt.Errorf("slow: %w", ctx.Err())
				})
				synctest.Wait()
				c.RequestStop(nil)
				if err := c.Join(t.Context(), time.Millisecond); !errors.Is(err, ErrStillRunning) {
					t.Fatalf("Join = %v, want ErrStillRunning", err)
				}
				if clear {
					c.ClearStop()
				}
				time.Sleep(100 * time.Millisecond) // the goroutine ends
				synctest.Wait()
				if err := c.Err(); err != nil {
					t.Errorf("Err = %v after the late goroutine ended, want nil", err)
				}
				if clear && c.ShouldStop() {
					t.Error("the coordinator cleared for a next run was stopped by the last run's goroutine")
				}
			})
		})
	}
}

// CO-14: a looping goroutine counts down, then stops the coordinator; the
// stop is checked before every call, so the count ends at exactly 0, back
// to back or on a timer.
func TestLoop(t *testing.T) {
	for _, interval := range []time.Duration{0, time.Second} {
		t.Run(fmt.Sprint(interval), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				c := New()
				n := 3
				c.Loop(t.Context(), "looper", interval, func(ctx context.Context) error {
					if c.ShouldStop() {
						t.Error("called after the stop")
					}
					n--
					if n == 0 {
						c.RequestStop(nil)
					}
					return nil
				})
				start := time.Now()
				if err := c.Join(t.Context(), time.Second); err != nil {
					t.Fatal(err)
				}
				if n != 0 || time.Since(start) != 2*interval {
					t.Fatalf("n=%d after %v", n, time.Since(start))
				}
			})
		})
	}
}

// LooperThread checks should_stop before its first call too: a loop
// started on a stopped coordinator never calls its function.
func TestLoopOnStoppedCoordinator(t *testing.T) {
	for _, interval := range []time.Duration{0, time.Second} {
		t.Run(fmt.Sprint(interval), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				c := New()
				c.RequestStop(nil)
				calls := 0
				c.Loop(t.Context(), "looper", interval, func(ctx context.Context) error {
					calls++
					return nil
				})
				start := time.Now()
				if err := c.Join(t.Context(), time.Second); err != nil {
					t.Fatal(err)
				}
				if calls != 0 || time.Since(start) != 0 {
					t.Fatalf("%d calls, Join after %v", calls, time.Since(start))
				}
			})
		})
	}
}

// A stop from another goroutine ends a timed loop's wait at once, and no
// call starts after it, even when the stop falls on a call's boundary.
// At a boundary the call and the stop come at the same instant, in either
// order: a call that came first may see the stop while it runs, so what
// is checked is the call's time, not ShouldStop (which failed under load).
func TestLoopStopDuringWait(t *testing.T) {
	for _, stopAt := range []time.Duration{1500 * time.Millisecond, 2 * time.Second} {
		t.Run(fmt.Sprint(stopAt), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				c := New()
				var calls atomic.Int32
				start := time.Now()
				c.Loop(t.Context(), "looper", time.Second, func(ctx context.Context) error {
					if at := time.Since(start); at > stopAt {
						t.Errorf("called at %v, after the stop at %v", at, stopAt)
					}
					calls.Add(1)
					return nil
				})
				time.Sleep(stopAt)
				c.RequestStop(nil)
				if err := c.Join(t.Context(), time.Second); err != nil {
					t.Fatal(err)
				}
				if time.Since(start) != stopAt {
					t.Fatalf("Join returned %v after the stop", time.Since(start)-stopAt)
				}
				// Calls at 0 and 1 s, and at 2 s only if it came first.
				if n := calls.Load(); n < 2 || n > 3 {
					t.Fatalf("%d calls", n)
				}
			})
		})
	}
}

// Calls fall on boundaries start + k·interval, as LooperThread's do: a
// slow call does not push the later ones back, and one that overruns
// boundaries is followed by a call for each of them at once.
func TestLoopBoundaries(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := New()
		start := time.Now()
		var at []time.Duration
		c.Loop(t.Context(), "looper", time.Second, func(ctx context.Context) error {
			at = append(at, time.Since(start))
			switch len(at) {
			case 2:
				time.Sleep(300 * time.Millisecond)
			case 3:
				time.Sleep(2500 * time.Millisecond) // misses 3 s and 4 s
			case 6:
				c.RequestStop(nil)
			}
			return nil
		})
		if err := c.Join(t.Context(), time.Second); err != nil {
			t.Fatal(err)
		}
		ms := time.Millisecond
		want := []time.Duration{0, 1000 * ms, 2000 * ms, 4500 * ms, 4500 * ms, 5000 * ms}
		if !slices.Equal(at, want) {
			t.Fatalf("calls at %v, want %v", at, want)
		}
	})
}

// The caller's context ends a loop too, back to back or waiting.
func TestLoopContextCancel(t *testing.T) {
	for _, interval := range []time.Duration{0, time.Second} {
		t.Run(fmt.Sprint(interval), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				c := New()
				ctx, cancel := context.WithCancel(t.Context())
				calls := 0
				c.Loop(ctx, "looper", interval, func(context.Context) error {
					calls++
					if calls == 2 {
						cancel()
					}
					return nil
				})
				if err := c.Join(t.Context(), time.Second); err != nil {
					t.Fatal(err)
				}
				if calls != 2 {
					t.Fatalf("%d calls", calls)
				}
			})
		})
	}
}

// CO-04: the names of every straggler, sorted, separated by spaces as
// TensorFlow joins them.
func TestJoinNamesAllStragglers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := New()
		for _, name := range []string{"b", "a", "c"} {
			c.Go(t.Context(), name, func(context.Context) error {
				time.Sleep(time.Minute)
				return nil
			})
		}
		c.Go(t.Context(), "done", func(context.Context) error { return nil })
		synctest.Wait()
		c.RequestStop(nil)
		err := c.Join(t.Context(), time.Second)
		if err == nil || err.Error() != "Coordinator stopped with threads still running: a b c" {
			t.Fatalf("Join = %v", err)
		}
		time.Sleep(time.Minute)
	})
}

// CO-05: without a stop, Join waits for the goroutines however long they
// take; the grace period does not apply.
func TestJoinWaitsWithoutStop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := New()
		c.Go(t.Context(), "slow", func(context.Context) error {
			time.Sleep(time.Hour)
			return nil
		})
		start := time.Now()
		if err := c.Join(t.Context(), time.Millisecond); err != nil || time.Since(start) != time.Hour {
			t.Fatalf("Join = %v after %v", err, time.Since(start))
		}
	})
}

// CO-06, CO-13: the same through StopOnError from plain goroutines.
func TestStopOnErrorFirstWins(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := New()
		var wg sync.WaitGroup
		wg.Go(func() {
			c.StopOnError(func() error {
				time.Sleep(10 * time.Millisecond)
				return errors.New("First")
			})
		})
		wg.Go(func() {
			c.StopOnError(func() error {
				time.Sleep(50 * time.Millisecond)
				return errors.New("Too late")
			})
		})
		wg.Wait()
		if err := c.Join(t.Context(), time.Second); err == nil || err.Error() != "First" {
			t.Fatalf("Join = %v", err)
		}
	})
}

// CO-11: after Join, a clean stop request is still silently accepted;
// only an error comes back.
func TestRequestStopAfterJoin(t *testing.T) {
	c := New()
	if err := c.Join(t.Context(), time.Second); err != nil {
		t.Fatal(err)
	}
	if err := c.RequestStop(nil); err != nil {
		t.Fatalf("clean stop after Join = %v", err)
	}
	if err := c.RequestStop(io.EOF); err != nil {
		t.Fatalf("end of input after Join = %v", err)
	}
	tooLate := fmt.Errorf("step: %w", errors.New("Too late"))
	if err := c.RequestStop(tooLate); err != tooLate {
		t.Fatalf("error after Join = %v", err)
	}
}

// CO-12: Join waits for every goroutine registered so far, and a later
// Join for those registered after it.
func TestJoinRegistered(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := New()
		var ran atomic.Int32
		for i := range 4 {
			c.Go(t.Context(), fmt.Sprint("g", i), func(context.Context) error {
				time.Sleep(time.Duration(i+1) * time.Second)
				ran.Add(1)
				return nil
			})
		}
		if err := c.Join(t.Context(), 0); err != nil || ran.Load() != 4 {
			t.Fatalf("Join = %v with %d ended", err, ran.Load())
		}
		start := time.Now()
		if err := c.Join(t.Context(), 0); err != nil || time.Since(start) != 0 {
			t.Fatal("a second Join waited: the registered set was not emptied")
		}
		c.Go(t.Context(), "late", func(context.Context) error {
			time.Sleep(time.Second)
			ran.Add(1)
			return nil
		})
		if err := c.Join(t.Context(), 0); err != nil || ran.Load() != 5 {
			t.Fatalf("Join = %v with %d ended", err, ran.Load())
		}
	})
}

// Join returns as soon as its context ends, with an error wrapping
// ctx.Err(), whether it waits for goroutines to end or for a stop's grace
// period to pass, and leaves the coordinator joinable.
func TestJoinContextEnds(t *testing.T) {
	tests := []struct {
		name    string
		stop    bool // request a stop first, so that Join waits in the grace period
		end     func(context.Context) (context.Context, context.CancelFunc)
		wantErr error
	}{
		{"cancelled, running", false, cancelAfterSecond, context.Canceled},
		{"deadline, running", false, deadlineInSecond, context.DeadlineExceeded},
		{"cancelled, in grace period", true, cancelAfterSecond, context.Canceled},
		{"deadline, in grace period", true, deadlineInSecond, context.DeadlineExceeded},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				c := New()
				release := make(chan struct{})
				c.Go(t.Context(), "straggler", func(context.Context) error {
					<-release // ignores the stop: only the caller's context ends Join
					return nil
				})
				if tt.stop {
					c.RequestStop(nil)
				}
				ctx, cancel := tt.end(t.Context())
				defer cancel()
				start := time.Now()
				err := c.Join(ctx, time.Hour)
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("Join = %v, want an error wrapping %v", err, tt.wantErr)
				}
				if d := time.Since(start); d != time.Second {
					t.Fatalf("Join returned after %v, want 1s (when its context ended)", d)
				}
				if err := c.RequestStop(errors.New("boom")); err != nil && !tt.stop {
					t.Fatalf("the ended Join marked the coordinator joined: %v", err)
				}
				close(release)
				if err := c.Join(t.Context(), time.Hour); tt.stop && err != nil || !tt.stop && (err == nil || err.Error() != "boom") {
					t.Fatalf("second Join = %v", err)
				}
			})
		})
	}
}

func cancelAfterSecond(parent context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(parent)
	time.AfterFunc(time.Second, cancel)
	return ctx, cancel
}

func deadlineInSecond(parent context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(parent, time.Second)
}

// Join with a context that has already ended still joins goroutines that
// have all finished, so that a deferred Join after a cancellation does not
// report the cancellation as a failure to join.
func TestJoinEndedContextIdle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := New()
		c.Go(t.Context(), "quick", func(context.Context) error { return nil })
		synctest.Wait()
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		if err := c.Join(ctx, time.Second); err != nil {
			t.Fatalf("Join = %v", err)
		}
		if err := c.RequestStop(errors.New("late")); err == nil {
			t.Fatal("Join did not mark the coordinator joined")
		}
	})
}

// WaitForStop returns false when its context ends before a stop.
func TestWaitForStopContextEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := New()
		ctx, cancel := cancelAfterSecond(t.Context())
		defer cancel()
		start := time.Now()
		if c.WaitForStop(ctx) {
			t.Fatal("WaitForStop = true without a stop")
		}
		if d := time.Since(start); d != time.Second {
			t.Fatalf("WaitForStop returned after %v, want 1s", d)
		}
	})
}

// A caller's cancelled context is a clean stop; a panic is an error.
func TestGoContextAndPanic(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := New()
		ctx, cancel := context.WithCancel(t.Context())
		c.Go(ctx, "reader", func(ctx context.Context) error {
			<-ctx.Done()
			return fmt.Errorf("read: %w", ctx.Err())
		})
		cancel()
		if err := c.Join(t.Context(), time.Second); err != nil || !c.ShouldStop() {
			t.Fatalf("Join = %v, stopped %v", err, c.ShouldStop())
		}
		c.ClearStop()
		c.Go(t.Context(), "buggy", func(context.Context) error {
			var m map[string]int
			//lint:ignore SA5000 the goroutine is meant to panic
			m["x"] = 1
			return nil
		})
		if err := c.Join(t.Context(), time.Second); err == nil || !strings.Contains(err.Error(), "goroutine buggy panicked") {
			t.Fatalf("Join = %v", err)
		}
	})
}

// ClearStop with no stop requested leaves running goroutines alone, as
// TensorFlow's clear_stop (which only resets its flags) does: it
// cancelled their contexts, and a goroutine returning its context's error
// then stopped the fresh coordinator with it (audit 36).
func TestClearStopLeavesRunning(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := New()
		cancelled := make(chan struct{})
		c.Go(t.Context(), "worker", func(ctx context.Context) error {
			<-ctx.Done()
			close(cancelled)
			return ctx.Err()
		})
		synctest.Wait()
		c.ClearStop()
		synctest.Wait()
		select {
		case <-cancelled:
			t.Fatal("ClearStop cancelled a running goroutine's context")
		default:
		}
		if c.ShouldStop() || c.Err() != nil {
			t.Fatalf("after ClearStop: ShouldStop %v, Err %v", c.ShouldStop(), c.Err())
		}
		c.RequestStop(nil)
		if err := c.Join(t.Context(), time.Second); err != nil {
			t.Fatalf("Join = %v", err)
		}
	})
}

// An error reported after Join, too late to be recorded, is not lost
// (audit 36): StopOnError returns it (TensorFlow's stop_on_exception
// re-raises it), a goroutine's is kept for Err, and a QueueRunner step's,
// of a runner started after the Join, for the runner's Errs. (A step
// failing after a stop is the stop's doing, and no error.)
func TestErrorAfterJoin(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := New()
		release := make(chan struct{})
		c.Go(t.Context(), "straggler", func(context.Context) error {
			<-release // deaf to the stop
			return errors.New("disk full")
		})
		c.RequestStop(nil)
		if err := c.Join(t.Context(), time.Second); !errors.Is(err, ErrStillRunning) {
			t.Fatalf("Join = %v, want ErrStillRunning", err)
		}
		tooLate := errors.New("too late")
		if err := c.StopOnError(func() error { return tooLate }); err != tooLate {
			t.Errorf("StopOnError after Join = %v, want %v", err, tooLate)
		}
		close(release)
		synctest.Wait()
		if err := c.Err(); err == nil || err.Error() != "disk full" {
			t.Errorf("Err after a straggler failed = %v, want disk full", err)
		}

		c = New()
		if err := c.Join(t.Context(), time.Second); err != nil {
			t.Fatal(err)
		}
		r, err := NewQueueRunner(fifo(t, 1, "q"), []Step{func(context.Context) error { return errors.New("step failed") }})
		if err != nil {
			t.Fatal(err)
		}
		r.Start(t.Context(), c)
		synctest.Wait()
		if errs := r.Errs(); len(errs) != 1 || errs[0].Error() != "step failed" {
			t.Errorf("runner's Errs = %v", errs)
		}
	})
}

// A negative grace period is none: Join reports the goroutines still
// running as soon as the stop is requested (TensorFlow's
// stop_grace_period_secs=0); zero is DefaultGracePeriod.
func TestJoinNoGrace(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		for _, tc := range []struct {
			grace, want time.Duration
		}{{-1, 0}, {0, DefaultGracePeriod}} {
			c := New()
			release := make(chan struct{})
			c.Go(t.Context(), "straggler", func(context.Context) error {
				<-release
				return nil
			})
			c.RequestStop(nil)
			start := time.Now()
			if err := c.Join(t.Context(), tc.grace); !errors.Is(err, ErrStillRunning) || time.Since(start) != tc.want {
				t.Errorf("grace %v: Join = %v after %v, want ErrStillRunning after %v", tc.grace, err, time.Since(start), tc.want)
			}
			close(release)
			synctest.Wait()
		}
	})
}
