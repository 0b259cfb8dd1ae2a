package sample

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/sluiceml/sluice/input"
	"github.com/sluiceml/sluice/internal/stagehook"
	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tensor"
)

// ResampleAtRateStage delivers batches of batchSize in which each example
// step returns appears Poisson(rate) times, its copies adjacent: the
// pipeline form of ResampleAtRate. A rate that is not a number from 0 to
// MaxRate is an error naming it and the example's position, which stops
// the pipeline.
func ResampleAtRateStage(p *input.Pipeline, step RateStep, batchSize int, opts ...Option) *input.Batches {
	c := newConfig(opts)
	if err := checkStage("resample_at_rate", step == nil, batchSize); err != nil {
		return failed(p, err, batchSize)
	}
	describe(p, "resample_at_rate", c, fmt.Sprintf("batch size %d", batchSize))
	rng := newLockedRand(stagehook.Of(p).Seed(c.seed))
	var seen atomic.Int64
	copies := func(ctx context.Context) (queue.Element, error) {
		for {
			r, e, err := step(ctx)
			if err != nil {
				return nil, err
			}
			n := seen.Add(1) - 1
			if !isRate(r) {
				return nil, invalidf("sample: resample_at_rate: example %d: rate %v is not a number from 0 to MaxRate (%d)", n, r, MaxRate)
			}
			if k := rng.poisson(r); k > 0 {
				return repeat(e, k)
			}
		}
	}
	c.batching = append([]input.BatchOption{input.EnqueueMany()}, c.batching...)
	return batch(p, copies, batchSize, c)
}

// repeat returns a batch of k copies of e.
func repeat(e queue.Element, k int) (queue.Element, error) {
	out := make(queue.Element, len(e))
	rows := make([]tensor.Tensor, k)
	for j, t := range e {
		for i := range rows {
			rows[i] = t
		}
		var err error
		if out[j], err = tensor.Stack(rows); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// WeightedResample delivers batches in which each example step
// returns, with its weight, appears Poisson(rate) times, rate = weight ·
// overallRate / the running mean weight (see WeightedResampler; each
// example is one batch of the running mean, MeanDecay sets its decay).
// Each batch's first component, "rate", holds every row's rate as
// float64; the step's components follow.
func WeightedResample(p *input.Pipeline, step RateStep, overallRate float64, batchSize int, opts ...Option) *input.Batches {
	c := newConfig(opts)
	seed := stagehook.Of(p).Seed(c.seed)
	w, err := NewWeightedResampler(overallRate, c.meanDecay, nil)
	if err == nil {
		err = checkStage("weighted_resample", step == nil, batchSize)
	}
	if err != nil {
		return failed(p, err, batchSize)
	}
	describe(p, "weighted_resample", c, fmt.Sprintf("overall_rate %g, batch size %d", overallRate, batchSize))
	rng := newLockedRand(seed)
	var mu sync.Mutex
	var seen int64
	copies := func(ctx context.Context) (queue.Element, error) {
		for {
			weight, e, err := step(ctx)
			if err != nil {
				return nil, err
			}
			mu.Lock()
			n := seen
			seen++
			rates, err := w.Rates([]float64{weight})
			mu.Unlock()
			switch {
			case !isWeight(weight):
				return nil, invalidf("sample: weighted_resample: example %d: weight %v is not a finite, non-negative number", n, weight)
			case err != nil:
				return nil, invalidf("sample: weighted_resample: example %d: weight %v is so far above the running mean weight that its rate is above MaxRate (%d)", n, weight, MaxRate)
			}
			if k := rng.poisson(rates[0]); k > 0 {
				return repeat(withComponent(tensor.Scalar(rates[0]), e), k)
			}
		}
	}
	c.batching = append([]input.BatchOption{input.EnqueueMany()}, c.batching...)
	return batch(p, copies, batchSize, c, "rate")
}
