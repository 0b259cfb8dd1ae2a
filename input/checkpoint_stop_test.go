package input

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"
)

// A restored pipeline stopped (Stop, or Start's context cancelled) while
// its first Next replays the batches before the checkpoint: Next reports
// the end of input, not that the checkpoint does not fit (ErrCheckpoint),
// which would tell a program to throw away a checkpoint that fits.
func TestStopDuringReplay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// Each value takes a millisecond of the bubble's time: the
		// replay is under way when the test stops it.
		wait := func(ctx context.Context) error {
			select {
			case <-time.After(time.Millisecond):
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		build := func(opts ...PipelineOption) (*Pipeline, *Batches) { return rangeBatches(400, wait, opts...) }
		ctx := t.Context()
		ck := checkpointAfter(t, ctx, 90, build)
		for _, how := range []string{"Stop", "cancel Start"} {
			p, out := build(Resume(ck))
			startCtx, cancel := context.WithCancel(ctx)
			if err := p.Start(startCtx); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() {
				_, err := out.Next(ctx)
				done <- err
			}()
			time.Sleep(50 * time.Millisecond) // the bubble's: 50 of the 360 values replayed
			if how == "Stop" {
				p.Stop(ctx)
			} else {
				cancel()
			}
			if err := <-done; err == nil || errors.Is(err, ErrCheckpoint) {
				t.Errorf("Next after %s during the replay: %v, want the end of input", how, err)
			}
			p.Stop(ctx)
			cancel()
		}
	})
}
