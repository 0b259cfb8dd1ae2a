package cli

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"syscall"
)

// An interruption is the cause of a command's context when a signal ended
// it. Main reports it as "interrupted" and exits as a shell reports a
// process a signal killed: 128 plus the signal's number (130 for SIGINT,
// 143 for SIGTERM).
type interruption struct{ sig os.Signal }

func (e interruption) Error() string { return "interrupted by " + e.sig.String() }

func (e interruption) exitCode() int {
	if s, ok := e.sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 130
}

// interrupted returns the interruption that cancelled ctx, if a signal did.
func interrupted(ctx context.Context) (interruption, bool) {
	var in interruption
	ok := ctx.Err() != nil && errors.As(context.Cause(ctx), &in)
	return in, ok
}

// Run runs the command line as the sluice program does: args without the
// program name, the process's standard streams, and SIGINT and SIGTERM
// cancelling the command's context so that it stops, removes what it
// had not finished writing and exits 130 or 143. The first signal asks
// for that; a second one ends the process at once, as it would end any
// other program.
func Run(args []string) int {
	ctx, stop := signalContext(context.Background())
	defer stop()
	return Main(ctx, args, os.Stdout, os.Stderr)
}

// signalContext returns a context that the first SIGINT or SIGTERM
// cancels with an interruption as its cause. After that signal sluice no
// longer catches them.
func signalContext(parent context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(parent)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-sigs:
			signal.Stop(sigs)
			cancel(interruption{s})
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(done)
		cancel(nil)
	}
}
