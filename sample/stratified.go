package sample

import (
	"context"
	"fmt"
	"sync"

	"github.com/sluiceml/sluice/input"
	"github.com/sluiceml/sluice/internal/stagehook"
	"github.com/sluiceml/sluice/queue"
)

// highRejection is TensorFlow's warning when a sampler is expected to
// reject at least half of its input (ST-06).
const highRejection = "Proportion of examples rejected by sampler is high."

// maxWarnings is how often the warning is given per stage (TensorFlow's
// first_n).
const maxWarnings = 10

// StratifiedSample delivers batches of batchSize whose class proportions
// are target (TensorFlow's stratified_sample): each example step returns is
// kept with the probability AcceptanceProbs computes for its class, from
// the input's class proportions — given with InitProbs, or else estimated
// online from counts that start at Smoothing per class and grow with every
// label seen (ST-07). Each batch's first component, "label", holds the
// classes as int64; the step's components follow.
//
// When the expected rejected fraction is 0.5 or more the stage warns
// (Warn), at most 10 times (ST-06). Invalid probabilities are build errors
// returned by Pipeline.Start; a label outside [0, len(target)) is an error
// naming it and the example's position, which stops the pipeline.
func StratifiedSample(p *input.Pipeline, step LabelStep, target []float64, batchSize int, opts ...Option) *input.Batches {
	c := newConfig(opts)
	const op = "stratified_sample"
	if err := checkStage(op, step == nil, batchSize); err != nil {
		return failed(p, err, batchSize)
	}
	if err := checkProbs(op, "target_probs", target); err != nil {
		return failed(p, err, batchSize)
	}
	var static []float64
	if c.initProbs != nil {
		a, _, err := AcceptanceProbs(c.initProbs, target)
		if err != nil {
			return failed(p, err, batchSize)
		}
		static = a
	} else if c.smoothing <= 0 {
		// TensorFlow says "nonzero" but rejects every value <= 0.
		return failed(p, invalidf("sample: %s: smoothing_constant must be nonzero. (Smoothing(%d))", op, c.smoothing), batchSize)
	}
	describe(p, op, c, fmt.Sprintf("target_probs %v, batch size %d", target, batchSize))
	s := &stratified{target: target, init: c.initProbs, accept: static, warn: c.warn,
		rng: newLockedRand(stagehook.Of(p).Seed(c.seed)), counts: make([]int64, len(target))}
	for i := range s.counts {
		s.counts[i] = c.smoothing
	}
	if static != nil {
		s.rejected = rejection(c.initProbs, static)
	}
	classes := labels(len(target))
	filter := func(ctx context.Context) (queue.Element, error) {
		for {
			l, e, err := step(ctx)
			if err != nil {
				return nil, err
			}
			keep, err := s.keep(l)
			if err != nil {
				return nil, err
			}
			if keep {
				return withComponent(classes[l], e), nil
			}
		}
	}
	return batch(p, filter, batchSize, c, "label")
}

// stratified is the state StratifiedSample's goroutines share.
type stratified struct {
	target, init []float64
	accept       []float64 // fixed acceptance, with InitProbs
	rejected     float64   // its expected rejected fraction
	warn         func(string)
	rng          *lockedRand

	mu     sync.Mutex
	counts []int64 // online estimate of the input's classes
	seen   int64   // examples so far, for messages
	warned int
}

// keep decides whether to keep an example of class l.
func (s *stratified) keep(l int) (bool, error) {
	s.mu.Lock()
	n := s.seen
	s.seen++
	if l < 0 || l >= len(s.target) {
		s.mu.Unlock()
		return false, invalidf("sample: stratified_sample: example %d: label %d is not in [0, %d)", n, l, len(s.target))
	}
	a, rejected := s.accept, s.rejected
	if a == nil {
		// The estimate includes this label, as TensorFlow's counts are
		// updated before the acceptance is computed.
		s.counts[l]++
		total := int64(0)
		for _, c := range s.counts {
			total += c
		}
		est := make([]float64, len(s.counts))
		for i, c := range s.counts {
			est[i] = float64(c) / float64(total)
		}
		a = acceptance(est, s.target)
		rejected = rejection(est, a)
	}
	// TensorFlow evaluates its warning with every example, printing it the
	// first 10 times; so do we, whether the estimate is fixed or online.
	if rejected >= 0.5 && s.warned < maxWarnings {
		s.warned++
		s.warn(highRejection)
	}
	s.mu.Unlock()
	return s.rng.float64() < a[l], nil
}
