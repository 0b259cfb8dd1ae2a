package input

import (
	"context"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/sluiceml/sluice/coord"
	"github.com/sluiceml/sluice/internal/stagehook"
	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/storage"
	"github.com/sluiceml/sluice/tensor"
)

// StringInputProducer returns a queue of file names (scalar strings) that
// a queue runner fills with names once per epoch, reshuffled each epoch
// unless Shuffle(false) is given (TensorFlow's string_input_producer).
// With NumEpochs(n) the queue is closed after n epochs. Readers take their
// work from the returned queue. names must not be empty.
func (p *Pipeline) StringInputProducer(names []string, opts ...ProducerOption) queue.Queue {
	data := make([][]byte, len(names))
	for i, n := range names {
		data[i] = []byte(n)
	}
	if len(names) == 0 {
		p.fail(fmt.Errorf("input: string_input_producer requires a non-null input tensor"))
	}
	return p.produce("string_input_producer", "input_producer", tensor.New(data), false, opts)
}

// RangeInputProducer returns a queue of the int32 numbers 0..limit-1,
// refilled once per epoch (TensorFlow's range_input_producer). A limit of
// 0 is an empty range: with NumEpochs the queue ends at once, as
// TensorFlow's gives OutOfRange (RIP-01); without, no number ever comes,
// as in TensorFlow. A negative limit is an error, TensorFlow's tf.range's,
// and so is one beyond the int32 numbers, or beyond memory, made before
// a number is.
func (p *Pipeline) RangeInputProducer(limit int, opts ...ProducerOption) queue.Queue {
	switch {
	case limit < 0:
		p.fail(fmt.Errorf("input: range_input_producer: Requires start <= limit when delta > 0: 0/%d", limit))
		limit = 0
	case limit > math.MaxInt32:
		// The numbers are int32, as TensorFlow's: beyond, they would
		// wrap (and 2^36 of them ended the process, audit 114).
		p.fail(fmt.Errorf("input: range_input_producer: limit %d is beyond the int32 numbers: %w", limit, queue.ErrInvalidArgument))
		limit = 0
	}
	if err := tensor.CheckMemory(tensor.Int32, tensor.Shape{limit}); err != nil {
		p.fail(fmt.Errorf("input: range_input_producer: %w", err))
		limit = 0
	}
	data := make([]int32, limit)
	for i := range data {
		data[i] = int32(i)
	}
	return p.produce("range_input_producer", "input_producer", tensor.New(data), false, opts)
}

// InputProducer returns a queue of the rows of t (index 0 of its first
// dimension), all rows once per epoch (TensorFlow's input_producer).
// ElementShape declares the rows' shape, which must match t's.
func (p *Pipeline) InputProducer(t tensor.Tensor, opts ...ProducerOption) queue.Queue {
	return p.produce("input_producer", "input_producer", t, true, opts)
}

// SliceInputProducer returns a step that yields one row of each tensor at
// a time, aligned by index: row i of every tensor together (TensorFlow's
// slice_input_producer, used for preloaded data). A range producer of the
// row indices drives it, so the options are a producer's: NumEpochs,
// Shuffle, Seed, Capacity. The number of rows is that of the first tensor;
// tensors of no rows give no rows, and with NumEpochs end at once, as
// TensorFlow's (SLP-01).
func (p *Pipeline) SliceInputProducer(tensors []tensor.Tensor, opts ...ProducerOption) Step {
	if len(tensors) == 0 {
		p.fail(fmt.Errorf("input: Expected at least one tensor in slice_input_producer()."))
		return func(context.Context) (queue.Element, error) { return nil, io.EOF }
	}
	for i, t := range tensors {
		if t.Rank() == 0 {
			p.fail(fmt.Errorf("input: slice_input_producer: tensor %d is a scalar and has no rows", i))
			return func(context.Context) (queue.Element, error) { return nil, io.EOF }
		}
	}
	rows := tensors[0].Len()
	indices := p.RangeInputProducer(rows, opts...)
	return func(ctx context.Context) (queue.Element, error) {
		e, err := indices.Dequeue(ctx)
		if err != nil {
			return nil, err
		}
		i := int(e[0].Int32s()[0])
		out := make(queue.Element, len(tensors))
		for c, t := range tensors {
			if i >= t.Len() {
				return nil, fmt.Errorf("input: slice_input_producer: indices = %d is not in [0, %d) (tensor %d is shorter than tensor 0)", i, t.Len(), c)
			}
			out[c] = t.Row(i)
		}
		return out, nil
	}
}

// MatchFilenamesOnce returns the sorted names of the files that match
// pattern, local paths or any storage URL (TensorFlow's
// match_filenames_once). The pattern is expanded once, now.
func MatchFilenamesOnce(ctx context.Context, pattern string) ([]string, error) {
	return storage.Glob(ctx, pattern)
}

// produce builds a producer: a FIFO queue of t's rows and a runner whose
// one step enqueues a whole epoch, in order or shuffled.
// elementShape says whether the producer takes ElementShape.
func (p *Pipeline) produce(stage, defaultName string, t tensor.Tensor, elementShape bool, opts []ProducerOption) queue.Queue {
	cfg, err := producerConfig(stage, elementShape, opts)
	name := defaultName
	capacity := 32
	if cfg != nil {
		capacity = cfg.capacity
		if cfg.name != "" {
			name = cfg.name
		}
	}
	if err == nil && (!t.IsValid() || t.Rank() == 0) {
		err = fmt.Errorf("input: %s: Shape () must have rank at least 1: the input is a tensor of rows", stage)
	}
	rowShape := tensor.Shape{}
	dtype := tensor.String
	if t.IsValid() && t.Rank() > 0 {
		rowShape, dtype = t.Shape()[1:].Clone(), t.DType()
	}
	if err == nil && cfg.elementShape != nil && !cfg.elementShape.IsCompatibleWith(rowShape) {
		err = fmt.Errorf("input: %s: Shapes %s and %s are not compatible (the input's rows and element_shape)", stage, pyShape(rowShape), pyShape(cfg.elementShape))
	}
	q, qerr := newQueue(queueSpec{kind: "FIFOQueue", name: name, capacity: capacity,
		dtypes: []tensor.DType{dtype}, shapes: []tensor.Shape{rowShape}})
	if err == nil {
		err = qerr
	}
	if err != nil {
		p.fail(err)
		if q == nil {
			q, _ = newQueue(queueSpec{kind: "FIFOQueue", name: name, capacity: 1,
				dtypes: []tensor.DType{tensor.String}, shapes: []tensor.Shape{{}}})
		}
		q.CloseNow(context.Background())
		return q
	}
	var rngSeed *uint64
	if cfg.shuffle {
		s := p.opSeed(cfg.seed)
		rngSeed = &s
	}
	if cfg.set["Shard"] {
		if t, err = shardRows(t, cfg.shardIndex, cfg.shardCount); err != nil {
			p.fail(fmt.Errorf("input: %s: %w", stage, err))
			q.CloseNow(context.Background())
			return q
		}
	}
	ep := newEpochs(t.Len(), cfg.numEpochs, nil)
	if rngSeed != nil {
		ep.rng = newRand(*rngSeed)
	}
	step := func(ctx context.Context) error {
		order, err := ep.next()
		if err != nil {
			return err
		}
		rows, err := gatherRows(t, order)
		if err != nil {
			return err
		}
		return q.EnqueueMany(ctx, queue.Element{rows})
	}
	p.addStage(producerStage(stage, name, t, cfg))
	r, err := coord.NewQueueRunner(q, []coord.Step{step}, p.runnerOptions(coord.StepNames("enqueue_epoch"))...)
	if err != nil {
		p.fail(err)
		return q
	}
	p.addRunner(r)
	p.addQueue(q, false, 0)
	return q
}

// shardRows returns the rows of t at positions index, index+count, ...
func shardRows(t tensor.Tensor, index, count int) (tensor.Tensor, error) {
	switch {
	case count <= 0:
		return t, fmt.Errorf("shard count must be positive, not %d: %w", count, queue.ErrInvalidArgument)
	case index < 0 || index >= count:
		return t, fmt.Errorf("shard index must be between 0 and %d, not %d: %w", count-1, index, queue.ErrInvalidArgument)
	case index >= t.Len():
		return t, fmt.Errorf("shard %d of %d is empty: the input has only %d items: %w (shard the records of each file instead)", index, count, t.Len(), queue.ErrInvalidArgument)
	}
	var order []int
	for i := index; i < t.Len(); i += count {
		order = append(order, i)
	}
	return gatherRows(t, order)
}

// producerStage returns a producer's part in checkpoints: its options and
// its values, which for string_input_producer are files whose sizes are
// checked on restore, and for the others a digest.
func producerStage(stage, name string, t tensor.Tensor, cfg *stageConfig) *stagehook.Stage {
	s := &stagehook.Stage{Desc: fmt.Sprintf("%s %q: %d rows, %s", stage, name, t.Len(), cfg.describe())}
	if stage == "string_input_producer" {
		for _, b := range t.Strings() {
			s.Files = append(s.Files, string(b))
		}
		return s
	}
	h := fnv.New64a()
	fmt.Fprint(h, t.DType(), t.Shape(), t.Data())
	s.Desc += fmt.Sprintf(", values %016x", h.Sum64())
	return s
}

// pyShape formats s as TensorFlow's Python messages do: "()", "(2,)",
// "(2, None)".
func pyShape(s tensor.Shape) string {
	dims := make([]string, len(s))
	for i, d := range s {
		dims[i] = "None"
		if d >= 0 {
			dims[i] = strconv.Itoa(d)
		}
	}
	if len(s) == 1 {
		return "(" + dims[0] + ",)"
	}
	return "(" + strings.Join(dims, ", ") + ")"
}
