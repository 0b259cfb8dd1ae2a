package sequence

import (
	"context"
	"fmt"

	"github.com/sluiceml/sluice/coord"
	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tensor"
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
// without cancel, so the examples already started finish and Next then
// reports end of input; when the coordinator stops, it is closed with
// cancel. Start it with coord.StartAll or add it to a pipeline.
func (s *StateSaver) QueueRunner(numThreads int, step Step) (*coord.QueueRunner, error) {
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
	return coord.NewQueueRunner(runnerQueue{s}, steps, coord.StepNames(names...))
}

// runnerQueue presents a state saver to coord.QueueRunner, which needs
// only its name and Close, as TensorFlow's QueueRunner takes the state
// saver in place of a queue. Elements cannot be moved through it.
type runnerQueue struct{ s *StateSaver }

var _ queue.Queue = runnerQueue{}

func (q runnerQueue) Name() string                                     { return q.s.name }
func (q runnerQueue) DTypes() []tensor.DType                           { return q.s.barrier.DTypes() }
func (q runnerQueue) Shapes() []tensor.Shape                           { return q.s.barrier.Shapes() }
func (q runnerQueue) Names() []string                                  { return nil }
func (q runnerQueue) Close(ctx context.Context) error                  { return q.s.Close(ctx) }
func (q runnerQueue) CloseNow(ctx context.Context) error               { return q.s.CloseNow(ctx) }
func (q runnerQueue) IsClosed() bool                                   { return q.s.IsClosed() }
func (q runnerQueue) Size() int                                        { return q.s.barrier.ReadySize() }
func (q runnerQueue) Capacity() int                                    { return q.s.tokens.Capacity() }
func (q runnerQueue) Enqueue(context.Context, queue.Element) error     { return q.unsupported() }
func (q runnerQueue) EnqueueMany(context.Context, queue.Element) error { return q.unsupported() }
func (q runnerQueue) Dequeue(context.Context) (queue.Element, error) {
	return nil, q.unsupported()
}
func (q runnerQueue) DequeueMany(context.Context, int) (queue.Element, error) {
	return nil, q.unsupported()
}
func (q runnerQueue) DequeueUpTo(context.Context, int) (queue.Element, error) {
	return nil, q.unsupported()
}

func (q runnerQueue) unsupported() error {
	return invalidf("sequence: %s is a state saver: use Prefetch and Next", q.s.name)
}
