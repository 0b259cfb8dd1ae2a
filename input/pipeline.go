package input

import (
	"context"
	"errors"
	"io"
	"sync"
	"time"

	"github.com/sluiceml/sluice/coord"
	"github.com/sluiceml/sluice/internal/stagehook"
	"github.com/sluiceml/sluice/queue"
)

// A Step produces one element: it reads a record, decodes it, and returns
// its components. A step reports the end of its input with an error for
// which errors.Is(err, io.EOF) holds. Steps run in the pipeline's
// goroutines and must be safe to call from several at once if a stage runs
// them with more than one thread.
type Step func(ctx context.Context) (queue.Element, error)

// A Pipeline holds the stages of one input pipeline and runs them. Two
// pipelines share nothing: each has its own queues, goroutines,
// coordinator and random seeds.
type Pipeline struct {
	grace time.Duration

	mu      sync.Mutex
	seed    *uint64
	ops     int
	coord   *coord.Coordinator
	runners []*coord.QueueRunner
	queues  []trackedQueue
	err     error
	started bool
	stopCtx func() bool // releases the watch on Start's context
	sparse  sparseTable
	bins    []*recycleBin // the recycling stages', released by Join

	deterministic bool
	stages        []*stagehook.Stage // for checkpoints, in build order
	resume        []byte             // the checkpoint given to Resume
}

// runnerOptions returns opts with what the pipeline's runners need: in a
// deterministic pipeline, steps that take turns.
func (p *Pipeline) runnerOptions(opts ...coord.RunnerOption) []coord.RunnerOption {
	if p.deterministic {
		opts = append(opts, coord.InTurn())
	}
	return opts
}

// NewPipeline returns an empty pipeline, configured by Seed, GracePeriod
// and Deterministic.
func NewPipeline(opts ...PipelineOption) *Pipeline {
	p := &Pipeline{coord: coord.New(), grace: coord.DefaultGracePeriod}
	for _, o := range opts {
		if o != nil {
			o.applyPipeline(p)
		}
	}
	return p
}

// fail records the first error found while building the pipeline.
func (p *Pipeline) fail(err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.err == nil {
		p.err = err
	}
}

// Err returns the first error found while building the pipeline, or nil.
func (p *Pipeline) Err() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// Coordinator returns the coordinator that runs the pipeline's goroutines.
// Code that runs goroutines of its own alongside the pipeline can register
// them with it so that they stop together.
func (p *Pipeline) Coordinator() *coord.Coordinator { return p.coord }

func (p *Pipeline) addRunner(r *coord.QueueRunner) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.runners = append(p.runners, r)
}

func (p *Pipeline) addBin(b *recycleBin) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.bins = append(p.bins, b)
}

// trackedQueue is a queue the pipeline reports metrics for.
type trackedQueue struct {
	q       queue.Queue
	shuffle bool // a shuffle_batch queue, whose summary names mad
	mad     int  // its min_after_dequeue
}

// addQueue adds q to the queues Metrics reports. shuffle says whether q is
// a shuffling queue with min_after_dequeue mad: TensorFlow's summary for
// one names mad even when it is 0 (SB-02).
func (p *Pipeline) addQueue(q queue.Queue, shuffle bool, mad int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.queues = append(p.queues, trackedQueue{q, shuffle, mad})
}

// ErrStarted is returned by Start on a pipeline that was already started.
var ErrStarted = errors.New("input: pipeline already started")

// Start starts the goroutines of every stage (TensorFlow's
// start_queue_runners). It returns the first error found while building
// the pipeline, starting nothing, and so does a checkpoint given to
// Resume that does not fit the pipeline. Cancelling ctx stops the pipeline, as
// Stop does; that is not an error.
func (p *Pipeline) Start(ctx context.Context) error {
	p.mu.Lock()
	if p.err != nil {
		err := p.err
		p.mu.Unlock()
		return err
	}
	if p.started {
		p.mu.Unlock()
		return ErrStarted
	}
	if err := p.restore(ctx); err != nil {
		p.mu.Unlock()
		return err
	}
	p.started = true
	runners := append([]*coord.QueueRunner(nil), p.runners...)
	p.stopCtx = context.AfterFunc(ctx, func() { p.coord.RequestStop(nil) })
	p.mu.Unlock()
	coord.StartAll(stagehook.InRunners(ctx, p), p.coord, runners...)
	return nil
}

// Join waits for every goroutine of the pipeline to finish and returns the
// first error any of them met (end of input is not an error). Call it after
// the consumer has seen end of input; to end a pipeline early, call Stop.
// Once a stop was requested, goroutines that do not finish within the
// pipeline's grace period are named in an error wrapping
// coord.ErrStillRunning.
//
// When ctx ends first, Join returns an error wrapping ctx.Err(); the
// pipeline runs on and may be joined again.
func (p *Pipeline) Join(ctx context.Context) error {
	err := p.coord.Join(ctx, p.grace)
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return err // not joined: Start's context must still stop it
	}
	p.mu.Lock()
	if p.stopCtx != nil {
		p.stopCtx()
	}
	bins := p.bins
	p.mu.Unlock()
	for _, b := range bins {
		b.release()
	}
	return err
}

// Stop stops the pipeline: it cancels every blocked call, closes every
// queue, waits for the goroutines to finish, and returns the first error
// any of them met before the stop. Consumers blocked on a batch get end of
// input once the queue is drained. ctx bounds only the wait, as for Join:
// the stop is requested whatever its state, so a Stop whose context has
// ended still stops every goroutine, without waiting for them.
func (p *Pipeline) Stop(ctx context.Context) error {
	p.coord.RequestStop(nil)
	return p.Join(ctx)
}

// isEOF reports whether err is end of input.
func isEOF(err error) bool { return errors.Is(err, io.EOF) }
