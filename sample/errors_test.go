package sample

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/sluiceml/sluice/input"
	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tensor"
)

// A bad value met at run time (ST-03's labels, RS-01's probabilities,
// RE-04's rates, weights) stops the pipeline through its Coordinator with
// an error naming the value and the example's position in the stream;
// Next returns it and Join reports it.
func TestRuntimeErrors(t *testing.T) {
	// rate returns a RateStep whose third example has rate bad.
	rate := func(bad float64) RateStep {
		i := 0
		return func(context.Context) (float64, queue.Element, error) {
			i++
			if i == 3 {
				return bad, queue.Element{tensor.Scalar(int64(i))}, nil
			}
			return 1, queue.Element{tensor.Scalar(int64(i))}, nil
		}
	}
	labels := func(bad int) LabelStep {
		return source(100, func(i int) int {
			if i == 2 {
				return bad
			}
			return 0
		})
	}
	prob := func(bad float64) func(queue.Element) float64 {
		return func(e queue.Element) float64 {
			if e[0].Float64s()[0] == 3 {
				return bad
			}
			return 1
		}
	}
	for _, tc := range []struct {
		name  string
		build func(p *input.Pipeline) func(context.Context) (input.Batch, error)
		want  string
	}{
		{"ResampleAtRateStage negative", func(p *input.Pipeline) func(context.Context) (input.Batch, error) {
			return ResampleAtRateStage(p, rate(-2), 100).Next
		}, "resample_at_rate: example 2: rate -2 is not a number from 0 to MaxRate (1048576)"},
		{"ResampleAtRateStage above MaxRate", func(p *input.Pipeline) func(context.Context) (input.Batch, error) {
			return ResampleAtRateStage(p, rate(1e19), 100).Next
		}, "example 2: rate 1e+19 is not a number from 0 to MaxRate"},
		{"ResampleAtRateStage NaN", func(p *input.Pipeline) func(context.Context) (input.Batch, error) {
			return ResampleAtRateStage(p, rate(math.NaN()), 100).Next
		}, "example 2: rate NaN"},
		{"ResampleAtRateStage +Inf", func(p *input.Pipeline) func(context.Context) (input.Batch, error) {
			return ResampleAtRateStage(p, rate(math.Inf(1)), 100).Next
		}, "example 2: rate +Inf"},
		{"WeightedResample negative", func(p *input.Pipeline) func(context.Context) (input.Batch, error) {
			return WeightedResample(p, rate(-1), 1, 100).Next
		}, "weighted_resample: example 2: weight -1 is not a finite, non-negative number"},
		{"WeightedResample NaN", func(p *input.Pipeline) func(context.Context) (input.Batch, error) {
			return WeightedResample(p, rate(math.NaN()), 1, 100).Next
		}, "example 2: weight NaN"},
		{"StratifiedSample negative label", func(p *input.Pipeline) func(context.Context) (input.Batch, error) {
			return StratifiedSample(p, labels(-1), []float64{.5, .5}, 100).Next
		}, "stratified_sample: example 2: label -1 is not in [0, 2)"},
		{"StratifiedSample label too large", func(p *input.Pipeline) func(context.Context) (input.Batch, error) {
			return StratifiedSample(p, labels(2), []float64{.5, .5}, 100, InitProbs([]float64{.5, .5})).Next
		}, "stratified_sample: example 2: label 2 is not in [0, 2)"},
		{"StratifiedSampleUnknownDist label", func(p *input.Pipeline) func(context.Context) (input.Batch, error) {
			return StratifiedSampleUnknownDist(p, labels(9), []float64{1, 0}, 100, ClassCapacity(100)).Next
		}, "stratified_sample_unknown_dist: example 2: label 9 is not in [0, 2)"},
		{"RejectionSample 1.5", func(p *input.Pipeline) func(context.Context) (input.Batch, error) {
			return RejectionSample(p, values(1, 2, 3, 4), prob(1.5), 100).Next
		}, "rejection_sample: example 2: acceptance probability 1.5 is not in [0, 1]"},
		{"RejectionSample -0.1", func(p *input.Pipeline) func(context.Context) (input.Batch, error) {
			return RejectionSample(p, values(1, 2, 3, 4), prob(-0.1), 100).Next
		}, "example 2: acceptance probability -0.1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := input.NewPipeline(input.Seed(1))
			next := tc.build(p)
			if err := p.Start(t.Context()); err != nil {
				t.Fatal(err)
			}
			defer p.Stop(t.Context())
			_, err := next(t.Context())
			if !errors.Is(err, queue.ErrInvalidArgument) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Next = %v, want %q", err, tc.want)
			}
			if err := p.Join(t.Context()); !errors.Is(err, queue.ErrInvalidArgument) {
				t.Errorf("Join = %v, want the stage's error", err)
			}
		})
	}
}

// Build errors of every stage wrap queue.ErrInvalidArgument and come from
// Pipeline.Start, which then starts nothing.
func TestBuildErrors(t *testing.T) {
	one := []float64{1}
	rates := func(context.Context) (float64, queue.Element, error) { return 1, nil, errEOF }
	for _, tc := range []struct {
		name  string
		build func(p *input.Pipeline)
		want  string
	}{
		{"StratifiedSample nil step", func(p *input.Pipeline) { StratifiedSample(p, nil, one, 1) }, "stratified_sample: no step"},
		{"StratifiedSample batch 0", func(p *input.Pipeline) { StratifiedSample(p, blocked, one, 0) }, "stratified_sample: batch size 0 must be positive"},
		{"StratifiedSample empty target", func(p *input.Pipeline) { StratifiedSample(p, blocked, nil, 1) }, "target_probs is empty"},
		{"StratifiedSampleUnknownDist nil step", func(p *input.Pipeline) { StratifiedSampleUnknownDist(p, nil, one, 1) }, "stratified_sample_unknown_dist: no step"},
		{"StratifiedSampleUnknownDist batch -1", func(p *input.Pipeline) { StratifiedSampleUnknownDist(p, blocked, one, -1) }, "batch size -1 must be positive"},
		{"StratifiedSampleUnknownDist capacity", func(p *input.Pipeline) { StratifiedSampleUnknownDist(p, blocked, one, 1, ClassCapacity(0)) }, "class capacity 0 and threads 1 must be positive"},
		{"StratifiedSampleUnknownDist probs", func(p *input.Pipeline) { StratifiedSampleUnknownDist(p, blocked, []float64{.5, -.5, 1}, 1) }, "probs[1] = -0.5 is not a probability"},
		{"RejectionSample nil step", func(p *input.Pipeline) { RejectionSample(p, nil, func(queue.Element) float64 { return 1 }, 1) }, "rejection_sample: no step"},
		{"RejectionSample nil function", func(p *input.Pipeline) { RejectionSample(p, values(1), nil, 1) }, "rejection_sample: no acceptance function"},
		{"ResampleAtRateStage batch 0", func(p *input.Pipeline) { ResampleAtRateStage(p, rates, 0) }, "resample_at_rate: batch size 0 must be positive"},
		{"ResampleAtRateStage nil step", func(p *input.Pipeline) { ResampleAtRateStage(p, nil, 1) }, "resample_at_rate: no step"},
		{"WeightedResample overall rate", func(p *input.Pipeline) { WeightedResample(p, rates, -1, 1) }, "overall rate -1 is not a number from 0 to MaxRate (1048576)"},
		{"WeightedResample mean decay", func(p *input.Pipeline) { WeightedResample(p, rates, 1, 1, MeanDecay(1)) }, "mean decay 1 is not in [0, 1)"},
		{"WeightedResample nil step", func(p *input.Pipeline) { WeightedResample(p, nil, 1, 1) }, "weighted_resample: no step"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := input.NewPipeline()
			tc.build(p)
			err := p.Start(t.Context())
			p.Stop(t.Context())
			if !errors.Is(err, queue.ErrInvalidArgument) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Start = %v, want %q", err, tc.want)
			}
		})
	}
}
