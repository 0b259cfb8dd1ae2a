package stagehook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
)

// ErrCheckpoint is input.ErrCheckpoint: a checkpoint that does not fit
// the pipeline restoring it. It lives here so that a replay in any stage
// package reports it.
var ErrCheckpoint = errors.New("checkpoint does not fit")

// A Stage is one stage's part in its pipeline's checkpoints
// (input.Pipeline.Checkpoint). A deterministic pipeline's batches are a
// function of its inputs, seed and options alone, so a checkpoint records
// what the stages are (to refuse a pipeline built differently), how many
// batches each consumer has taken, and the values no input holds (the
// state saver's carried states); a restored pipeline replays the same run
// and drops the batches taken before.
//
// A stage fills Desc (and Files, Save) and registers the Stage with
// Pipeline.AddStage while it is built; a stage that hands out batches calls
// Replay before its consumer's first batch and Taken after each batch.
type Stage struct {
	// Desc names the stage and every option that shapes what it hands
	// out, in words a user recognises when a checkpoint is refused:
	// `shuffle_batch_join "name": batch 128, capacity 10384, ...`.
	Desc string
	// Files are the names a producer hands out that are files: their
	// sizes are recorded so that a changed input is refused too.
	Files []string
	// Save, if set, returns the stage's state beyond the batches taken,
	// between two batches.
	Save func() (json.RawMessage, error)
	// Stopping, set by the pipeline, reports whether it was asked to
	// stop: a replay that meets the end of input then ends with it, not
	// with ErrCheckpoint, which would tell the program to throw away a
	// checkpoint that fits.
	Stopping func() bool
	// Pipeline, set by the pipeline, is the value InRunners marks its
	// runners' contexts with.
	Pipeline any

	taken   atomic.Int64
	pending atomic.Bool // a replay is still to run

	mu       sync.Mutex
	skip     int64           // batches to drop on replay
	restored json.RawMessage // Save's value in the checkpoint
}

type runnersKey struct{}

// InRunners returns ctx marked as the context of pipeline's runners. A
// stage's batches taken under it feed another stage of the same pipeline
// (a batcher's step that takes an upstream batcher's batches, TensorFlow's
// enqueue_many): a restored pipeline replays that stage's run whole, so
// they are neither counted (Taken) nor dropped again (Replay); only the
// program's own consumers are.
func InRunners(ctx context.Context, pipeline any) context.Context {
	return context.WithValue(ctx, runnersKey{}, pipeline)
}

// internal reports whether ctx is one of the stage's pipeline's runners'.
func (s *Stage) internal(ctx context.Context) bool {
	return s.Pipeline != nil && ctx.Value(runnersKey{}) == s.Pipeline
}

// Taken counts one batch handed to the stage's consumer, unless the
// consumer is a runner of the stage's pipeline (InRunners).
func (s *Stage) Taken(ctx context.Context) {
	if !s.internal(ctx) {
		s.taken.Add(1)
	}
}

// Batches returns the number of batches the stage's consumer has taken
// (after a restore, counting those of the run restored).
func (s *Stage) Batches() int64 { return s.taken.Load() }

// Restore sets the stage up to replay a checkpoint in which its consumer
// had taken n batches and Save had returned state.
func (s *Stage) Restore(n int64, state json.RawMessage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.skip, s.restored = n, state
	s.taken.Store(n)
	s.pending.Store(n > 0 || state != nil)
}

// Replay runs the restore's replay once, before the consumer's first
// batch: skip is called once for each batch the checkpointed run had
// taken, with the state Save returned then, and must take and drop one
// batch. Concurrent consumers wait for the replay to end. A failed replay
// (a cancelled context) keeps what is left of it for the next call.
func (s *Stage) Replay(ctx context.Context, skip func(ctx context.Context, state json.RawMessage) error) error {
	if !s.pending.Load() || s.internal(ctx) {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for s.skip > 0 {
		if err := skip(ctx, s.restored); err != nil {
			if errors.Is(err, io.EOF) && s.Stopping != nil && s.Stopping() {
				return err
			}
			if errors.Is(err, io.EOF) {
				// The same pipeline over the same files cannot end
				// sooner: something the checkpoint cannot see changed.
				return fmt.Errorf("%s: the input ended %d batches before the checkpoint's position: %w", s.Desc, s.skip, ErrCheckpoint)
			}
			return fmt.Errorf("%s: replaying a checkpoint, %d batches before its position: %w", s.Desc, s.skip, err)
		}
		s.skip--
	}
	s.restored = nil
	s.pending.Store(false)
	return nil
}

// Checkpoint returns the stage's state for a checkpoint: what Save
// returns, or, while a restore's replay has not run, the state restored.
func (s *Stage) Checkpoint() (json.RawMessage, error) {
	if s.pending.Load() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.pending.Load() {
			return s.restored, nil
		}
	}
	if s.Save == nil {
		return nil, nil
	}
	return s.Save()
}
