package blobfs

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ErrStalled reports a request that went StallTimeout without receiving
// a byte, on its first attempt and on every retry.
var ErrStalled = errors.New("blobfs: request stalled")

// errStall is the cause with which a stalled request's context is
// cancelled, to tell it from a cancellation by the caller.
var errStall = errors.New("no progress")

// A watchdog cancels one request's context when the request has made no
// progress for the stall timeout. Without a deadline on the caller's
// context a response that sends its headers and then nothing would
// otherwise hold its reader forever.
type watchdog struct {
	ctx    context.Context
	cancel context.CancelCauseFunc
	d      time.Duration
	t      *time.Timer // nil without a timeout
}

// watch returns a watchdog whose context, derived from ctx, is for one
// request. The caller must call stop when the request is done.
func (c *config) watch(ctx context.Context) *watchdog {
	w := &watchdog{d: c.stallTimeout}
	w.ctx, w.cancel = context.WithCancelCause(ctx)
	if w.d > 0 {
		w.t = time.AfterFunc(w.d, func() { w.cancel(errStall) })
	}
	return w
}

// progress records that bytes arrived, restarting the countdown.
func (w *watchdog) progress() {
	if w.t != nil {
		w.t.Reset(w.d)
	}
}

func (w *watchdog) stop() {
	if w.t != nil {
		w.t.Stop()
	}
	w.cancel(nil)
}

// err returns err, the request's outcome, as ErrStalled if the watchdog
// cancelled the request: the transport reports that as a cancelled
// context, which is not to be retried, while a stall is.
func (w *watchdog) err(err error) error {
	if err != nil && context.Cause(w.ctx) == errStall {
		return fmt.Errorf("%w: no data for %v", ErrStalled, w.d)
	}
	return err
}
