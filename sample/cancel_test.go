package sample

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sluiceml/sluice/input"
	"github.com/sluiceml/sluice/queue"
)

// blocked is a step whose input never comes.
func blocked(ctx context.Context) (int, queue.Element, error) {
	<-ctx.Done()
	return 0, nil, ctx.Err()
}

// A Next waiting for input ends when its context does, and stopping the
// pipeline ends the steps: for every stage. synctest's clock makes the
// deadline immediate once everything is blocked.
func TestCancel(t *testing.T) {
	rateBlocked := func(ctx context.Context) (float64, queue.Element, error) {
		<-ctx.Done()
		return 0, nil, ctx.Err()
	}
	stages := []struct {
		name  string
		build func(p *input.Pipeline) func(context.Context) (input.Batch, error)
	}{
		{"StratifiedSample", func(p *input.Pipeline) func(context.Context) (input.Batch, error) {
			return StratifiedSample(p, blocked, []float64{1}, 2).Next
		}},
		{"StratifiedSampleUnknownDist", func(p *input.Pipeline) func(context.Context) (input.Batch, error) {
			return StratifiedSampleUnknownDist(p, blocked, []float64{.5, .5}, 2).Next
		}},
		{"RejectionSample", func(p *input.Pipeline) func(context.Context) (input.Batch, error) {
			step := func(ctx context.Context) (queue.Element, error) { _, e, err := blocked(ctx); return e, err }
			return RejectionSample(p, step, func(queue.Element) float64 { return 1 }, 2).Next
		}},
		{"ResampleAtRateStage", func(p *input.Pipeline) func(context.Context) (input.Batch, error) {
			return ResampleAtRateStage(p, rateBlocked, 2).Next
		}},
		{"WeightedResample", func(p *input.Pipeline) func(context.Context) (input.Batch, error) {
			return WeightedResample(p, rateBlocked, 1, 2).Next
		}},
	}
	for _, s := range stages {
		t.Run(s.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				p := input.NewPipeline()
				next := s.build(p)
				if err := p.Start(t.Context()); err != nil {
					t.Fatal(err)
				}
				ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
				defer cancel()
				if _, err := next(ctx); !errors.Is(err, context.DeadlineExceeded) {
					t.Errorf("Next past its deadline: %v", err)
				}
				if err := p.Stop(t.Context()); err != nil {
					t.Errorf("Stop: %v", err)
				}
			})
		})
	}
}

// A Next of StratifiedSampleUnknownDist waiting on a class the input does
// not have ends when its context does, and Stop then ends the steps.
func TestStratifiedSampleUnknownDistMissingClass(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := input.NewPipeline(input.Seed(3))
		b := StratifiedSampleUnknownDist(p, blocked, []float64{1, 0}, 2, ClassCapacity(4))
		if err := p.Start(t.Context()); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		if _, err := b.Next(ctx); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Next: %v", err)
		}
		if err := p.Stop(t.Context()); err != nil {
			t.Errorf("Stop: %v", err)
		}
	})
}
