package sample

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/sluiceml/sluice/input"
	"github.com/sluiceml/sluice/internal/stagehook"
	"github.com/sluiceml/sluice/queue"
)

// RejectionSample delivers batches of the examples step returns, each kept
// with probability acceptProb(example) (TensorFlow's rejection_sample). A
// probability outside [0, 1] is an error naming it and the example's
// position (TensorFlow's runtime_checks), which stops the pipeline.
func RejectionSample(p *input.Pipeline, step input.Step, acceptProb func(queue.Element) float64, batchSize int, opts ...Option) *input.Batches {
	c := newConfig(opts)
	if err := checkStage("rejection_sample", step == nil, batchSize); err != nil {
		return failed(p, err, batchSize)
	}
	if acceptProb == nil {
		return failed(p, invalidf("sample: rejection_sample: no acceptance function"), batchSize)
	}
	describe(p, "rejection_sample", c, fmt.Sprintf("batch size %d", batchSize))
	rng := newLockedRand(stagehook.Of(p).Seed(c.seed))
	var seen atomic.Int64
	filter := func(ctx context.Context) (queue.Element, error) {
		for {
			e, err := step(ctx)
			if err != nil {
				return nil, err
			}
			n := seen.Add(1) - 1
			a := acceptProb(e)
			if !(a >= 0 && a <= 1) {
				return nil, invalidf("sample: rejection_sample: example %d: acceptance probability %v is not in [0, 1]", n, a)
			}
			if rng.float64() < a {
				return e, nil
			}
		}
	}
	return batch(p, filter, batchSize, c)
}
