//go:build unix

package interrupt

import (
	"context"
	"errors"
	"syscall"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// A real signal to this process cancels the context with the signal as
// its cause, and the exit code is the shell's.
func TestContext(t *testing.T) {
	for _, tc := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGINT, 130}, {syscall.SIGTERM, 143}} {
		ctx, stop := Context(context.Background())
		if _, ok := Cause(ctx); ok {
			t.Fatal("Cause before any signal")
		}
		syscall.Kill(syscall.Getpid(), tc.sig)
		<-ctx.Done()
		e, ok := Cause(ctx)
		if !ok || e.Signal != tc.sig || e.ExitCode() != tc.code {
			t.Errorf("%v: Cause = %v, %v; exit code %d, want %d", tc.sig, e, ok, e.ExitCode(), tc.code)
		}
		stop()
	}
}

// stop cancels without a signal: no Error.
func TestStop(t *testing.T) {
	ctx, stop := Context(context.Background())
	stop()
	if _, ok := Cause(ctx); ok || !errors.Is(ctx.Err(), context.Canceled) {
		t.Errorf("after stop: Cause ok %v, Err %v", ok, ctx.Err())
	}
}
