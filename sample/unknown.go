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

// DefaultClassCapacity is the capacity of each of
// StratifiedSampleUnknownDist's per-class queues (TensorFlow's
// queue_capacity).
const DefaultClassCapacity = 16

// ClassBatches is the output of StratifiedSampleUnknownDist.
type ClassBatches struct {
	p         *input.Pipeline
	classes   []*stagequeue.Lazy
	probs     []float64
	batchSize int
	rng       *lockedRand
	names     stagehook.Namer
	err       error            // a build error
	ck        *stagehook.Stage // its part in checkpoints
}

// StratifiedSampleUnknownDist delivers batches of batchSize whose class
// counts are drawn from Multinomial(batchSize, probs) (TensorFlow's
// stratified_sample_unknown_dist, SU-02): the examples step returns go to
// one queue per class (capacity ClassCapacity), and each batch takes its
// counts from them and joins them in class order, so labels do not
// decrease within a batch. It needs no knowledge of the input's class
// proportions, but it discards nothing: a class the input seldom has holds
// every batch up, and examples of a class that is seldom drawn fill its
// queue and block the step until that class is drawn (as in TensorFlow;
// ClassCapacity sets the slack). Each batch's first component, "label",
// holds the classes as int64; the step's components follow.
func StratifiedSampleUnknownDist(p *input.Pipeline, step LabelStep, probs []float64, batchSize int, opts ...Option) *ClassBatches {
	c := newConfig(opts)
	b := &ClassBatches{p: p, probs: probs, batchSize: batchSize, rng: newLockedRand(stagehook.Of(p).Seed(c.seed))}
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
	for i := range probs {
		qname := fmt.Sprintf("%s/class_%d", name, i)
		b.classes = append(b.classes, stagequeue.NewLazy("FIFOQueue", qname, c.classCapacity, nil, func(first queue.Element) (queue.Queue, error) {
			dtypes := make([]tensor.DType, len(first))
			shapes := make([]tensor.Shape, len(first))
			for j, t := range first {
				dtypes[j], shapes[j] = t.DType(), t.Shape()
			}
			return queue.NewFIFO(c.classCapacity, dtypes, queue.Shapes(shapes...), queue.Name(qname))
		}))
		stagehook.Of(p).TrackQueue(b.classes[i], 0)
	}
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
		return b.classes[l].Enqueue(ctx, e)
	}
	steps := make([]coord.Step, c.threads)
	for i := range steps {
		steps[i] = feed
	}
	qs := make([]queue.Queue, len(b.classes))
	for i, q := range b.classes {
		qs[i] = q
	}
	var ropts []coord.RunnerOption
	if stagehook.Of(p).Deterministic() {
		// The examples reach their class queues in the order of the steps'
		// turns; each queue is FIFO and the consumer's draws are seeded,
		// so the batches are too. (A full class queue then holds up every
		// thread, as it holds up the one thread of Threads(1).)
		ropts = append(ropts, coord.InTurn())
	}
	r, err := coord.NewQueueRunner(stagequeue.NewGroup(name+"/class_queues", qs...), steps, ropts...)
	if err != nil {
		b.err = err
		stagehook.Of(p).Fail(err)
		return b
	}
	p.AddQueueRunner(r)
	return b
}

// Next returns the next batch; at end of input, an error wrapping io.EOF.
// If the pipeline stopped because a stage failed, Next returns that
// stage's error. A batch takes from the class queues one after another:
// if ctx ends or the input runs out part way, the examples already taken
// for the batch are dropped, as TensorFlow drops a partial batch.
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
	counts := make([]int, len(b.probs))
	for range b.batchSize {
		counts[b.category()]++
	}
	var parts []queue.Element
	var labels []int64
	for i, n := range counts {
		if n == 0 {
			continue
		}
		e, err := b.classes[i].DequeueMany(ctx, n)
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, queue.ErrCancelled) {
				if perr := b.p.Coordinator().Err(); perr != nil {
					return input.Batch{}, perr
				}
			}
			return input.Batch{}, err
		}
		parts = append(parts, e)
		for range n {
			labels = append(labels, int64(i))
		}
	}
	out := queue.Element{tensor.New(labels)}
	for j := range parts[0] {
		col := make([]tensor.Tensor, len(parts))
		for k, part := range parts {
			col[k] = part[j]
		}
		t, err := tensor.Concat(col)
		if err != nil {
			return input.Batch{}, err
		}
		out = append(out, t)
	}
	var names []string
	if n := b.names.Names(); n != nil {
		names = append([]string{"label"}, n...)
	}
	return input.NewBatch(names, out), nil
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
