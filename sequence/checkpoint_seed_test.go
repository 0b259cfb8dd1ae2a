package sequence_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/sluiceml/sluice/input"
	"github.com/sluiceml/sluice/sequence"
	"github.com/sluiceml/sluice/tensor"
)

// A state saver's Seed (the seed of MakeKeysUnique) shapes its
// batches (their keys) and names the states a checkpoint saves. A
// checkpoint of a pipeline with Seed(1) must be refused by the same
// pipeline with Seed(2), as a changed seed of any other stage is.
func TestCheckpointRefusesChangedKeySeed(t *testing.T) {
	build := func(seed uint64, resume []byte) (*input.Pipeline, *sequence.StateSaver) {
		return countingStateSaver(resume, sequence.MakeKeysUnique(), sequence.Seed(seed))
	}
	ctx := t.Context()
	p, s := build(1, nil)
	if err := p.Start(ctx); err != nil {
		t.Fatal(err)
	}
	b, err := s.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.SaveState(ctx, "n", tensor.New([]int32{41, 42}, 2)); err != nil {
		t.Fatal(err)
	}
	ck, err := p.Checkpoint(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want, err := s.Next(ctx) // the run's next batch: states 41, 42
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("the run's next batch: keys %v states %v", want.Key(), want.State("n").Int32s())
	want.SaveState(ctx, "n", want.State("n"))
	p.Stop(ctx)

	p2, s2 := build(2, ck)
	err = p2.Start(ctx)
	if err != nil {
		if errors.Is(err, input.ErrCheckpoint) {
			return // refused: correct
		}
		t.Fatal(err)
	}
	defer p2.Stop(ctx)
	got, err := s2.Next(ctx)
	if err != nil && !errors.Is(err, io.EOF) {
		t.Fatal(err)
	}
	t.Errorf("a checkpoint of Seed(1) was accepted with Seed(2); the next batch: keys %v states %v (the model's saved states are lost)",
		got.Key(), got.State("n").Int32s())
}

// countingStateSaver returns a deterministic pipeline (seed 4), resumed
// from resume if not nil, of a state saver over the sequences 0 to 9 in
// order, each of four steps of its number, keyed "exN", with a state "n"
// (int32, 0 at first), batches of two segments of two steps, one thread.
func countingStateSaver(resume []byte, opts ...sequence.BatchOption) (*input.Pipeline, *sequence.StateSaver) {
	popts := []input.PipelineOption{input.Seed(4), input.Deterministic()}
	if resume != nil {
		popts = append(popts, input.Resume(resume))
	}
	p := input.NewPipeline(popts...)
	values := p.RangeInputProducer(10, input.NumEpochs(1), input.Shuffle(false))
	step := func(ctx context.Context) (sequence.Input, error) {
		e, err := values.Dequeue(ctx)
		if err != nil {
			return sequence.Input{}, err
		}
		v := int64(e[0].Int32s()[0])
		return sequence.Input{Key: fmt.Sprint("ex", v), Length: sequence.InferLength,
			Sequences: map[string]tensor.Tensor{"x": tensor.New([]int64{v, v, v, v})}}, nil
	}
	initial := map[string]tensor.Tensor{"n": tensor.Scalar[int32](0)}
	return p, sequence.BatchSequencesWithStates(p, step, initial, 2, 2, append([]sequence.BatchOption{sequence.Threads(1)}, opts...)...)
}
