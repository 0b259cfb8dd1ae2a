package sample

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"

	"github.com/sluiceml/sluice/input"
	"github.com/sluiceml/sluice/internal/stagehook"
	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tensor"
)

// A LabelStep produces one example and its class, 0 <= label < number of
// classes; io.EOF ends the input.
type LabelStep func(ctx context.Context) (label int, e queue.Element, err error)

// A RateStep produces one example and the rate at which to resample it,
// or its weight for WeightedResample.
type RateStep func(ctx context.Context) (rate float64, e queue.Element, err error)

// lockedRand is a random source shared by a stage's goroutines.
type lockedRand struct {
	mu  sync.Mutex
	rng *rand.Rand
}

func newLockedRand(seed uint64) *lockedRand {
	return &lockedRand{rng: rand.New(rand.NewPCG(seed, 0x5a3b1e))}
}

func (r *lockedRand) float64() float64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.rng.Float64()
}

func (r *lockedRand) poisson(lambda float64) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return poisson(r.rng, lambda)
}

// batch builds the stage's batcher over step, naming the components with
// own (the stage's) followed by the user's names.
func batch(p *input.Pipeline, step input.Step, batchSize int, c *config, own ...string) *input.Batches {
	opts := c.batching
	if c.names != nil {
		opts = append(append([]input.BatchOption(nil), opts...), input.Names(append(own, c.names...)...))
	}
	return p.Batch(named(step, c.names, own), batchSize, opts...)
}

// named declares the names of the stage's elements (input.Named): the
// stage's own components, then the user's step's, as the step declared
// them, or else as Names gives them. Undeclared components are taken in
// Names' order, which must be sorted, as input's Names must: the order of
// components laid out by name (example.Parsed's Components).
func named(step input.Step, names, own []string) input.Step {
	return func(ctx context.Context) (queue.Element, error) {
		var e queue.Element
		declared, err := stagehook.StepNames(ctx, func(ctx context.Context) error {
			var err error
			e, err = step(ctx)
			return err
		})
		if err != nil {
			return nil, err
		}
		switch {
		case declared != nil:
			if len(declared) != len(e)-len(own) {
				return nil, invalidf("sample: the step names %d components %q but returns %d", len(declared), declared, len(e)-len(own))
			}
			return input.Named(ctx, e, append(slices.Clone(own), declared...)...), nil
		case names != nil:
			if !slices.IsSorted(names) {
				return nil, invalidf("sample: the step's components are unnamed and Names %q is not in sorted order, the order components laid out by name have (Example parsing, TensorFlow's dictionaries); give Names as %q, or declare the step's own order with input.Named", names, slices.Sorted(slices.Values(names)))
			}
			return input.Named(ctx, e, append(slices.Clone(own), names...)...), nil
		}
		return e, nil
	}
}

// describe registers the stage op with its options, so that a checkpoint
// of the pipeline is refused by one whose sampling stage differs. The
// batches it hands out are counted by the batcher it builds (or, for
// StratifiedSampleUnknownDist, by the stage returned).
func describe(p *input.Pipeline, op string, c *config, args string) *stagehook.Stage {
	var seed any = "derived"
	if c.seed != nil {
		seed = *c.seed
	}
	s := &stagehook.Stage{Desc: fmt.Sprintf("%s %q: %s, seed %v, init_probs %v, smoothing %d, mean_decay %g, class_capacity %d, threads %d, names %q",
		op, c.name, args, seed, c.initProbs, c.smoothing, c.meanDecay, c.classCapacity, c.threads, c.names)}
	stagehook.Of(p).AddStage(s)
	return s
}

// failed returns a stage that reports err from Start, as input's stages
// do with their build errors.
func failed(p *input.Pipeline, err error, batchSize int) *input.Batches {
	stagehook.Of(p).Fail(err)
	return p.Batch(func(context.Context) (queue.Element, error) { return nil, err }, max(batchSize, 1))
}

// checkStage checks what every stage needs: a step and a positive batch
// size. The batcher would check the batch size too, but its error would
// not wrap queue.ErrInvalidArgument, and a nil step would only fail at run time.
func checkStage(op string, noStep bool, batchSize int) error {
	if noStep {
		return invalidf("sample: %s: no step", op)
	}
	if batchSize <= 0 {
		return invalidf("sample: %s: batch size %d must be positive", op, batchSize)
	}
	return nil
}

// label is a class as a component.
func label(l int) tensor.Tensor { return tensor.Scalar(int64(l)) }

// withComponent returns e with c in front.
func withComponent(c tensor.Tensor, e queue.Element) queue.Element {
	return append(queue.Element{c}, e...)
}

// isRate reports whether r can be a rate or weight.
func isRate(r float64) bool { return r >= 0 && !math.IsInf(r, 1) }
