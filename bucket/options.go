package bucket

import (
	"github.com/sluiceml/sluice/internal/stagehook"
	"github.com/sluiceml/sluice/queue"
)

// An Option configures Bucket or BySequenceLength. The options are
// TensorFlow's keyword arguments of the same names.
type Option func(*config)

type config struct {
	numThreads   int
	capacity     int
	capacities   []int // bucket_capacities; nil: capacity for every bucket
	keep         func(key int, e queue.Element) bool
	dynamicPad   bool
	allowSmaller bool
	name         string
	names        []string
	namer        stagehook.Namer // names the step's components: names, or the step's own
	err          error           // the first invalid option

	// boundsErr is BySequenceLength's boundary error, which TensorFlow
	// reports before any other argument's.
	boundsErr error
}

func newConfig(opts []Option) *config {
	c := &config{numThreads: 1, capacity: 32}
	for _, o := range opts {
		o(c)
	}
	return c
}

func (c *config) fail(err error) {
	if c.err == nil {
		c.err = err
	}
}

// Threads sets how many goroutines run the step (default 1). With more
// than one, examples of a bucket may be batched out of the step's order.
func Threads(n int) Option {
	return func(c *config) {
		if n <= 0 {
			c.fail(invalidf("bucket: num_threads must be positive, not %d", n))
		}
		c.numThreads = n
	}
}

// Capacity sets the number of batches the top queue holds and, unless
// BucketCapacities says otherwise, the number of examples each bucket's
// queue holds (default 32).
func Capacity(n int) Option {
	return func(c *config) {
		if n <= 0 {
			c.fail(invalidf("bucket: capacity must be positive, not %d", n))
		}
		c.capacity = n
	}
}

// BucketCapacities sets the capacity of each bucket's queue, one per
// bucket, in place of Capacity.
func BucketCapacities(caps ...int) Option {
	return func(c *config) {
		for _, n := range caps {
			if n <= 0 {
				c.fail(invalidf("bucket: bucket capacities must be positive, not %d", n))
			}
		}
		c.capacities = append([]int{}, caps...)
	}
}

// KeepInput filters the examples: an example for which keep returns false
// is dropped before it reaches a bucket (TensorFlow's keep_input). keep
// gets what the step returned: the bucket id for Bucket, the sequence
// length for BySequenceLength, and the example's components. It is called
// from the step's goroutines, possibly several at once.
func KeepInput(keep func(key int, e queue.Element) bool) Option {
	return func(c *config) { c.keep = keep }
}

// DynamicPad lets the examples differ in size: each batch is padded on the
// right, per component and dimension, to its largest example, with zeros
// (empty strings for strings). The examples must still agree in rank.
// Without it every example must have the first example's shapes.
func DynamicPad() Option {
	return func(c *config) { c.dynamicPad = true }
}

// AllowSmallerFinalBatch makes every bucket deliver the examples it holds
// at end of input as a last, smaller batch. Without it they are dropped.
// TensorFlow drops them either way; see the package documentation.
func AllowSmallerFinalBatch() Option {
	return func(c *config) { c.allowSmaller = true }
}

// Name names the stage; its queues are named under it
// ("<name>/bucket_queue_<i>", "<name>/top_queue"). BySequenceLength puts
// them under "<name>/bucket", as TensorFlow's calls bucket inside its own
// name scope. The defaults are "bucket" and "bucket_by_sequence_length".
func Name(name string) Option {
	return func(c *config) { c.name = name }
}

// Names names the components of the examples the step returns, so that
// batches can be read by name (input.Batch.Tensor). As with input.Names,
// a step that declares its names (input.Named) has its components matched
// to Names by name, and without Names the stage takes the step's; a step
// that declares none must return them in Names' order, which must then be
// sorted.
func Names(names ...string) Option {
	return func(c *config) { c.names = append([]string{}, names...) }
}
