// Package interrupt turns SIGINT and SIGTERM into a cancelled context, so
// that a command stops as any other cancellation stops it — closing files,
// removing what it had not finished writing, stopping servers — and then
// exits as a shell reports a process the signal killed: 128 plus the
// signal's number (130 for SIGINT, 143 for SIGTERM).
package interrupt

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"syscall"
)

// An Error is the cause of a context a signal cancelled.
type Error struct{ Signal os.Signal }

func (e Error) Error() string { return "interrupted by " + e.Signal.String() }

// ExitCode is 128 plus the signal's number.
func (e Error) ExitCode() int {
	if s, ok := e.Signal.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 130
}

// Context returns a context that the first SIGINT or SIGTERM cancels with
// an Error as its cause. After that signal the process no longer catches
// them, so a second one ends it at once, as it would end any program.
// stop releases the signals and cancels the context.
func Context(parent context.Context) (ctx context.Context, stop context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(parent)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-sigs:
			signal.Stop(sigs)
			cancel(Error{s})
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(done)
		cancel(nil)
	}
}

// Cause returns the Error that cancelled ctx, if a signal did.
func Cause(ctx context.Context) (Error, bool) {
	var e Error
	ok := ctx.Err() != nil && errors.As(context.Cause(ctx), &e)
	return e, ok
}
