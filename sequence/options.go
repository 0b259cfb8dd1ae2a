package sequence

// Options are typed by the constructor they configure, as package input's
// are, so that an option the constructor does not take does not compile:
// Threads, Pad, MakeKeysUnique and Seed concern the pipeline stage that
// BatchSequencesWithStates builds around a state saver, and are a
// BatchOption only; Capacity, Name, AllowSmallerFinalBatch and
// DropRemainder configure the state saver itself and are an Option, which
// both constructors take.

// A StateSaverOption configures NewStateSaver.
type StateSaverOption interface{ applyStateSaver(*config) }

// A BatchOption configures BatchSequencesWithStates.
type BatchOption interface{ applyBatch(*config) }

// An Option configures the state saver, built by NewStateSaver or by
// BatchSequencesWithStates: it is a StateSaverOption and a BatchOption.
type Option interface {
	StateSaverOption
	BatchOption
}

// The option types: each implements the apply methods of the constructors
// it applies to, and no other.
type (
	anyOption   func(*config)
	batchOption func(*config)
)

func (o anyOption) applyStateSaver(c *config) { o(c) }
func (o anyOption) applyBatch(c *config)      { o(c) }
func (o batchOption) applyBatch(c *config)    { o(c) }

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

	err error
}

// Capacity bounds the number of examples the state saver holds at once
// (an example counts until its last segment is taken). It must be at
// least the batch size. NewStateSaver's default is unbounded,
// BatchSequencesWithStates' is 1000 (SQ-13, BSWS-01).
func Capacity(n int) Option {
	return anyOption(func(c *config) {
		if n <= 0 {
			c.fail(invalidf("sequence: capacity must be positive, not %d", n))
		}
		c.capacity, c.capacitySet = n, true
	})
}

// AllowSmallerFinalBatch lets Next return batches smaller than the batch
// size once the state saver is closed, so the segments left at the end of
// input are delivered (TensorFlow's allow_small_batch). It is
// BatchSequencesWithStates' default, as TensorFlow's; NewStateSaver's
// default is to wait for full batches.
func AllowSmallerFinalBatch() Option {
	return anyOption(func(c *config) { c.allowSmall = true })
}

// DropRemainder makes Next return only full batches: once the state saver
// is closed, segments too few for a batch are not delivered and Next
// returns end of input (allow_small_batch=False). It is NewStateSaver's
// default; BatchSequencesWithStates takes it to turn AllowSmallerFinalBatch
// off. The name is the one package sluice and tf.data give the same choice.
func DropRemainder() Option {
	return anyOption(func(c *config) { c.allowSmall = false })
}

// Name sets the state saver's name; its barrier and capacity queue are
// named under it ("<name>/barrier", "<name>/capacity_queue"), as TensorFlow
// creates them under the name scope (SQ-16). The defaults are
// "InputQueueingStateSaver" and "batch_sequences_with_states".
func Name(name string) Option {
	return anyOption(func(c *config) { c.name = name })
}

// Threads sets the number of prefetch goroutines of
// BatchSequencesWithStates (default 3).
func Threads(n int) BatchOption {
	return batchOption(func(c *config) {
		if n <= 0 {
			c.fail(invalidf("sequence: num_threads must be positive, not %d", n))
		}
		c.numThreads = n
	})
}

// Pad sets whether BatchSequencesWithStates pads every sequence at the end
// to the next multiple of num_unroll, with zeros (empty strings for
// strings). The default is true; without padding, a sequence whose length
// is not a multiple of num_unroll is an error (BSWS-02, BSWS-04).
func Pad(on bool) BatchOption {
	return batchOption(func(c *config) {
		c.pad, c.padSet = on, true
	})
}

// MakeKeysUnique makes BatchSequencesWithStates append a random integer in
// [0, 100000000) to every input key, so that examples that share a key do
// not collide in the state saver (BSWS-08). The numbers come from the
// pipeline's seed, or from Seed.
func MakeKeysUnique() BatchOption {
	return batchOption(func(c *config) {
		c.makeKeysUnique = true
	})
}

// Seed fixes the seed of MakeKeysUnique's random numbers
// (make_keys_unique_seed).
func Seed(seed uint64) BatchOption {
	return batchOption(func(c *config) {
		c.seed = &seed
	})
}

func (c *config) fail(err error) {
	if c.err == nil {
		c.err = err
	}
}
