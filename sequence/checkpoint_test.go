package sequence_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/sluiceml/sluice/input"
	"github.com/sluiceml/sluice/internal/checkpointtest"
	"github.com/sluiceml/sluice/sequence"
	"github.com/sluiceml/sluice/tensor"
)

// stateSaverPipeline builds a deterministic pipeline whose state saver
// batches sequences of 1 to 5 steps made from a shuffled producer of
// 0..29 (two epochs), three segments of two steps at a time.
func stateSaverPipeline(opts ...input.PipelineOption) (*input.Pipeline, *sequence.StateSaver) {
	p := input.NewPipeline(append([]input.PipelineOption{input.Seed(4), input.Deterministic()}, opts...)...)
	values := p.RangeInputProducer(30, input.NumEpochs(2))
	step := func(ctx context.Context) (sequence.Input, error) {
		if rand.IntN(8) == 0 {
			time.Sleep(time.Duration(rand.IntN(100)) * time.Microsecond)
		}
		e, err := values.Dequeue(ctx)
		if err != nil {
			return sequence.Input{}, err
		}
		v := int64(e[0].Int32s()[0])
		seq := make([]int64, 1+v%5)
		for j := range seq {
			seq[j] = 100*v + int64(j)
		}
		return sequence.Input{Key: fmt.Sprint("ex", v), Length: sequence.InferLength,
			Sequences: map[string]tensor.Tensor{"x": tensor.New(seq)}}, nil
	}
	initial := map[string]tensor.Tensor{
		"n": tensor.Scalar[int32](0),
		"h": tensor.New([]float32{0.5, -1}, 2),
	}
	return p, sequence.BatchSequencesWithStates(p, step, initial, 2, 3, sequence.Threads(3), sequence.MakeKeysUnique())
}

// model is a stand-in for a model's step: it saves states computed from
// the batch's states and values, so that a state lost or reset by a
// restore changes what later batches carry.
func model(ctx context.Context, b *sequence.Batch) error {
	n := b.State("n").Int32s()
	h := b.State("h").Float32s()
	x := b.Sequences("x").Int64s()
	nextN := make([]int32, len(n))
	nextH := make([]float32, len(h))
	for i := range n {
		nextN[i] = n[i] + int32(x[2*i]%97) + 1
		nextH[i*2] = h[i*2]*0.5 + float32(x[2*i+1]%13)
		nextH[i*2+1] = h[i*2+1] - 0.25
	}
	if err := b.SaveState(ctx, "n", tensor.New(nextN, len(n))); err != nil {
		return err
	}
	return b.SaveState(ctx, "h", tensor.New(nextH, len(n), 2))
}

// A pipeline with a state saver restored from a checkpoint taken after any
// batch delivers the batches of the uninterrupted run, the states the
// model saved before the checkpoint included.
func TestCheckpointResumesExactly(t *testing.T) {
	checkpointtest.Cuts(t, func(t *testing.T, resume []byte, take int) ([]string, []byte) {
		t.Helper()
		var opts []input.PipelineOption
		if resume != nil {
			opts = append(opts, input.Resume(resume))
		}
		p, states := stateSaverPipeline(opts...)
		return checkpointtest.Take(t, p, take, func(ctx context.Context) (string, error) {
			b, err := states.Next(ctx)
			if err != nil {
				return "", err
			}
			s := fmt.Sprint(b.Key(), b.Sequence(), b.Sequences("x").Int64s(), b.State("n").Int32s(), b.State("h").Float32s())
			return s, model(ctx, b)
		})
	})
}

// A checkpoint needs the states of every batch delivered: taken before
// they are saved, it fails rather than lose them.
func TestCheckpointWaitsForStates(t *testing.T) {
	ctx := t.Context()
	p, states := stateSaverPipeline()
	if err := p.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer p.Stop(ctx)
	b, err := states.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.SaveState(ctx, "n", b.State("n")); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Checkpoint(ctx); err == nil || !strings.Contains(err.Error(), "states saved") {
		t.Fatalf("Checkpoint with state h unsaved: %v, want an error", err)
	}
	if err := b.SaveState(ctx, "h", b.State("h")); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Checkpoint(ctx); err != nil {
		t.Fatal(err)
	}
}
