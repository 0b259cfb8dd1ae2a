package sample

import (
	"context"
	"slices"
	"testing"

	"github.com/sluiceml/sluice/input"
	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tensor"
)

// A single-threaded stage is reproducible: the same pipeline seed, or the
// same Seed option, gives the same batches; another seed other batches.
func TestDeterministic(t *testing.T) {
	labels := func(i int) int { return i % 3 }
	stratified := func(p *input.Pipeline, opts ...Option) func(context.Context) (input.Batch, error) {
		return StratifiedSample(p, source(3000, labels), []float64{.6, .3, .1}, 8, append(opts, Names("id"))...).Next
	}
	resampled := func(p *input.Pipeline, opts ...Option) func(context.Context) (input.Batch, error) {
		i := 0
		step := func(context.Context) (float64, queue.Element, error) {
			if i == 3000 {
				return 0, nil, errEOF
			}
			i++
			return 0.8, queue.Element{tensor.Scalar(int64(i))}, nil
		}
		return ResampleAtRateStage(p, step, 8, append(opts, Names("id"))...).Next
	}
	for _, tc := range []struct {
		name  string
		build func(*input.Pipeline, ...Option) func(context.Context) (input.Batch, error)
	}{
		{"StratifiedSample", stratified},
		{"ResampleAtRateStage", resampled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := func(pipelineSeed uint64, opts ...Option) []int64 {
				var popts []input.PipelineOption
				if pipelineSeed != 0 {
					popts = append(popts, input.Seed(pipelineSeed))
				}
				p := input.NewPipeline(popts...)
				batches, err := drain(t, p, tc.build(p, opts...))
				if err != nil {
					t.Fatal(err)
				}
				var ids []int64
				for _, b := range batches {
					ids = append(ids, b.Int64("id")...)
				}
				return ids
			}
			a, b := run(1), run(1)
			if !slices.Equal(a, b) {
				t.Error("two runs with pipeline seed 1 differ")
			}
			if slices.Equal(a, run(2)) {
				t.Error("pipeline seeds 1 and 2 give the same batches")
			}
			// Without a pipeline seed, the stage's own seed decides, as
			// TensorFlow's op seed without a graph seed.
			if !slices.Equal(run(0, Seed(9)), run(0, Seed(9))) {
				t.Error("two runs with Seed(9) differ")
			}
			if slices.Equal(run(0, Seed(9)), run(0, Seed(10))) {
				t.Error("Seed(9) and Seed(10) give the same batches")
			}
		})
	}
}
