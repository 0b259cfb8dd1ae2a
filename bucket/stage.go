package bucket

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/sluiceml/sluice/coord"
	"github.com/sluiceml/sluice/input"
	"github.com/sluiceml/sluice/internal/stagehook"
	"github.com/sluiceml/sluice/internal/stagequeue"
	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tensor"
)

// A routeFunc produces one example and the bucket it belongs in; keep
// false drops it. It is what Bucket and BySequenceLength make of the
// caller's step, one for each goroutine that runs it (newRoute), so that
// what a call needs besides the example is made once.
type routeFunc func(ctx context.Context) (id int, e queue.Element, keep bool, err error)

// A stage is the machinery Bucket and BySequenceLength share, laid out as
// TensorFlow lays it out (BK-01): Threads goroutines run the step and
// enqueue each example into its bucket's queue; one mover per bucket
// takes a batch from its queue and pushes it, with the bucket id, onto
// the top queue; Next dequeues from the top queue. A batch therefore
// always comes from one bucket (BK-07).
//
// The goroutines are two queue runners on the pipeline. The input runner
// closes every bucket queue when the step's input ends; each mover then
// drains its queue and ends, and the mover runner closes the top queue
// after the last one, so Next reports end of input after the last batch.
// A stop closes all the queues with CloseNow.
type stage struct {
	p          *input.Pipeline
	name       string
	cfg        *config
	newRoute   func() routeFunc
	batchSizes []int
	ids        []tensor.Tensor // bucket i's id, pushed with its batches
	lead       int             // components the stage puts before the step's (the length)
	buckets    []*stagequeue.Lazy
	top        *stagequeue.Lazy
	err        error // the build error, returned by next

	ready   atomic.Bool // the real queues exist
	initMu  sync.Mutex
	initErr error

	// In a deterministic pipeline the enqueue steps take turns and move
	// each batch to the top queue as soon as its bucket fills, instead of
	// a mover per bucket racing the others; what the buckets hold at the
	// end of input is moved once inputDone is closed, bucket by bucket.
	deterministic bool
	inputDone     chan struct{}

	ck *stagehook.Stage // the stage's part in checkpoints

	pool *batchPool // batches handed back, for the movers (NextInto)
	bin  *elemBin   // BySequenceLength's: the elements handed back by the bucket queues; nil for Bucket
}

// callNamed runs step and returns its example with the components in the
// stage's order (see Names and input.Named).
func callNamed[K any, S ~func(context.Context) (K, queue.Element, error)](ctx context.Context, c stagehook.StepCaller, step S) (K, queue.Element, error) {
	k, e, err := step(c.Context(ctx))
	if err == nil {
		e, err = c.Arrange(e)
	}
	return k, e, err
}

// MaxBuckets is the most buckets a stage takes. TensorFlow sets no bound,
// but each bucket is a queue and a batch in the making: a count beyond
// any use (a mistaken argument) is an error wrapping ErrInvalidArgument
// rather than an allocation that ends the process.
const MaxBuckets = 1 << 20

// newStage validates the arguments and builds the stage on p. A build
// error is recorded on p and kept in the stage, whose next returns it.
// what names the stage and the options newStage does not see, for
// checkpoints.
//
// bin, if not nil, is where the bucket queues give back the elements the
// routes made, once copied into a batch.
func newStage(p *input.Pipeline, name, what string, cfg *config, numBuckets int, batchSizes []int, lead int, newRoute func() routeFunc, bin *elemBin) *stage {
	// No buckets until their count is checked: a pool for 2^40 ended the
	// process before the count was (audit 114).
	s := &stage{p: p, name: name, cfg: cfg, newRoute: newRoute, lead: lead, bin: bin, pool: newBatchPool(0, cfg.capacity)}
	s.ck = &stagehook.Stage{Desc: fmt.Sprintf("%s: %d buckets, batch sizes %v, capacity %d, capacities %v, threads %d, dynamic_pad %t, allow_smaller_final_batch %t, keep_input %t, names %q",
		what, numBuckets, batchSizes, cfg.capacity, cfg.capacities, cfg.numThreads, cfg.dynamicPad, cfg.allowSmaller, cfg.keep != nil, cfg.names)}
	stagehook.Of(p).AddStage(s.ck)
	s.top = stagequeue.NewLazy("PaddingFIFOQueue", name+"/top_queue", cfg.capacity, nil, nil)
	sizes, caps, err := checkArgs(numBuckets, batchSizes, cfg)
	if err == nil && newRoute == nil {
		err = invalidf("bucket: stage %q: no step", name)
	}
	s.deterministic = stagehook.Of(p).Deterministic()
	if err != nil {
		s.fail(err)
		return s
	}
	s.pool = newBatchPool(numBuckets, cfg.capacity)
	s.batchSizes = sizes
	if bin != nil {
		for i := range sizes {
			bin.max += caps[i] + sizes[i]
		}
	}
	kind := "FIFOQueue"
	if cfg.dynamicPad {
		kind = "PaddingFIFOQueue"
	}
	for i := range numBuckets {
		c := caps[i]
		if s.deterministic {
			// No mover takes batches out as examples come: the step
			// that fills a bucket moves its batch, so a bucket must hold
			// one (with a smaller capacity the enqueue would wait for
			// good). TensorFlow's mover drains a smaller bucket as it
			// fills.
			c = max(c, sizes[i])
		}
		s.buckets = append(s.buckets, stagequeue.NewLazy(kind, fmt.Sprintf("%s/bucket_queue_%d", name, i), c, nil, nil))
		s.ids = append(s.ids, tensor.Scalar(int32(i)))
	}

	enqueues := make([]coord.Step, cfg.numThreads)
	names := make([]string, cfg.numThreads)
	for i := range enqueues {
		route := newRoute()
		enqueues[i] = func(ctx context.Context) error { return s.enqueue(ctx, route) }
		names[i] = fmt.Sprintf("enqueue%d", i)
	}
	// The runner's goroutines enqueue into any bucket, so the end of their
	// input must close every bucket queue. (TensorFlow's input runner
	// closes the top queue instead, which loses what the buckets still
	// hold; see the package documentation.)
	bucketQueues := make([]queue.Queue, numBuckets)
	for i, b := range s.buckets {
		bucketQueues[i] = b
	}
	var group coord.Closer = stagequeue.NewGroup(name+"/bucket_queues", bucketQueues...)
	var inOpts []coord.RunnerOption
	if s.deterministic {
		s.inputDone = make(chan struct{})
		group = &signalDone{Closer: group, done: s.inputDone}
		inOpts = append(inOpts, coord.InTurn())
	}
	in, err := coord.NewQueueRunner(group, enqueues, append(inOpts, coord.StepNames(names...))...)
	if err != nil {
		s.fail(err)
		return s
	}
	movers := make([]coord.Step, numBuckets)
	names = make([]string, numBuckets)
	for i := range movers {
		movers[i] = s.move(i)
		names[i] = fmt.Sprintf("enqueue_from_bucket_%d", i)
	}
	if s.deterministic {
		movers, names = []coord.Step{s.flush}, []string{"flush_buckets"}
	}
	out, err := coord.NewQueueRunner(s.top, movers, coord.StepNames(names...))
	if err != nil {
		s.fail(err)
		return s
	}
	p.AddQueueRunner(in)
	p.AddQueueRunner(out)
	for _, q := range s.buckets {
		stagehook.Of(p).TrackQueue(q, 0)
	}
	stagehook.Of(p).TrackQueue(s.top, 0)
	return s
}

func (s *stage) fail(err error) {
	s.err = err
	stagehook.Of(s.p).Fail(err)
	s.top.CloseNow(context.Background())
}

// checkArgs checks the arguments TensorFlow's bucket checks (BK-02), and
// those Go adds, and returns the batch size and capacity of each bucket.
func checkArgs(numBuckets int, batchSizes []int, cfg *config) (sizes, caps []int, err error) {
	if cfg.boundsErr != nil {
		return nil, nil, cfg.boundsErr
	}
	if numBuckets <= 0 {
		return nil, nil, invalidf("bucket: num_buckets must be positive, not %d", numBuckets)
	}
	if numBuckets > MaxBuckets {
		return nil, nil, invalidf("bucket: num_buckets %d is more than %d: each bucket is a queue", numBuckets, MaxBuckets)
	}
	switch len(batchSizes) {
	case 1:
		for range numBuckets {
			sizes = append(sizes, batchSizes[0])
		}
	case numBuckets:
		sizes = batchSizes
	default:
		return nil, nil, invalidf("bucket: If batch_size is a list it must have num_buckets elements")
	}
	caps = cfg.capacities
	if caps == nil {
		for range numBuckets {
			caps = append(caps, cfg.capacity)
		}
	}
	if len(caps) != numBuckets {
		return nil, nil, invalidf("bucket: The list bucket_capacities (%s) must have exactly num_buckets (%d) elements.", pyList(caps), numBuckets)
	}
	if cfg.err != nil {
		return nil, nil, cfg.err
	}
	for _, n := range sizes {
		if n <= 0 {
			return nil, nil, invalidf("bucket: batch_size must be positive, not %d", n)
		}
	}
	return append([]int{}, sizes...), caps, nil
}

// pyList formats ints as Python prints a list, for TensorFlow's messages.
func pyList(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = fmt.Sprint(n)
	}
	return "[" + strings.Join(s, ", ") + "]"
}

// enqueue is the input runner's step: one example into its bucket.
func (s *stage) enqueue(ctx context.Context, route routeFunc) error {
	id, e, keep, err := route(ctx)
	if err != nil || !keep {
		return err
	}
	if id < 0 || id >= len(s.buckets) {
		return rangeError(s.name, id, len(s.buckets))
	}
	if err := s.init(e); err != nil {
		return err
	}
	if err := s.buckets[id].Enqueue(ctx, e); err != nil {
		return err
	}
	if s.deterministic && s.buckets[id].Size() >= s.batchSizes[id] {
		return s.moveBatch(ctx, id, false)
	}
	return nil
}

// moveBatch moves one batch of bucket i to the top queue: a full one, or
// with upTo, what is left at the end of input. The batch is assembled in
// the top queue's element, the bucket id and then the batch, over the
// memory of a batch of the bucket that a consumer handed back, if any.
func (s *stage) moveBatch(ctx context.Context, i int, upTo bool) error {
	bq := s.buckets[i]
	e := s.pool.take(i)
	if e == nil {
		e = make(queue.Element, 1+len(bq.DTypes()))
		e[0] = s.ids[i]
	}
	var b queue.Element
	var err error
	if upTo {
		b, err = bq.DequeueUpToInto(ctx, s.batchSizes[i], e[1:])
	} else {
		b, err = bq.DequeueManyInto(ctx, s.batchSizes[i], e[1:])
	}
	if err != nil {
		s.pool.put(e)
		return err
	}
	if len(b) != len(e)-1 {
		// A mover's first batch may have been asked for before the first
		// example made the queues, whose components were then unknown:
		// the queue made the batch, and the element is made around it.
		e = append(queue.Element{s.ids[i]}, b...)
	}
	copy(e[1:], b) // the batch is e[1:] already, unless the queue made its own
	return s.top.Enqueue(ctx, e)
}

// flush is the deterministic stage's one mover: once the input has ended,
// it moves what each bucket holds, bucket after bucket (with
// AllowSmallerFinalBatch; without, the remainders are dropped, as the
// movers drop them), and then ends.
func (s *stage) flush(ctx context.Context) error {
	select {
	case <-s.inputDone:
	case <-ctx.Done():
		return ctx.Err()
	}
	if s.cfg.allowSmaller {
		for i := range s.buckets {
			for {
				err := s.moveBatch(ctx, i, true)
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					return err
				}
			}
		}
	}
	return io.EOF
}

// signalDone is a Closer for the enqueue runner: closing its buckets at
// the end of input also tells flush that the input has ended.
type signalDone struct {
	coord.Closer
	done chan struct{}
	once sync.Once
}

func (c *signalDone) Close(ctx context.Context) error {
	err := c.Closer.Close(ctx)
	c.once.Do(func() { close(c.done) })
	return err
}

// move returns bucket i's mover: it takes a full batch (or, at end of
// input with AllowSmallerFinalBatch, what is left) and pushes it onto the
// top queue behind the bucket id. The bucket queue's end of input ends
// it cleanly.
func (s *stage) move(i int) coord.Step {
	return func(ctx context.Context) error { return s.moveBatch(ctx, i, s.cfg.allowSmaller) }
}

// init makes the real queues from the first example: its component types,
// and its shapes, or with DynamicPad only its ranks. The top queue holds
// the bucket id and whole batches, whose sizes differ, so it is a
// PaddingFIFO with every dimension unknown, as TensorFlow's (it is only
// ever dequeued one batch at a time, so it never pads).
func (s *stage) init(first queue.Element) error {
	if s.ready.Load() {
		return nil
	}
	s.initMu.Lock()
	defer s.initMu.Unlock()
	if s.ready.Load() || s.initErr != nil {
		return s.initErr
	}
	s.initErr = s.makeQueues(first)
	if s.initErr == nil {
		s.ready.Store(true)
	}
	return s.initErr
}

func (s *stage) makeQueues(first queue.Element) error {
	if len(first) == 0 {
		return invalidf("bucket: Expected at least one tensor in bucket().")
	}
	if names := s.cfg.namer.Names(); names != nil && len(names) != len(first)-s.lead {
		return invalidf("bucket: stage %q: %d names for %d components", s.name, len(names), len(first)-s.lead)
	}
	dtypes := make([]tensor.DType, len(first))
	shapes := make([]tensor.Shape, len(first))
	topShapes := []tensor.Shape{{}}
	for i, t := range first {
		if !t.IsValid() {
			return invalidf("bucket: stage %q: component %d is not a tensor", s.name, i)
		}
		dtypes[i] = t.DType()
		shapes[i] = t.Shape().Clone()
		if s.cfg.dynamicPad {
			shapes[i] = unknownShape(t.Rank())
		}
		topShapes = append(topShapes, unknownShape(t.Rank()+1))
	}
	bucketQueues := make([]queue.Queue, len(s.buckets))
	for i, l := range s.buckets {
		var err error
		opts := []queue.Option{queue.Name(l.Name())}
		if s.bin != nil {
			opts = append(opts, queue.Recycle(s.bin.put))
		}
		if s.cfg.dynamicPad {
			bucketQueues[i], err = queue.NewPaddingFIFO(l.Capacity(), dtypes, shapes, opts...)
		} else {
			bucketQueues[i], err = queue.NewFIFO(l.Capacity(), dtypes, append(opts, queue.Shapes(shapes...))...)
		}
		if err != nil {
			return fmt.Errorf("bucket: stage %q: %w", s.name, err)
		}
	}
	top, err := queue.NewPaddingFIFO(s.top.Capacity(), append([]tensor.DType{tensor.Int32}, dtypes...), topShapes,
		queue.Name(s.top.Name()))
	if err != nil {
		return fmt.Errorf("bucket: stage %q: %w", s.name, err)
	}
	for i, l := range s.buckets {
		l.Set(bucketQueues[i])
	}
	s.top.Set(top)
	return nil
}

func unknownShape(rank int) tensor.Shape {
	s := make(tensor.Shape, rank)
	for i := range s {
		s[i] = tensor.Unknown
	}
	return s
}

// next returns the top queue's next element: the bucket id, then the
// batch's components (the stage's leading ones first). At end of input it
// returns the error that stopped the pipeline, if one did, so the
// consumer learns why its input ended.
func (s *stage) next(ctx context.Context) (queue.Element, error) {
	if s.err != nil {
		return nil, s.err
	}
	err := s.ck.Replay(ctx, func(ctx context.Context, _ json.RawMessage) error {
		e, err := s.top.Dequeue(ctx)
		if err == nil {
			s.pool.put(e) // skipped: nobody holds it
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("bucket: %w", err)
	}
	e, err := s.top.Dequeue(ctx)
	if err == nil {
		s.ck.Taken(ctx)
	}
	if err != nil {
		if errors.Is(err, io.EOF) {
			if perr := s.p.Coordinator().Err(); perr != nil {
				return nil, perr
			}
		}
		return nil, err
	}
	return e, nil
}
