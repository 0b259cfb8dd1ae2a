package input

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"

	"github.com/sluiceml/sluice/coord"
	"github.com/sluiceml/sluice/internal/stagehook"
	"github.com/sluiceml/sluice/internal/stagequeue"
	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tensor"
)

// A KeepStep is a Step that also says whether to keep what it produced,
// for the Maybe batchers (TensorFlow's keep_input). keep is a Bool scalar,
// which keeps or drops the whole element, or, with EnqueueMany, a Bool
// vector with one flag per example. Any other keep, the zero Tensor
// included, fails the stage with an error wrapping ErrKeepInput.
type KeepStep func(ctx context.Context) (e queue.Element, keep tensor.Tensor, err error)

// alwaysKeep adapts a Step to a KeepStep that keeps everything. A nil Step
// stays nil, for checkBatchArgs to refuse.
func alwaysKeep(s Step) KeepStep {
	if s == nil {
		return nil
	}
	return func(ctx context.Context) (queue.Element, tensor.Tensor, error) {
		e, err := s(ctx)
		return e, keepTrue, err
	}
}

// keepTrue is the keep flag of alwaysKeep, shared: no one writes it.
var keepTrue = tensor.Scalar(true)

// Batches is the output of a batching stage: the batches, in the order the
// stage's queue gives them.
type Batches struct {
	p            *Pipeline
	q            *stagequeue.Lazy
	batchSize    int
	allowSmaller bool
	sparse       []int            // components holding sparse handles
	stage        *stagehook.Stage // its part in checkpoints
}

// Queue returns the stage's queue, for its size and metrics.
func (b *Batches) Queue() queue.Queue { return b.q }

// Next returns the next batch. At end of input it returns an error for
// which errors.Is(err, io.EOF) holds. If the pipeline stopped because a
// stage failed, Next returns that stage's error instead, so the consumer
// learns why its input ended.
func (b *Batches) Next(ctx context.Context) (Batch, error) {
	return b.NextInto(ctx, Batch{})
}

// NextInto is Next writing the batch's values into dst's tensors, a batch
// Next or NextInto returned before, when they have the batch's types and
// shapes (a short last batch is new; a DynamicPad batch, whose shape
// changes, is written over dst's memory when it has room), so that a
// consumer done with each batch before asking for the next allocates no
// batch per step. It returns the batch, which shares dst's memory: dst's
// values are overwritten.
func (b *Batches) NextInto(ctx context.Context, dst Batch) (Batch, error) {
	if b.stage != nil {
		err := b.stage.Replay(ctx, func(ctx context.Context, _ json.RawMessage) error {
			_, err := b.next(ctx, Batch{})
			return err
		})
		if err != nil {
			return Batch{}, fmt.Errorf("input: %w", err)
		}
	}
	batch, err := b.next(ctx, dst)
	if err == nil && b.stage != nil {
		b.stage.Taken(ctx)
	}
	return batch, err
}

// next is NextInto without the checkpoint's bookkeeping.
func (b *Batches) next(ctx context.Context, dst Batch) (Batch, error) {
	var (
		e   queue.Element
		err error
	)
	if b.allowSmaller {
		e, err = b.q.DequeueUpToInto(ctx, b.batchSize, dst.element)
	} else {
		e, err = b.q.DequeueManyInto(ctx, b.batchSize, dst.element)
	}
	if err != nil {
		if isEOF(err) {
			if perr := b.p.coord.Err(); perr != nil {
				return Batch{}, perr
			}
		}
		return Batch{}, err
	}
	batch := Batch{names: b.q.Names(), element: e}
	for _, c := range b.sparse {
		parts, err := b.p.sparse.take(e[c].Int64s())
		if err != nil {
			return Batch{}, err
		}
		joined, err := tensor.StackSparse(parts)
		if err != nil {
			return Batch{}, fmt.Errorf("input: sparse component %q: %w", b.q.Names()[c], err)
		}
		if batch.sparse == nil {
			batch.sparse = make(map[string]tensor.Sparse)
		}
		batch.sparse[b.q.Names()[c]] = joined
	}
	return batch, nil
}

// All returns an iterator over the remaining batches. It ends after the
// last batch at end of input; any other error is yielded once, and ends it.
func (b *Batches) All(ctx context.Context) iter.Seq2[Batch, error] {
	return func(yield func(Batch, error) bool) {
		for {
			batch, err := b.Next(ctx)
			if isEOF(err) {
				return
			}
			if !yield(batch, err) || err != nil {
				return
			}
		}
	}
}

// batchKind selects the queue a batcher collects examples in.
type batchKind int

const (
	fifoBatch batchKind = iota
	shuffleBatch
)

// Batch collects the elements step produces into batches of batchSize,
// in order (TensorFlow's tf.train.batch). With Threads(n), n goroutines
// run step; with DynamicPad, examples may differ in size and each batch is
// padded to its largest; with AllowSmallerFinalBatch, the examples left at
// end of input form a last, smaller batch.
func (p *Pipeline) Batch(step Step, batchSize int, opts ...BatchOption) *Batches {
	cfg, err := batchConfig("batch", true, opts)
	return p.batch("batch", fifoBatch, []KeepStep{alwaysKeep(step)}, true, batchSize, cfg, err)
}

// MaybeBatch is Batch that keeps only the elements step says to keep
// (TensorFlow's maybe_batch).
func (p *Pipeline) MaybeBatch(step KeepStep, batchSize int, opts ...BatchOption) *Batches {
	cfg, err := batchConfig("maybe_batch", true, opts)
	return p.batch("maybe_batch", fifoBatch, []KeepStep{step}, true, batchSize, cfg, err)
}

// BatchJoin batches the elements of several steps, one goroutine each
// (TensorFlow's batch_join): typically one reader per step, for parallel
// reading. The elements of each step keep their order; the stage's input
// ends only when every step's input has ended.
func (p *Pipeline) BatchJoin(steps []Step, batchSize int, opts ...BatchOption) *Batches {
	cfg, err := batchConfig("batch_join", false, opts)
	return p.batch("batch_join", fifoBatch, keepAll(steps), false, batchSize, cfg, err)
}

// MaybeBatchJoin is BatchJoin with keep flags (TensorFlow's
// maybe_batch_join).
func (p *Pipeline) MaybeBatchJoin(steps []KeepStep, batchSize int, opts ...BatchOption) *Batches {
	cfg, err := batchConfig("maybe_batch_join", false, opts)
	return p.batch("maybe_batch_join", fifoBatch, steps, false, batchSize, cfg, err)
}

// ShuffleBatch collects elements in a RandomShuffle queue and draws
// batches from it at random (TensorFlow's shuffle_batch). The queue keeps
// at least MinAfterDequeue elements after each batch while the input lasts,
// for mixing; Capacity must exceed it.
func (p *Pipeline) ShuffleBatch(step Step, batchSize int, opts ...ShuffleBatchOption) *Batches {
	cfg, err := shuffleBatchConfig("shuffle_batch", true, opts)
	return p.batch("shuffle_batch", shuffleBatch, []KeepStep{alwaysKeep(step)}, true, batchSize, cfg, err)
}

// MaybeShuffleBatch is ShuffleBatch with keep flags.
func (p *Pipeline) MaybeShuffleBatch(step KeepStep, batchSize int, opts ...ShuffleBatchOption) *Batches {
	cfg, err := shuffleBatchConfig("maybe_shuffle_batch", true, opts)
	return p.batch("maybe_shuffle_batch", shuffleBatch, []KeepStep{step}, true, batchSize, cfg, err)
}

// ShuffleBatchJoin is ShuffleBatch over several steps, one goroutine each
// (TensorFlow's shuffle_batch_join): the seed guide's way to read several
// files at once and mix their examples.
func (p *Pipeline) ShuffleBatchJoin(steps []Step, batchSize int, opts ...ShuffleBatchOption) *Batches {
	cfg, err := shuffleBatchConfig("shuffle_batch_join", false, opts)
	return p.batch("shuffle_batch_join", shuffleBatch, keepAll(steps), false, batchSize, cfg, err)
}

// MaybeShuffleBatchJoin is ShuffleBatchJoin with keep flags.
func (p *Pipeline) MaybeShuffleBatchJoin(steps []KeepStep, batchSize int, opts ...ShuffleBatchOption) *Batches {
	cfg, err := shuffleBatchConfig("maybe_shuffle_batch_join", false, opts)
	return p.batch("maybe_shuffle_batch_join", shuffleBatch, steps, false, batchSize, cfg, err)
}

func keepAll(steps []Step) []KeepStep {
	out := make([]KeepStep, len(steps))
	for i, s := range steps {
		out[i] = alwaysKeep(s)
	}
	return out
}

// batch builds every batching stage, configured by cfg, or failed with
// err, the error of its options. threaded says whether Threads copies of
// the single step run (batch) or one goroutine per step (join).
func (p *Pipeline) batch(stage string, kind batchKind, steps []KeepStep, threaded bool, batchSize int, cfg *stageConfig, err error) *Batches {
	if err == nil {
		err = checkBatchArgs(stage, kind, steps, batchSize, cfg)
	}
	queueKind := map[batchKind]string{fifoBatch: "FIFOQueue", shuffleBatch: "RandomShuffleQueue"}[kind]
	if cfg != nil && cfg.dynamicPad {
		queueKind = "PaddingFIFOQueue"
	}
	name := stage
	capacity := 32
	var names []string
	if cfg != nil {
		if cfg.name != "" {
			name = cfg.name
		}
		capacity, names = cfg.capacity, cfg.names
	}
	if err != nil {
		p.fail(err)
		sq := stagequeue.NewLazy(queueKind, name, capacity, names, nil)
		sq.CloseNow(context.Background())
		return &Batches{p: p, q: sq, batchSize: max(batchSize, 1)}
	}

	var seed uint64
	if kind == shuffleBatch {
		seed = p.opSeed(cfg.seed)
	}
	sn := newStageNames(stage, names)
	var bin *recycleBin
	var free func([]queue.Element)
	if cfg.recycle {
		bin = newRecycleBin(capacity, batchSize)
		free = bin.put
		p.addBin(bin)
	}
	create := func(first queue.Element) (queue.Queue, error) {
		names := sn.names()
		spec, err := elementSpec(stage, first, cfg.enqueueMany, cfg.dynamicPad, names)
		if err != nil {
			return nil, fmt.Errorf("input: %s: %w", stage, err)
		}
		if bin != nil {
			bin.setSpare(spec)
		}
		return newQueue(queueSpec{
			kind: queueKind, name: name, capacity: capacity, minAfterDequeue: cfg.minAfterDequeue,
			seed: seed, dtypes: spec.dtypes, shapes: spec.shapes, names: names, deterministic: p.deterministic,
			free: free,
		})
	}
	sq := stagequeue.NewLazy(queueKind, name, capacity, names, create)
	p.addQueue(sq, kind == shuffleBatch, cfg.minAfterDequeue)

	var sparse []int
	for _, name := range cfg.sparse {
		i := slices.Index(names, name)
		if i < 0 {
			p.fail(fmt.Errorf("input: %s: sparse component %q is not among the names %q", stage, name, names))
			continue
		}
		sparse = append(sparse, i)
	}
	env := &stepEnv{q: sq, many: cfg.enqueueMany, sn: sn, bin: bin,
		keeps: strings.HasPrefix(stage, "maybe_"), table: &p.sparse, sparse: sparse}
	var runSteps []coord.Step
	var stepNames []string
	if threaded {
		for i := range cfg.threads {
			runSteps = append(runSteps, enqueueStep(steps[0], env))
			stepNames = append(stepNames, fmt.Sprintf("enqueue%d", i))
		}
	} else {
		for i, s := range steps {
			runSteps = append(runSteps, enqueueStep(s, env))
			stepNames = append(stepNames, fmt.Sprintf("enqueue%d", i))
		}
	}
	r, err := coord.NewQueueRunner(sq, runSteps, p.runnerOptions(coord.StepNames(stepNames...))...)
	if err != nil {
		p.fail(err)
	} else {
		p.addRunner(r)
	}
	out := &Batches{p: p, q: sq, batchSize: batchSize, allowSmaller: cfg.allowSmaller, sparse: sparse,
		stage: &stagehook.Stage{Desc: fmt.Sprintf("%s %q: batch size %d, %d steps, %s", stage, name, batchSize, len(steps), cfg.describe())}}
	p.addStage(out.stage)
	return out
}

func checkBatchArgs(stage string, kind batchKind, steps []KeepStep, batchSize int, cfg *stageConfig) error {
	if len(steps) == 0 {
		if strings.HasSuffix(stage, "_join") {
			// BJ-03: TensorFlow's _validate_join.
			return fmt.Errorf("input: %s: Expected at least one set of tensors", stage)
		}
		return fmt.Errorf("input: Expected at least one tensor in %s().", stage)
	}
	for i, s := range steps {
		if s == nil {
			return fmt.Errorf("input: %s: step %d is nil", stage, i)
		}
	}
	if batchSize <= 0 {
		return fmt.Errorf("input: %s: batch_size must be positive, not %d", stage, batchSize)
	}
	if kind == shuffleBatch && cfg.capacity <= cfg.minAfterDequeue {
		return fmt.Errorf("input: capacity %d must be bigger than min_after_dequeue %d.", cfg.capacity, cfg.minAfterDequeue)
	}
	if cfg.recycle && cfg.enqueueMany {
		return fmt.Errorf("input: %s: Recycle does not apply with EnqueueMany, whose elements share a batch's memory", stage)
	}
	if cfg.minAfterDequeue < 0 {
		return fmt.Errorf("input: min_after_dequeue must be >= 0, not %d", cfg.minAfterDequeue)
	}
	return nil
}

// stepEnv is what the enqueue steps of a batching stage share.
type stepEnv struct {
	q     queue.Queue
	many  bool // EnqueueMany
	sn    *stageNames
	bin   *recycleBin // the elements the stage recycles (Recycle), or nil
	keeps bool        // a Maybe batcher: the steps' keep flags are read
	// table holds the sparse tensors whose handles are the components
	// sparse (SparseComponents).
	table  *sparseTable
	sparse []int
}

// enqueueStep is the queue runner's unit of work for one source: produce
// one element, put its components in the stage's order, apply its keep
// flags, enqueue what is kept. One goroutine runs it.
func enqueueStep(src KeepStep, env *stepEnv) coord.Step {
	q, many, sn, bin := env.q, env.many, env.sn, env.bin
	var (
		d       declaration
		o       order
		parent  context.Context
		withDec context.Context
		rec     *stepRecycler
	)
	return func(ctx context.Context) error {
		if ctx != parent { // the runner passes the same context every time
			parent, withDec = ctx, context.WithValue(ctx, declarationKey{}, &d)
			if bin != nil {
				rec = &stepRecycler{bin: bin, o: &o}
				withDec = context.WithValue(withDec, recycledKey{}, rec)
			}
		}
		d = declaration{}
		e, keep, err := src(withDec)
		if err != nil {
			return err
		}
		e, err = sn.arrange(e, d.names, d.declared, &o)
		if err != nil {
			return err
		}
		if rec != nil {
			rec.arranged = true
		}
		if env.keeps {
			if !keep.IsValid() {
				// TensorFlow refuses keep_input=None; keeping everything
				// would hide a step that forgot to set its flag.
				return fmt.Errorf("input: %s: %w: the step returned no keep flag (the zero Tensor)", sn.stage, ErrKeepInput)
			}
			kept, err := applyKeep(e, keep, many)
			if err != nil {
				return fmt.Errorf("input: %s: %w", sn.stage, err)
			}
			if len(env.sparse) > 0 {
				env.table.drop(droppedHandles(e, keep, env.sparse))
			}
			if kept == nil {
				return nil
			}
			e = kept
		}
		if many {
			return q.EnqueueMany(ctx, e)
		}
		return q.Enqueue(ctx, e)
	}
}

// droppedHandles returns the sparse handles in components sparse of e
// that keep, which applyKeep accepted for e, drops: TensorFlow stores only
// the sparse tensors of kept examples (_store_sparse_tensors with
// keep_input), and a step here stores them before it says which it keeps,
// so the others are taken out of the table again.
func droppedHandles(e queue.Element, keep tensor.Tensor, sparse []int) []int64 {
	var out []int64
	flags := keep.Bools()
	for _, c := range sparse {
		t := e[c]
		if t.DType() != tensor.Int64 {
			continue // not handles: the batcher reports it
		}
		hs := t.Int64s()
		switch {
		case keep.Rank() == 0:
			if !flags[0] {
				out = append(out, hs...)
			}
		case len(hs) == len(flags):
			for i, k := range flags {
				if !k {
					out = append(out, hs[i])
				}
			}
		}
	}
	return out
}

// ErrKeepInput is wrapped by the errors of a keep flag of the wrong shape.
var ErrKeepInput = errors.New("invalid keep_input")

// applyKeep filters e by keep as TensorFlow's maybe_* batchers do. It
// returns nil when nothing is kept.
func applyKeep(e queue.Element, keep tensor.Tensor, many bool) (queue.Element, error) {
	if keep.DType() != tensor.Bool {
		return nil, fmt.Errorf("%w: `keep_input` must be bool, not %v", ErrKeepInput, keep.DType())
	}
	switch keep.Rank() {
	case 0:
		if keep.Bools()[0] {
			return e, nil
		}
		return nil, nil
	case 1:
		if !many {
			return nil, fmt.Errorf("%w: `keep_input` cannot be a vector when `enqueue_many=False`.", ErrKeepInput)
		}
	default:
		return nil, fmt.Errorf("%w: `keep_input` must be 0 or 1 dimensions.", ErrKeepInput)
	}
	flags := keep.Bools()
	var rows []int
	for i, k := range flags {
		if k {
			rows = append(rows, i)
		}
	}
	out := make(queue.Element, len(e))
	for c, t := range e {
		if t.Rank() == 0 || t.Len() != len(flags) {
			return nil, fmt.Errorf("%w: data.shape must start with partitions.shape, got data.shape = %v, partitions.shape = [%d] (the keep flags and component %d)",
				ErrKeepInput, t.Shape(), len(flags), c)
		}
		g, err := gatherRows(t, rows)
		if err != nil {
			return nil, err
		}
		out[c] = g
	}
	return out, nil
}
