package blobfs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"time"

	"github.com/sluiceml/sluice/storage"
	"gocloud.dev/gcerrors"
)

// retry calls op until it succeeds, fails permanently, or has failed
// transiently more than c.retries times in a row without progress. op
// reports how many bytes it moved before failing; any progress resets
// the count, so a body that keeps breaking is resumed rather than given
// up on, while one that breaks at the same place every time is not.
func (c *config) retry(ctx context.Context, op func() (progress int, err error)) error {
	failures := 0
	for {
		n, err := op()
		if err == nil {
			return nil
		}
		if n > 0 {
			failures = 0
		}
		if !transient(ctx, err) || failures >= c.retries {
			// A connection the store closed before answering is an error
			// wrapping io.EOF, not the end of anything (audit 61).
			return storage.MaskEOF(err)
		}
		if err := sleep(ctx, c.backoff(failures)); err != nil {
			return err
		}
		failures++
	}
}

// backoff returns the wait before retry number i (0-based): exponential,
// capped, with "equal jitter" so that many readers hit by the same outage
// do not retry in step.
func (c *config) backoff(i int) time.Duration {
	d := c.maxBackoff
	if i < 30 && c.minBackoff<<i < d {
		d = c.minBackoff << i
	}
	return d/2 + rand.N(d/2+1)
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// transient reports whether err is worth retrying: anything but a
// cancelled context, a changed object or an answer the service will give
// again (missing, forbidden, invalid). Server errors (5xx), throttling,
// reset connections, bodies that end early (io.ErrUnexpectedEOF) and
// stalled requests (ErrStalled) are all transient.
func transient(ctx context.Context, err error) bool {
	if ctx.Err() != nil || errors.Is(err, context.Canceled) || errors.Is(err, ErrObjectChanged) || errors.Is(err, ErrClosed) ||
		errors.Is(err, ErrLongBody) || errors.Is(err, ErrListingLoops) || errors.Is(err, ErrListingCut) ||
		errors.Is(err, errUnreadablePage) {
		return false
	}
	switch gcerrors.Code(err) {
	case gcerrors.NotFound, gcerrors.PermissionDenied, gcerrors.InvalidArgument,
		gcerrors.FailedPrecondition, gcerrors.Unimplemented, gcerrors.AlreadyExists,
		gcerrors.Canceled:
		return false
	}
	return true
}

// notExist adds fs.ErrNotExist to the chain of a not-found error so that
// callers can test it the way they test a missing local file.
func notExist(err error) error {
	if gcerrors.Code(err) == gcerrors.NotFound && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w: %w", fs.ErrNotExist, err)
	}
	return err
}
