package input

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tensor"
)

// Checkpoint may be called before Start: on a pipeline built with
// Resume(ck) it returns the position ck names, not the start.
func TestCheckpointOfResumedBeforeStart(t *testing.T) {
	build := func(opts ...PipelineOption) (*Pipeline, *Batches) { return rangeBatches(20, nil, opts...) }
	ctx := t.Context()
	ck := checkpointAfter(t, ctx, 3, build)

	p2, _ := build(Resume(ck))
	ck2, err := p2.Checkpoint(ctx)
	if err != nil {
		t.Fatal(err)
	}
	batches := func(b []byte) []int64 {
		var c checkpoint
		json.Unmarshal(b, &c)
		var n []int64
		for _, s := range c.Stages {
			n = append(n, s.Batches)
		}
		return n
	}
	if got, want := batches(ck2), batches(ck); len(got) != len(want) || got[1] != want[1] {
		t.Errorf("Checkpoint before Start of a pipeline resumed at %v batches per stage returned %v:\n%s", want, got, ck2)
	}
}

// rangeBatches is a deterministic pipeline (seed 2) of the values of
// RangeInputProducer(n), one epoch, in batches of 4; the step waits for
// wait, if not nil, before each value.
func rangeBatches(n int, wait func(ctx context.Context) error, opts ...PipelineOption) (*Pipeline, *Batches) {
	p := NewPipeline(append([]PipelineOption{Seed(2), Deterministic()}, opts...)...)
	values := p.RangeInputProducer(n, NumEpochs(1))
	return p, p.Batch(func(ctx context.Context) (queue.Element, error) {
		if wait != nil {
			if err := wait(ctx); err != nil {
				return nil, err
			}
		}
		e, err := values.Dequeue(ctx)
		if err != nil {
			return nil, err
		}
		return queue.Element{tensor.Scalar(int64(e[0].Int32s()[0]))}, nil
	}, 4)
}

// checkpointAfter starts the pipeline build makes, takes n batches, and
// returns its checkpoint then, stopping it.
func checkpointAfter(t *testing.T, ctx context.Context, n int, build func(...PipelineOption) (*Pipeline, *Batches)) []byte {
	t.Helper()
	p, out := build()
	if err := p.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer p.Stop(ctx)
	for range n {
		if _, err := out.Next(ctx); err != nil {
			t.Fatal(err)
		}
	}
	ck, err := p.Checkpoint(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return ck
}
