package sample

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/sluiceml/sluice/input"
	"github.com/sluiceml/sluice/internal/checkpointtest"
	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tensor"
)

// batchSource is what the sampling stages hand out: *input.Batches and
// *ClassBatches.
type batchSource interface {
	Next(ctx context.Context) (input.Batch, error)
}

// checkpointRun returns a checkpointtest.Run of a deterministic pipeline:
// a shuffled producer of 0..59 for two epochs, whose values the stage
// build makes samples of.
func checkpointRun(build func(p *input.Pipeline, value func(ctx context.Context) (int64, error)) batchSource) checkpointtest.Run {
	return func(t *testing.T, resume []byte, take int) ([]string, []byte) {
		t.Helper()
		opts := []input.PipelineOption{input.Seed(8), input.Deterministic()}
		if resume != nil {
			opts = append(opts, input.Resume(resume))
		}
		p := input.NewPipeline(opts...)
		values := p.RangeInputProducer(60, input.NumEpochs(2), input.Shuffle(true))
		out := build(p, func(ctx context.Context) (int64, error) {
			if rand.IntN(8) == 0 {
				time.Sleep(time.Duration(rand.IntN(100)) * time.Microsecond)
			}
			e, err := values.Dequeue(ctx)
			if err != nil {
				return 0, err
			}
			return int64(e[0].Int32s()[0]), nil
		})
		return checkpointtest.Take(t, p, take, func(ctx context.Context) (string, error) {
			b, err := out.Next(ctx)
			var s string
			for _, c := range b.Element() {
				s += fmt.Sprint(c.Data())
			}
			return s, err
		})
	}
}

// A pipeline with a sampling stage restored from a checkpoint taken after
// any batch delivers the batches of the uninterrupted run: the stages'
// draws are seeded and replayed with the batches.
func TestCheckpointResumesExactly(t *testing.T) {
	type value = func(ctx context.Context) (int64, error)
	step := func(v value) input.Step {
		return func(ctx context.Context) (queue.Element, error) {
			x, err := v(ctx)
			return queue.Element{tensor.Scalar(x)}, err
		}
	}
	labelled := func(v value) LabelStep {
		return func(ctx context.Context) (int, queue.Element, error) {
			x, err := v(ctx)
			return int(x % 3), queue.Element{tensor.Scalar(x)}, err
		}
	}
	rated := func(v value) RateStep {
		return func(ctx context.Context) (float64, queue.Element, error) {
			x, err := v(ctx)
			return float64(x%3) * 0.7, queue.Element{tensor.Scalar(x)}, err
		}
	}
	smaller := BatchOptions(input.AllowSmallerFinalBatch(), input.Threads(2))
	for _, tc := range []struct {
		name  string
		build func(p *input.Pipeline, v value) batchSource
	}{
		{"RejectionSample", func(p *input.Pipeline, v value) batchSource {
			accept := func(e queue.Element) float64 { return 0.2 + float64(e[0].Int64s()[0]%4)*0.25 }
			return RejectionSample(p, step(v), accept, 4, smaller)
		}},
		{"StratifiedSample", func(p *input.Pipeline, v value) batchSource {
			return StratifiedSample(p, labelled(v), []float64{0.2, 0.3, 0.5}, 4, smaller)
		}},
		{"ResampleAtRateStage", func(p *input.Pipeline, v value) batchSource {
			return ResampleAtRateStage(p, rated(v), 4, smaller)
		}},
		{"WeightedResample", func(p *input.Pipeline, v value) batchSource {
			return WeightedResample(p, rated(v), 0.8, 4, smaller)
		}},
		{"StratifiedSampleUnknownDist", func(p *input.Pipeline, v value) batchSource {
			return StratifiedSampleUnknownDist(p, labelled(v), []float64{0.3, 0.3, 0.4}, 4, Threads(2), ClassCapacity(60))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkpointtest.Cuts(t, checkpointRun(tc.build))
		})
	}
}
