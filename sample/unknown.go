package sample

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"sync"
	"sync/atomic"

	"github.com/sluiceml/sluice/coord"
	"github.com/sluiceml/sluice/input"
	"github.com/sluiceml/sluice/internal/stagehook"
	"github.com/sluiceml/sluice/internal/stagequeue"
	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tensor"
)

// DefaultClassCapacity is how many examples each class of
// StratifiedSampleUnknownDist holds beyond what the batch being formed
// takes from it (TensorFlow's queue_capacity).
const DefaultClassCapacity = 16

// readyBatches is how many formed batches wait for Next: the slack
// between the steps and the consumer.
const readyBatches = 2

// ClassBatches is the output of StratifiedSampleUnknownDist.
type ClassBatches struct {
	p         *input.Pipeline
	probs     []float64
	batchSize int
	capacity  int // ClassCapacity
	rng       *lockedRand
	names     stagehook.Namer
	err       error            // a build error
	ck        *stagehook.Stage // its part in checkpoints
	ready     *stagequeue.Lazy // formed batches, for Next
	dropped   atomic.Int64

	mu         sync.Mutex
	stores     [][]queue.Element // each class's examples, in arrival order
	want       []int             // the class counts of the batch being formed; nil until drawn
	components int               // the first example's, which every other must have
}

// StratifiedSampleUnknownDist delivers batches of batchSize whose class
// counts are drawn from Multinomial(batchSize, probs) (TensorFlow's
// stratified_sample_unknown_dist, SU-02): the examples step returns are
// kept by class, and each batch takes its counts from them and joins them
// in class order, so labels do not decrease within a batch. Each batch's
// first component, "label", holds the classes as int64; the step's
// components follow.
//
// It needs no knowledge of the input's class proportions. While the batch
// being formed waits for examples of a class, a class that has ClassCapacity
// examples beyond that batch's share drops its new ones (Dropped counts
// them), as do classes of probability 0, which no batch takes: TensorFlow's
// per-class threads drop every example not of their class. A class the
// input seldom has holds every batch up meanwhile. Which examples are
// dropped depends only on the order of the examples and on the seed, not on
// when Next is called: a deterministic pipeline's batches stay
// deterministic. Formed batches wait for Next, two at most, after which
// the steps wait.
func StratifiedSampleUnknownDist(p *input.Pipeline, step LabelStep, probs []float64, batchSize int, opts ...Option) *ClassBatches {
	c := newConfig(opts)
	b := &ClassBatches{p: p, probs: probs, batchSize: batchSize, capacity: c.classCapacity,
		rng: newLockedRand(stagehook.Of(p).Seed(c.seed))}
	b.names = stagehook.NewNamer("stratified_sample_unknown_dist", c.names)
	const op = "stratified_sample_unknown_dist"
	b.ck = describe(p, op, c, fmt.Sprintf("probs %v, batch size %d", probs, batchSize))
	b.err = checkStage(op, step == nil, batchSize)
	if b.err == nil {
		b.err = checkProbs(op, "probs", probs)
	}
	if b.err == nil && (c.classCapacity <= 0 || c.threads <= 0) {
		b.err = invalidf("sample: %s: class capacity %d and threads %d must be positive", op, c.classCapacity, c.threads)
	}
	if b.err != nil {
		stagehook.Of(p).Fail(b.err)
		return b
	}
	name := c.name
	if name == "" {
		name = op
	}
	qname := name + "/batches"
	b.ready = stagequeue.NewLazy("FIFOQueue", qname, readyBatches, nil, func(first queue.Element) (queue.Queue, error) {
		dtypes := make([]tensor.DType, len(first))
		shapes := make([]tensor.Shape, len(first))
		for j, t := range first {
			dtypes[j], shapes[j] = t.DType(), t.Shape()
		}
		return queue.NewFIFO(readyBatches, dtypes, queue.Shapes(shapes...), queue.Name(qname))
	})
	stagehook.Of(p).TrackQueue(b.ready, 0)
	b.stores = make([][]queue.Element, len(probs))
	var seen atomic.Int64
	// The runner's goroutines share feed; a caller from the pool keeps
	// the declaration's context and order between one goroutine's calls.
	callers := sync.Pool{New: func() any { return b.names.Caller() }}
	feed := func(ctx context.Context) error {
		c := callers.Get().(stagehook.StepCaller)
		l, e, err := step(c.Context(ctx))
		if err == nil {
			e, err = c.Arrange(e)
		}
		callers.Put(c)
		if err != nil {
			return err
		}
		n := seen.Add(1) - 1
		if l < 0 || l >= len(probs) {
			return invalidf("sample: %s: example %d: label %d is not in [0, %d)", op, n, l, len(probs))
		}
		formed, err := b.add(n, l, e)
		for _, batch := range formed {
			if err == nil {
				err = b.ready.Enqueue(ctx, batch)
			}
		}
		return err
	}
	steps := make([]coord.Step, c.threads)
	for i := range steps {
		steps[i] = feed
	}
	var ropts []coord.RunnerOption
	if stagehook.Of(p).Deterministic() {
		// The examples reach the class stores in the order of the steps'
		// turns, and a batch leaves them as soon as it can be formed, so
		// the batches and the examples dropped follow from that order and
		// the seed.
		ropts = append(ropts, coord.InTurn())
	}
	r, err := coord.NewQueueRunner(b.ready, steps, ropts...)
	if err != nil {
		b.err = err
		stagehook.Of(p).Fail(err)
		return b
	}
	p.AddQueueRunner(r)
	return b
}

// Dropped returns how many examples were dropped: of a class of
// probability 0, or of a class that held ClassCapacity examples beyond
// the forming batch's share while that batch waited for another class.
func (b *ClassBatches) Dropped() int64 { return b.dropped.Load() }

// add keeps example e, the n-th, of class l, or drops it, and returns
// the batches that can now be formed, in order.
func (b *ClassBatches) add(n int64, l int, e queue.Element) ([]queue.Element, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.want == nil {
		b.draw()
		b.components = len(e)
	}
	if len(e) != b.components {
		// Checked here, not when the batch is stacked: a longer example
		// among shorter ones would lose its extra components (audit 72).
		return nil, invalidf("sample: stratified_sample_unknown_dist: example %d has %d components, the first %d", n, len(e), b.components)
	}
	if b.probs[l] == 0 || len(b.stores[l]) >= b.want[l]+b.capacity {
		// The forming batch waits for another class (it would have been
		// formed otherwise), which only more input brings: e cannot
		// wait for room, as the batch's class would wait behind it for
		// ever (audit 69).
		b.dropped.Add(1)
		return nil, nil
	}
	b.stores[l] = append(b.stores[l], e)
	var formed []queue.Element
	for b.complete() {
		batch, err := b.form()
		if err != nil {
			return formed, err
		}
		formed = append(formed, batch)
		b.draw()
	}
	return formed, nil
}

// draw draws the class counts of the next batch.
func (b *ClassBatches) draw() {
	b.want = make([]int, len(b.probs))
	for range b.batchSize {
		b.want[b.category()]++
	}
}

// complete reports whether the stores hold the forming batch.
func (b *ClassBatches) complete() bool {
	for i, n := range b.want {
		if len(b.stores[i]) < n {
			return false
		}
	}
	return true
}

// form takes the forming batch out of the stores: its labels, then each
// component's examples stacked in class order.
func (b *ClassBatches) form() (queue.Element, error) {
	rows := make([]queue.Element, 0, b.batchSize)
	labels := make([]int64, 0, b.batchSize)
	for i, n := range b.want {
		rows = append(rows, b.stores[i][:n]...)
		for range n {
			labels = append(labels, int64(i))
		}
		clear(b.stores[i][:n])
		b.stores[i] = b.stores[i][n:]
	}
	out := queue.Element{tensor.New(labels)}
	col := make([]tensor.Tensor, len(rows))
	for j := range b.components {
		for k, r := range rows {
			col[k] = r[j]
		}
		t, err := tensor.Stack(col)
		if err != nil {
			return nil, fmt.Errorf("sample: stratified_sample_unknown_dist: component %d: %w", j, err)
		}
		out = append(out, t)
	}
	return out, nil
}

// Next returns the next batch; at end of input, an error wrapping io.EOF.
// If the pipeline stopped because a stage failed, Next returns that
// stage's error. At end of input, the batch being formed is dropped, as
// TensorFlow drops a partial batch.
func (b *ClassBatches) Next(ctx context.Context) (input.Batch, error) {
	if b.err != nil {
		return input.Batch{}, b.err
	}
	err := b.ck.Replay(ctx, func(ctx context.Context, _ json.RawMessage) error {
		_, err := b.next(ctx)
		return err
	})
	if err != nil {
		return input.Batch{}, fmt.Errorf("sample: %w", err)
	}
	batch, err := b.next(ctx)
	if err == nil {
		b.ck.Taken(ctx)
	}
	return batch, err
}

// next is Next without the checkpoint's bookkeeping.
func (b *ClassBatches) next(ctx context.Context) (input.Batch, error) {
	e, err := b.ready.Dequeue(ctx)
	if err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, queue.ErrCancelled) {
			if perr := b.p.Coordinator().Err(); perr != nil {
				return input.Batch{}, perr
			}
		}
		return input.Batch{}, err
	}
	var names []string
	if n := b.names.Names(); n != nil {
		names = append([]string{"label"}, n...)
	}
	return input.NewBatch(names, e), nil
}

// All returns an iterator over the remaining batches. It ends after the
// last batch at end of input; any other error is yielded once, and ends it.
func (b *ClassBatches) All(ctx context.Context) iter.Seq2[input.Batch, error] {
	return func(yield func(input.Batch, error) bool) {
		for {
			batch, err := b.Next(ctx)
			if errors.Is(err, io.EOF) {
				return
			}
			if !yield(batch, err) || err != nil {
				return
			}
		}
	}
}

// category draws a class from probs.
func (b *ClassBatches) category() int {
	u := b.rng.float64()
	for i, p := range b.probs {
		if u < p {
			return i
		}
		u -= p
	}
	// Rounding left u just above the last class's share; give it to the
	// last class with a non-zero probability.
	for i := len(b.probs) - 1; i > 0; i-- {
		if b.probs[i] > 0 {
			return i
		}
	}
	return 0
}
