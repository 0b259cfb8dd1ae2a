package sequence

import (
	"context"
	"fmt"

	"github.com/sluiceml/sluice/coord"
)

// A Step produces one example for a state saver's prefetch goroutines: it
// reads and decodes a record and returns its key, length, sequences and
// context. It reports the end of its input with an error for which
// errors.Is(err, io.EOF) holds. Steps run in several goroutines at once.
type Step func(ctx context.Context) (Input, error)

// QueueRunner returns a queue runner that keeps the state saver filled, as
// TensorFlow's example wraps a SequenceQueueingStateSaver in a QueueRunner:
// numThreads goroutines each call step and Prefetch its example, over and
// over. When the last of them sees end of input the state saver is closed
// with Close, so the examples already started finish and Next then reports
// end of input; when the coordinator stops, it is closed with CloseNow.
// Start it with coord.StartAll or add it to a pipeline.
func (s *StateSaver) QueueRunner(numThreads int, step Step) (*coord.QueueRunner, error) {
	return s.queueRunner(numThreads, step)
}

// queueRunner is QueueRunner with options for the runner.
func (s *StateSaver) queueRunner(numThreads int, step Step, opts ...coord.RunnerOption) (*coord.QueueRunner, error) {
	if numThreads <= 0 {
		return nil, invalidf("sequence: num_threads must be positive, not %d", numThreads)
	}
	if step == nil {
		return nil, invalidf("sequence: no step")
	}
	prefetch := func(ctx context.Context) error {
		in, err := step(ctx)
		if err != nil {
			return err
		}
		return s.Prefetch(ctx, in)
	}
	steps := make([]coord.Step, numThreads)
	names := make([]string, numThreads)
	for i := range steps {
		steps[i] = prefetch
		names[i] = fmt.Sprintf("prefetch_op%d", i)
	}
	// The runner takes the state saver in place of a queue, as
	// TensorFlow's does: it needs only its name and its two ways to close.
	return coord.NewQueueRunner(s, steps, append(opts, coord.StepNames(names...))...)
}

// A state saver runs under a queue runner as it is.
var _ coord.Closer = (*StateSaver)(nil)
