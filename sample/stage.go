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
	var all []string // own, then names
	if names != nil {
		all = append(slices.Clone(own), names...)
	}
	// The batcher's goroutines share the step, so each call takes a
	// caller from a pool: one goroutine's calls mostly get the same one,
	// whose context and names are then made once, not per example.
	callers := sync.Pool{New: func() any { return &namedCaller{c: stagehook.NewNamer("", nil).Caller()} }}
	return func(ctx context.Context) (queue.Element, error) {
		nc := callers.Get().(*namedCaller)
		defer callers.Put(nc)
		e, err := step(nc.c.Context(ctx))
		if err != nil {
			return nil, err
		}
		switch declared := nc.c.Declared(); {
		case declared != nil:
			if len(declared) != len(e)-len(own) {
				return nil, invalidf("sample: the step names %d components %q but returns %d", len(declared), declared, len(e)-len(own))
			}
			return input.Named(ctx, e, nc.with(own, declared)...), nil
		case names != nil:
			if !slices.IsSorted(names) {
				return nil, invalidf("sample: the step's components are unnamed and Names %q is not in sorted order, the order components laid out by name have (Example parsing, TensorFlow's dictionaries); give Names as %q, or declare the step's own order with input.Named", names, slices.Sorted(slices.Values(names)))
			}
			return input.Named(ctx, e, all...), nil
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

// A namedCaller calls a stage's step for named, keeping the names it
// declared last with the stage's own in front.
type namedCaller struct {
	c        stagehook.StepCaller
	declared []string // the step's last declaration
	all      []string // own, then declared
}

// with returns own followed by declared, the same slice as long as the
// step declares the same names: the batcher reads it and keeps a copy.
func (nc *namedCaller) with(own, declared []string) []string {
	if nc.all == nil || !slices.Equal(nc.declared, declared) {
		nc.declared = slices.Clone(declared)
		nc.all = append(slices.Clone(own), declared...)
	}
	return nc.all
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

// labels returns a class component for each of n classes: a queue copies
// an enqueued element's values into its batch and never writes them, so
// one tensor can travel with every example of its class.
func labels(n int) []tensor.Tensor {
	ls := make([]tensor.Tensor, n)
	for i := range ls {
		ls[i] = tensor.Scalar(int64(i))
	}
	return ls
}

// withComponent returns e with c in front.
func withComponent(c tensor.Tensor, e queue.Element) queue.Element {
	return append(queue.Element{c}, e...)
}

// MaxRate is the largest resampling rate: the copies of a row are made in
// memory, so a rate beyond it, a mistaken or hostile value, would ask for
// more than a machine holds (and a rate near 2^63 overflowed the count
// drawn to none at all).
const MaxRate = 1 << 20

// isRate reports whether r can be a rate.
func isRate(r float64) bool { return r >= 0 && r <= MaxRate }

// isWeight reports whether r can be a weight.
func isWeight(r float64) bool { return r >= 0 && !math.IsInf(r, 1) }
