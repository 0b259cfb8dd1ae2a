package input

import (
	"fmt"

	"github.com/sluiceml/sluice/tensor"
)

// An Option configures one stage of a pipeline: a producer or a batcher.
// Each stage accepts the options TensorFlow's function of the same name
// takes; giving a stage an option it does not take is a build error.
type Option func(*stageConfig)

// stageConfig gathers every option; each stage reads the fields it uses
// and rejects the ones it does not (see stageConfig.only).
type stageConfig struct {
	set map[string]bool

	numEpochs       int
	shuffle         bool
	seed            *uint64
	capacity        int
	name            string
	elementShape    tensor.Shape
	numThreads      int
	minAfterDequeue int
	enqueueMany     bool
	dynamicPad      bool
	allowSmaller    bool
	names           []string
	sparse          []string
	shardIndex      int
	shardCount      int
}

func (c *stageConfig) mark(opt string) {
	if c.set == nil {
		c.set = make(map[string]bool)
	}
	c.set[opt] = true
}

// NumEpochs limits a producer to n passes over its input; after the last
// it closes its queue, so the pipeline ends with end of input. n must be
// positive. Without it a producer cycles for ever.
func NumEpochs(n int) Option {
	return func(c *stageConfig) { c.mark("NumEpochs"); c.numEpochs = n }
}

// Shuffle turns a producer's per-epoch shuffling on or off. Producers
// shuffle by default, as TensorFlow's do; each epoch gets a fresh
// permutation and epochs never mix.
func Shuffle(on bool) Option {
	return func(c *stageConfig) { c.mark("Shuffle"); c.shuffle = on }
}

// Seed sets the stage's own random seed. Combined with the pipeline's seed
// (WithSeed) it fixes the stage's random order.
func Seed(seed uint64) Option {
	return func(c *stageConfig) { c.mark("Seed"); c.seed = &seed }
}

// Capacity sets the capacity of the stage's queue (default 32).
func Capacity(n int) Option {
	return func(c *stageConfig) { c.mark("Capacity"); c.capacity = n }
}

// Name names the stage's queue, for error messages and metrics.
func Name(name string) Option {
	return func(c *stageConfig) { c.mark("Name"); c.name = name }
}

// ElementShape declares the shape of the rows InputProducer emits, for an
// input whose row shape should be checked (TensorFlow's element_shape).
func ElementShape(shape tensor.Shape) Option {
	return func(c *stageConfig) { c.mark("ElementShape"); c.elementShape = shape.Clone() }
}

// NumThreads sets how many goroutines run a batcher's step (default 1).
func NumThreads(n int) Option {
	return func(c *stageConfig) { c.mark("NumThreads"); c.numThreads = n }
}

// MinAfterDequeue sets how many elements a shuffling batcher keeps in its
// queue after each dequeue, the pool it draws batches from. The limit is
// lifted when the input ends, so every example is still delivered.
func MinAfterDequeue(n int) Option {
	return func(c *stageConfig) { c.mark("MinAfterDequeue"); c.minAfterDequeue = n }
}

// EnqueueMany tells a batcher that each element its step returns is
// already a batch: dimension 0 of every component indexes examples.
func EnqueueMany() Option {
	return func(c *stageConfig) { c.mark("EnqueueMany"); c.enqueueMany = true }
}

// DynamicPad lets examples of a batch differ in size: each batch is padded
// on the right to its largest example, with zeros or empty strings.
func DynamicPad() Option {
	return func(c *stageConfig) { c.mark("DynamicPad"); c.dynamicPad = true }
}

// AllowSmallerFinalBatch delivers the examples left at end of input as a
// final, smaller batch instead of dropping them.
func AllowSmallerFinalBatch() Option {
	return func(c *stageConfig) { c.mark("AllowSmallerFinalBatch"); c.allowSmaller = true }
}

// Names names a batcher's components, so batches can be read by name
// (Batch.Float32("image")); TensorFlow's dict inputs. A step that declares
// its components' names (Named) has each component put in Names' place by
// name, so any order of Names is right, and names that differ from the
// step's fail the stage, naming both lists. The components of a step that
// declares none are taken in Names' order, which must then be sorted: the
// order in which components laid out by name come (example.Parsed's
// Components, TensorFlow's dictionaries); other orders fail the stage at
// its first element rather than risk a feature's values under another's
// name.
func Names(names ...string) Option {
	return func(c *stageConfig) { c.mark("Names"); c.names = append([]string(nil), names...) }
}

// SparseComponents names the components that hold sparse-tensor handles
// from Pipeline.StoreSparse; each batch joins their tensors, read with
// Batch.Sparse. The components must be named with Names.
func SparseComponents(names ...string) Option {
	return func(c *stageConfig) { c.mark("SparseComponents"); c.sparse = append([]string(nil), names...) }
}

// Shard makes a producer emit only its part of the input: the items at
// positions index, index+count, index+2*count, ... of the list it was
// given. Worker i of n building the same producer with Shard(i, n) gets a
// part disjoint from every other worker's, and together the n workers
// cover the list exactly once per epoch. The split is made before
// shuffling, so it is the same on every worker whatever their seeds, and
// each worker shuffles its own part each epoch. Give every worker the same
// list in the same order (MatchFilenamesOnce sorts). count must be
// positive, 0 <= index < count, and every part must be non-empty: with
// fewer files than workers, shard the records of each file instead
// (recordio.Shard).
func Shard(index, count int) Option {
	return func(c *stageConfig) { c.mark("Shard"); c.shardIndex, c.shardCount = index, count }
}

// newStageConfig applies opts over the defaults and checks that the stage,
// called stage in messages, takes every option given.
func newStageConfig(stage string, allowed []string, opts []Option) (*stageConfig, error) {
	c := &stageConfig{shuffle: true, capacity: 32, numThreads: 1}
	for _, o := range opts {
		o(c)
	}
	for opt := range c.set {
		ok := false
		for _, a := range allowed {
			if a == opt {
				ok = true
				break
			}
		}
		if !ok {
			return nil, fmt.Errorf("input: %s does not take the %s option", stage, opt)
		}
	}
	if c.set["NumEpochs"] && c.numEpochs <= 0 {
		return nil, fmt.Errorf("input: num_epochs must be > 0 not %d.", c.numEpochs)
	}
	if c.capacity <= 0 {
		return nil, fmt.Errorf("input: %s: capacity must be positive, not %d", stage, c.capacity)
	}
	if c.numThreads <= 0 {
		return nil, fmt.Errorf("input: %s: num_threads must be positive, not %d", stage, c.numThreads)
	}
	return c, nil
}
