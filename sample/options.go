package sample

import (
	"log/slog"

	"github.com/sluiceml/sluice/input"
)

// An Option configures a sampling stage.
type Option func(*config)

type config struct {
	seed      *uint64
	initProbs []float64
	smoothing int64
	names     []string
	batching  []input.BatchOption
	warn      func(msg string)
	meanDecay float64

	classCapacity, threads int
	name                   string
}

func newConfig(opts []Option) *config {
	c := &config{smoothing: 10, meanDecay: DefaultMeanDecay, classCapacity: DefaultClassCapacity, threads: 1, warn: func(msg string) { slog.Warn(msg) }}
	for _, o := range opts {
		o(c)
	}
	return c
}

// Seed sets the stage's random seed; by default it is derived from the
// pipeline's, as input's shuffling stages' seeds are.
func Seed(seed uint64) Option { return func(c *config) { c.seed = &seed } }

// InitProbs gives StratifiedSample the class proportions of its input.
// Without it they are estimated online from the labels seen.
func InitProbs(p []float64) Option { return func(c *config) { c.initProbs = p } }

// Smoothing sets the count every class starts with in StratifiedSample's
// online estimate of the input's class proportions (default 10, as
// TensorFlow): larger is steadier at first and slower to follow the data.
func Smoothing(n int64) Option { return func(c *config) { c.smoothing = n } }

// MeanDecay sets WeightedResample's running-mean decay (default
// DefaultMeanDecay).
func MeanDecay(d float64) Option { return func(c *config) { c.meanDecay = d } }

// Names names the components of the examples the step returns, so that
// batches can be read by name. The stage's own components come first:
// "label" for the stratified samplers, "rate" for WeightedResample. As
// with input.Names, a step that declares its names (input.Named) has its
// components matched to Names by name, and a step that declares none must
// return them in Names' order, which must then be sorted.
func Names(names ...string) Option { return func(c *config) { c.names = names } }

// BatchOptions passes options to the stage's batcher (input.Batch):
// Capacity, Threads, AllowSmallerFinalBatch, DynamicPad, Name, as
// gomlx.BatchOptions passes them to sluice's. Name components with this
// package's Names, which knows the stage's own components. For
// a step that returns batches, wrap it in UnbatchLabels, UnbatchRates or
// Unbatch rather than passing EnqueueMany: the stage decides per example.
func BatchOptions(opts ...input.BatchOption) Option {
	return func(c *config) { c.batching = append(c.batching, opts...) }
}

// Warn sets where StratifiedSample's "Proportion of examples rejected by
// sampler is high." warning goes (default log/slog's Warn).
func Warn(f func(msg string)) Option { return func(c *config) { c.warn = f } }

// ClassCapacity sets how many examples each class of
// StratifiedSampleUnknownDist holds beyond the forming batch's share
// before it drops its new ones (default DefaultClassCapacity).
func ClassCapacity(n int) Option { return func(c *config) { c.classCapacity = n } }

// Threads sets how many goroutines run StratifiedSampleUnknownDist's step
// (default 1); the other stages take input.Threads through BatchOptions.
func Threads(n int) Option { return func(c *config) { c.threads = n } }

// Name names StratifiedSampleUnknownDist's queue of formed batches
// (NAME/batches); the other stages take input.Name through BatchOptions.
func Name(name string) Option { return func(c *config) { c.name = name } }
