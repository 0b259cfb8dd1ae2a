package recordio

import (
	"context"
	"fmt"

	"github.com/sluiceml/sluice/internal/recordhook"
)

// A WorkAcker is a work queue that wants to hear when a unit taken from it
// has been read to its end. A queue shared by workers on many hosts
// (package queue/natsqueue) keeps each unit it hands out pending until
// then, and gives it to another worker if the first one dies before
// acknowledging it.
//
// A Reader whose queue is a WorkAcker calls WorkDone once for each unit,
// after the format has reached the unit's end and before the reader takes
// the next unit. A unit the reader abandons — the reader is reset,
// restored, or its caller stops reading — is not acknowledged. An error
// from WorkDone is returned by the read that finished the unit; the unit
// then counts as finished for the reader, and the queue decides whether
// to hand it out again.
type WorkAcker interface {
	WorkDone(ctx context.Context, unit string) error
}

// finishWork ends the current unit: the format's OnWorkFinished, then the
// queue's acknowledgement. r.mu is held.
func (r *Reader) finishWork(ctx context.Context) error {
	err := r.f.OnWorkFinished()
	if err != nil {
		return err
	}
	r.finished = r.started
	if a, ok := r.q.(WorkAcker); ok {
		if err := a.WorkDone(ctx, r.work); err != nil {
			return fmt.Errorf("%v: acknowledging %q: %w", r, r.work, err)
		}
	}
	if r.unitDone != nil {
		return r.unitDone(r.work, r.position)
	}
	return nil
}

func init() {
	recordhook.WatchUnits = func(r any, done func(work string, records int64) error) {
		rd := r.(*Reader)
		rd.mu.Lock()
		defer rd.mu.Unlock()
		rd.unitDone = done
	}
}
