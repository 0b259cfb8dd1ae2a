package input

import (
	"fmt"
	"time"

	"github.com/sluiceml/sluice/tensor"
)

// Options are typed by the kind of stage they configure, so that an option
// given to a stage that does not take it does not compile: NumEpochs
// belongs to producers, DynamicPad to Batch, MinAfterDequeue to
// ShuffleBatch, GracePeriod to NewPipeline. An option several kinds take
// has a type that is each of them: Capacity and Name are an Option, which
// every stage takes; Threads, Names and the other batching options are a
// BatcherOption, which Batch and ShuffleBatch both take; Seed is a
// SeedOption, for NewPipeline and every stage that draws random numbers.
// Each stage takes the options TensorFlow's function of the same name
// takes.

// A ProducerOption configures a producer: StringInputProducer,
// RangeInputProducer, InputProducer or SliceInputProducer.
type ProducerOption interface{ applyProducer(*stageConfig) }

// A BatchOption configures Batch, MaybeBatch, BatchJoin or MaybeBatchJoin.
type BatchOption interface{ applyBatch(*stageConfig) }

// A ShuffleBatchOption configures ShuffleBatch, MaybeShuffleBatch,
// ShuffleBatchJoin or MaybeShuffleBatchJoin.
type ShuffleBatchOption interface{ applyShuffleBatch(*stageConfig) }

// A BatcherOption configures any batcher, shuffling or not: it is a
// BatchOption and a ShuffleBatchOption.
type BatcherOption interface {
	BatchOption
	ShuffleBatchOption
}

// An Option configures any stage: it is a ProducerOption, a BatchOption
// and a ShuffleBatchOption.
type Option interface {
	ProducerOption
	BatchOption
	ShuffleBatchOption
}

// A PipelineOption configures NewPipeline.
type PipelineOption interface{ applyPipeline(*Pipeline) }

// A SeedOption is a random seed (Seed): the pipeline's, given to
// NewPipeline, or a stage's own, given to a producer or a shuffling
// batcher.
type SeedOption interface {
	PipelineOption
	ProducerOption
	ShuffleBatchOption
}

// The option types: each implements the apply methods of the kinds of
// stage it applies to, and no other, so that not even a type assertion
// turns an option into one of another kind.
type (
	producerOption func(*stageConfig)
	batchOption    func(*stageConfig)
	shuffleOption  func(*stageConfig)
	batcherOption  func(*stageConfig)
	anyOption      func(*stageConfig)
	pipelineOption func(*Pipeline)
	seedOption     uint64
)

func (o producerOption) applyProducer(c *stageConfig)    { o(c) }
func (o batchOption) applyBatch(c *stageConfig)          { o(c) }
func (o shuffleOption) applyShuffleBatch(c *stageConfig) { o(c) }
func (o batcherOption) applyBatch(c *stageConfig)        { o(c) }
func (o batcherOption) applyShuffleBatch(c *stageConfig) { o(c) }
func (o anyOption) applyProducer(c *stageConfig)         { o(c) }
func (o anyOption) applyBatch(c *stageConfig)            { o(c) }
func (o anyOption) applyShuffleBatch(c *stageConfig)     { o(c) }
func (o pipelineOption) applyPipeline(p *Pipeline)       { o(p) }
func (o seedOption) applyPipeline(p *Pipeline)           { s := uint64(o); p.seed = &s }
func (o seedOption) applyProducer(c *stageConfig)        { o.apply(c) }
func (o seedOption) applyShuffleBatch(c *stageConfig)    { o.apply(c) }
func (o seedOption) apply(c *stageConfig)                { s := uint64(o); c.mark("Seed"); c.seed = &s }

// stageConfig gathers every stage option; each stage reads the fields it
// uses.
type stageConfig struct {
	set map[string]bool

	numEpochs       int
	shuffle         bool
	seed            *uint64
	capacity        int
	name            string
	elementShape    tensor.Shape
	threads         int
	minAfterDequeue int
	enqueueMany     bool
	dynamicPad      bool
	allowSmaller    bool
	recycle         bool
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

// Seed sets a random seed. Given to NewPipeline it is the pipeline's seed:
// with it, every stage that draws random numbers draws the same ones on
// every run. That alone does not make the batches repeatable: a shuffling
// queue draws from the elements it holds when a batch is taken, which
// depends on the timing of its goroutines even with one per stage, as in
// TensorFlow. With Deterministic too, a pipeline produces the same batches
// in the same order on every run. Given to a producer or a shuffling
// batcher it is that stage's own seed, which, combined with the
// pipeline's, fixes the stage's random order (TensorFlow's graph and op
// seeds).
func Seed(seed uint64) SeedOption { return seedOption(seed) }

// Deterministic makes the pipeline's output a function of its input, its
// seed and its options alone, not of the timing of its goroutines: the
// steps of every batcher take turns (coord.InTurn), one step call at a
// time in the order of the steps, so that readers sharing a filename queue
// take its files, and enqueue their elements, in a fixed order; and a
// shuffling batcher's RandomShuffle queue draws only when full
// (queue.WaitFull), so that each draw chooses among the same elements on
// every run. With a Seed, two runs deliver the same batches. The readers
// of a batcher then no longer run in parallel with each other, only with
// the producers, the consumer and the other stages: that is the cost.
// The turns are a batcher's own: the readers of two batchers that share
// one filename queue race for its files, so their batches, and a resume
// of their checkpoint, depend on timing (audit 95). Give each batcher a
// producer of its own. The stages built outside this package honour
// Deterministic too: the state saver (package sequence), bucketing
// (package bucket), whose batches move to the output as the enqueue that
// fills their bucket runs, and sampling by class (package sample).
func Deterministic() PipelineOption {
	return pipelineOption(func(p *Pipeline) { p.deterministic = true })
}

// GracePeriod sets how long Stop and Join wait for goroutines after a
// stop before reporting them as still running (default 2 minutes).
func GracePeriod(d time.Duration) PipelineOption {
	return pipelineOption(func(p *Pipeline) { p.grace = d })
}

// NumEpochs limits a producer to n passes over its input; after the last
// it closes its queue, so the pipeline ends with end of input. n must be
// positive. Without it a producer cycles for ever.
func NumEpochs(n int) ProducerOption {
	return producerOption(func(c *stageConfig) { c.mark("NumEpochs"); c.numEpochs = n })
}

// Shuffle turns a producer's per-epoch shuffling on or off. Producers
// shuffle by default, as TensorFlow's do; each epoch gets a fresh
// permutation and epochs never mix.
func Shuffle(on bool) ProducerOption {
	return producerOption(func(c *stageConfig) { c.shuffle = on })
}

// Capacity sets the capacity of the stage's queue (default 32).
func Capacity(n int) Option {
	return anyOption(func(c *stageConfig) { c.capacity = n })
}

// Name names the stage's queue, for error messages and metrics.
func Name(name string) Option {
	return anyOption(func(c *stageConfig) { c.name = name })
}

// ElementShape declares the shape of the rows InputProducer emits, for an
// input whose row shape should be checked (TensorFlow's element_shape).
// The other producers, whose rows are scalars, do not take it.
func ElementShape(shape tensor.Shape) ProducerOption {
	return producerOption(func(c *stageConfig) { c.mark("ElementShape"); c.elementShape = shape.Clone() })
}

// Threads sets how many goroutines run a batcher's step (default 1). The
// Join batchers, which run one goroutine per step, do not take it.
func Threads(n int) BatcherOption {
	return batcherOption(func(c *stageConfig) { c.mark("Threads"); c.threads = n })
}

// MinAfterDequeue sets how many elements a shuffling batcher keeps in its
// queue after each dequeue, the pool it draws batches from. The limit is
// lifted when the input ends, so every example is still delivered.
func MinAfterDequeue(n int) ShuffleBatchOption {
	return shuffleOption(func(c *stageConfig) { c.minAfterDequeue = n })
}

// EnqueueMany tells a batcher that each element its step returns is
// already a batch: dimension 0 of every component indexes examples.
func EnqueueMany() BatcherOption {
	return batcherOption(func(c *stageConfig) { c.enqueueMany = true })
}

// DynamicPad lets examples of a batch differ in size: each batch is padded
// on the right to its largest example, with zeros or empty strings.
func DynamicPad() BatchOption {
	return batchOption(func(c *stageConfig) { c.dynamicPad = true })
}

// AllowSmallerFinalBatch delivers the examples left at end of input as a
// final, smaller batch instead of dropping them.
func AllowSmallerFinalBatch() BatcherOption {
	return batcherOption(func(c *stageConfig) { c.allowSmaller = true })
}

// Recycle makes a batcher hand the elements it has copied into batches
// back to its steps, which take them with Recycled and fill them again
// (example.Parser.ParseSingleInto does) instead of allocating an element
// per example; see Recycled. It is for steps that own what they return:
// every tensor of an element a step returns must be that element's alone,
// neither kept by the step nor shared with another element, since once
// the element is batched the stage may give it to a step to overwrite.
// Components of type String are not handed back, a batch sharing their
// bytes. EnqueueMany, whose elements are rows sharing one batch's
// memory, does not take it. When the pipeline is joined, the stage's
// elements are kept for the steps of the next recycling stage whose
// elements have the same types and fully defined shapes, until the
// collector reclaims them (they are held in a sync.Pool).
func Recycle() BatcherOption {
	return batcherOption(func(c *stageConfig) { c.recycle = true })
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
func Names(names ...string) BatcherOption {
	return batcherOption(func(c *stageConfig) { c.names = append([]string(nil), names...) })
}

// SparseComponents names the components that hold sparse-tensor handles
// from Pipeline.StoreSparse; each batch joins their tensors, read with
// Batch.Sparse. The components must be named with Names.
func SparseComponents(names ...string) BatcherOption {
	return batcherOption(func(c *stageConfig) { c.sparse = append([]string(nil), names...) })
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
func Shard(index, count int) ProducerOption {
	return producerOption(func(c *stageConfig) { c.mark("Shard"); c.shardIndex, c.shardCount = index, count })
}

// newStageConfig returns the defaults with the options apply sets, and
// checks them for the stage, called stage in messages. The types of the
// options keep each kind of stage from options of the others; the two
// options that only some stages of a kind take are checked here:
// ElementShape (InputProducer's alone) unless elementShape, and Threads
// unless threaded (the Join batchers run one goroutine per step).
func newStageConfig(stage string, elementShape, threaded bool, apply func(*stageConfig)) (*stageConfig, error) {
	c := &stageConfig{shuffle: true, capacity: 32, threads: 1}
	apply(c)
	switch {
	case c.set["ElementShape"] && !elementShape:
		return nil, fmt.Errorf("input: %s does not take the ElementShape option", stage)
	case c.set["Threads"] && !threaded:
		return nil, fmt.Errorf("input: %s does not take the Threads option", stage)
	case c.set["NumEpochs"] && c.numEpochs <= 0:
		return nil, fmt.Errorf("input: num_epochs must be > 0 not %d.", c.numEpochs)
	case c.capacity <= 0:
		return nil, fmt.Errorf("input: %s: capacity must be positive, not %d", stage, c.capacity)
	case c.threads <= 0:
		return nil, fmt.Errorf("input: %s: num_threads must be positive, not %d", stage, c.threads)
	}
	return c, nil
}

func producerConfig(stage string, elementShape bool, opts []ProducerOption) (*stageConfig, error) {
	return newStageConfig(stage, elementShape, false, func(c *stageConfig) {
		for _, o := range opts {
			if o != nil {
				o.applyProducer(c)
			}
		}
	})
}

func batchConfig(stage string, threaded bool, opts []BatchOption) (*stageConfig, error) {
	return newStageConfig(stage, false, threaded, func(c *stageConfig) {
		for _, o := range opts {
			if o != nil {
				o.applyBatch(c)
			}
		}
	})
}

func shuffleBatchConfig(stage string, threaded bool, opts []ShuffleBatchOption) (*stageConfig, error) {
	return newStageConfig(stage, false, threaded, func(c *stageConfig) {
		for _, o := range opts {
			if o != nil {
				o.applyShuffleBatch(c)
			}
		}
	})
}
