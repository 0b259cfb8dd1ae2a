package sequence

import (
	"context"
	"math/rand/v2"
	"strconv"
	"sync"

	"github.com/sluiceml/sluice/coord"
	"github.com/sluiceml/sluice/input"
	"github.com/sluiceml/sluice/internal/stagehook"
	"github.com/sluiceml/sluice/tensor"
)

// BatchSequencesWithStates builds a state saver on p fed by step,
// TensorFlow's batch_sequences_with_states: Threads goroutines (default
// 3) run step and prefetch its examples, as a queue runner that p starts,
// stops and joins with its other stages. The defaults follow TensorFlow's
// (BSWS-01): Capacity 1000, AllowSmallerFinalBatch (DropRemainder turns it
// off), Pad true, and the name "batch_sequences_with_states".
//
// With padding, every sequence is padded at the end to the next multiple
// of numUnroll with zeros ("" for strings), and an Input whose Length is
// InferLength gets the unpadded length. All sequences of an example must
// then have the same length ("All sequence lengths must match, but
// received lengths: [3 2]"). Without padding, a length that is not a
// non-zero multiple of numUnroll is an error ("Tensor seq1 first dimension
// should be a multiple of: 3, but saw value: 4. Consider setting
// pad=True.").
//
// An invalid example stops the pipeline with an error naming its key; Next
// and p.Join return it. When step reports end of input, the state saver is
// closed with Close: the examples started finish, and Next then returns
// end of input (errors.Is(err, io.EOF)).
//
// Build errors are recorded on p (Start returns them); the state saver
// returned is then nil.
func BatchSequencesWithStates(p *input.Pipeline, step Step, initialStates map[string]tensor.Tensor, numUnroll, batchSize int, opts ...BatchOption) *StateSaver {
	c := &config{capacity: 1000, capacitySet: true, allowSmall: true, numThreads: 3, pad: true}
	for _, o := range opts {
		o.applyBatch(c)
	}
	if c.name == "" {
		c.name = "batch_sequences_with_states"
	}
	s, err := newStateSaver(batchSize, numUnroll, initialStates, c)
	if err != nil {
		stagehook.Of(p).Fail(err)
		return nil
	}
	if step == nil {
		stagehook.Of(p).Fail(invalidf("sequence: %s: no step", c.name))
		return nil
	}
	s.stageErr = p.Coordinator().Err
	s.carried = new(carried)
	s.ck = &stagehook.Stage{Desc: s.describe(c), Save: s.carried.checkpoint}
	stagehook.Of(p).AddStage(s.ck)

	prepare := padStep(step, numUnroll, c.pad)
	if c.makeKeysUnique {
		prepare = uniqueKeys(prepare, stagehook.Of(p).Seed(c.seed))
	}
	var ropts []coord.RunnerOption
	if stagehook.Of(p).Deterministic() {
		// The prefetch threads insert examples in turn, so the barrier
		// sees them in the same order on every run.
		ropts = append(ropts, coord.InTurn())
	}
	r, err := s.queueRunner(c.numThreads, prepare, ropts...)
	if err != nil {
		stagehook.Of(p).Fail(err)
		return nil
	}
	p.AddQueueRunner(r)
	stagehook.Of(p).TrackQueue(s.tokens, 0)
	return s
}

// padStep wraps step with BatchSequencesWithStates' padding, or without
// padding its multiple-of check.
func padStep(step Step, u int, pad bool) Step {
	return func(ctx context.Context) (Input, error) {
		in, err := step(ctx)
		if err != nil {
			return in, err
		}
		if pad {
			if err := padInput(&in, u); err != nil {
				return in, exampleError(in.Key, err)
			}
			return in, nil
		}
		if in.Length == InferLength {
			return in, exampleError(in.Key, invalidf("the input length must be given when pad is false"))
		}
		for _, k := range sortedKeys(in.Sequences) {
			if n := in.Sequences[k].Len(); n == 0 || n%u != 0 {
				return in, exampleError(in.Key, invalidf("Tensor %s first dimension should be a multiple of: %d, but saw value: %d. Consider setting pad=True.", k, u, n))
			}
		}
		for _, k := range sortedKeys(in.SparseSequences) {
			if d := in.SparseSequences[k].DenseShape; len(d) > 0 && (d[0] == 0 || d[0]%u != 0) {
				return in, exampleError(in.Key, invalidf("Tensor %s first dimension should be a multiple of: %d, but saw value: %d. Consider setting pad=True.", k, u, d[0]))
			}
		}
		return in, nil
	}
}

// uniqueKeys appends a random integer in [0, 100000000) to every key
// (BSWS-08), drawn from a generator seeded with seed.
func uniqueKeys(step Step, seed uint64) Step {
	var mu sync.Mutex
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	return func(ctx context.Context) (Input, error) {
		in, err := step(ctx)
		if err != nil {
			return in, err
		}
		mu.Lock()
		n := rng.IntN(100000000)
		mu.Unlock()
		in.Key += strconv.Itoa(n)
		return in, nil
	}
}
