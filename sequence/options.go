package sequence

// An Option configures NewStateSaver or BatchSequencesWithStates.
type Option func(*config)

type config struct {
	capacity       int // 0: unbounded
	capacitySet    bool
	allowSmall     bool
	name           string
	numThreads     int
	pad            bool
	padSet         bool
	makeKeysUnique bool
	seed           *uint64

	// pipelineOnly names the options given that apply only to
	// BatchSequencesWithStates, so NewStateSaver can reject them.
	pipelineOnly []string
	err          error
}

// Capacity bounds the number of examples the state saver holds at once
// (an example counts until its last segment is taken). It must be at
// least the batch size. NewStateSaver's default is unbounded,
// BatchSequencesWithStates' is 1000 (SQ-13, BSWS-01).
func Capacity(n int) Option {
	return func(c *config) {
		if n <= 0 {
			c.fail(invalidf("sequence: capacity must be positive, not %d", n))
		}
		c.capacity, c.capacitySet = n, true
	}
}

// AllowSmallerFinalBatch lets Next return batches smaller than the batch
// size once the state saver is closed, so the segments left at the end of
// input are delivered (TensorFlow's allow_small_batch). It is
// BatchSequencesWithStates' default, as TensorFlow's; NewStateSaver's
// default is to wait for full batches.
func AllowSmallerFinalBatch() Option {
	return func(c *config) { c.allowSmall = true }
}

// DropRemainder makes Next return only full batches: once the state saver
// is closed, segments too few for a batch are not delivered and Next
// returns end of input (allow_small_batch=False). It is NewStateSaver's
// default; BatchSequencesWithStates takes it to turn AllowSmallerFinalBatch
// off. The name is the one package sluice and tf.data give the same choice.
func DropRemainder() Option {
	return func(c *config) { c.allowSmall = false }
}

// Name sets the state saver's name; its barrier and capacity queue are
// named under it ("<name>/barrier", "<name>/capacity_queue"), as TensorFlow
// creates them under the name scope (SQ-16). The defaults are
// "InputQueueingStateSaver" and "batch_sequences_with_states".
func Name(name string) Option {
	return func(c *config) { c.name = name }
}

// Threads sets the number of prefetch goroutines of
// BatchSequencesWithStates (default 3).
func Threads(n int) Option {
	return func(c *config) {
		c.pipelineOnly = append(c.pipelineOnly, "Threads")
		if n <= 0 {
			c.fail(invalidf("sequence: num_threads must be positive, not %d", n))
		}
		c.numThreads = n
	}
}

// Pad sets whether BatchSequencesWithStates pads every sequence at the end
// to the next multiple of num_unroll, with zeros (empty strings for
// strings). The default is true; without padding, a sequence whose length
// is not a multiple of num_unroll is an error (BSWS-02, BSWS-04).
func Pad(on bool) Option {
	return func(c *config) {
		c.pipelineOnly = append(c.pipelineOnly, "Pad")
		c.pad, c.padSet = on, true
	}
}

// MakeKeysUnique makes BatchSequencesWithStates append a random integer in
// [0, 100000000) to every input key, so that examples that share a key do
// not collide in the state saver (BSWS-08). The numbers come from the
// pipeline's seed, or from Seed.
func MakeKeysUnique() Option {
	return func(c *config) {
		c.pipelineOnly = append(c.pipelineOnly, "MakeKeysUnique")
		c.makeKeysUnique = true
	}
}

// Seed fixes the seed of MakeKeysUnique's random numbers
// (make_keys_unique_seed).
func Seed(seed uint64) Option {
	return func(c *config) {
		c.pipelineOnly = append(c.pipelineOnly, "Seed")
		c.seed = &seed
	}
}

func (c *config) fail(err error) {
	if c.err == nil {
		c.err = err
	}
}

func newConfig(opts []Option) *config {
	c := &config{}
	for _, o := range opts {
		o(c)
	}
	return c
}

// checkStateSaverOnly rejects options that only BatchSequencesWithStates
// understands.
func (c *config) checkStateSaverOnly() error {
	if len(c.pipelineOnly) > 0 {
		return invalidf("sequence: option %s applies only to BatchSequencesWithStates", c.pipelineOnly[0])
	}
	return nil
}
