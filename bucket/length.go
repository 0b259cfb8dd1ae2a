package bucket

import (
	"context"
	"fmt"
	"sort"

	"github.com/sluiceml/sluice/input"
	"github.com/sluiceml/sluice/internal/stagehook"
	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tensor"
)

// A LengthStep produces one example for BySequenceLength: its sequence
// length and its components. It reports the end of its input with an
// error for which errors.Is(err, io.EOF) holds.
type LengthStep func(ctx context.Context) (length int, e queue.Element, err error)

// SequenceBuckets is the output of BySequenceLength: batches of examples
// of similar length.
type SequenceBuckets struct{ s *stage }

// BySequenceLength builds TensorFlow's contrib bucket_by_sequence_length
// on p: Bucket with len(boundaries)+1 buckets, an example of length L
// going into bucket i when boundaries[i-1] <= L < boundaries[i] (bucket 0
// below boundaries[0], the last at or above the last boundary; BSL-01).
// boundaries must be strictly increasing and not empty; batchSizes holds
// one batch size for every bucket or one per bucket.
//
// With DynamicPad, each batch is padded to its longest example only, which
// is the point: sequences of similar length waste little padding. Next
// returns the lengths with the batch. KeepInput's predicate gets the
// length.
func BySequenceLength(p *input.Pipeline, step LengthStep, boundaries []int, batchSizes []int, opts ...Option) *SequenceBuckets {
	cfg := newConfig(opts)
	name := cfg.name
	if name == "" {
		name = "bucket_by_sequence_length"
	}
	// TensorFlow's bucket_by_sequence_length calls bucket inside its own
	// name scope.
	name += "/bucket"
	cfg.boundsErr = checkBoundaries(boundaries)
	bounds := append([]int{}, boundaries...)
	cfg.namer = stagehook.NewNamer(name, cfg.names)
	// The elements the steps' examples travel in are the stage's own, so
	// the bucket queues hand them back for reuse.
	bin := &elemBin{}
	var newRoute func() routeFunc
	if step != nil {
		newRoute = func() routeFunc {
			c := cfg.namer.Caller()
			var lengths lengthScalars
			elems := stepElems{bin: bin}
			return func(ctx context.Context) (int, queue.Element, bool, error) {
				n, e, err := callNamed(ctx, c, step)
				if err != nil {
					return 0, nil, false, err
				}
				if cfg.keep != nil && !cfg.keep(n, e) {
					return 0, nil, false, nil
				}
				// The length travels as the first component (BSL-03).
				full := append(elems.get(len(e)+1), lengths.of(n))
				return bucketFor(bounds, n), append(full, e...), true, nil
			}
		}
	}
	what := fmt.Sprintf("bucket_by_sequence_length %q: boundaries %v", name, bounds)
	return &SequenceBuckets{newStage(p, name, what, cfg, len(boundaries)+1, batchSizes, 1, newRoute, bin)}
}

// checkBoundaries checks bucket_boundaries as TensorFlow does: not empty,
// and each boundary below the next (BSL-04). Go's types make TensorFlow's
// list and integer checks unnecessary.
func checkBoundaries(b []int) error {
	if len(b) == 0 {
		return invalidf("bucket: bucket_boundaries must not be empty")
	}
	for i := 1; i < len(b); i++ {
		if b[i-1] >= b[i] {
			return invalidf("bucket: Buckets must contain sequential increasing lengths, but saw: %d before %d", b[i-1], b[i])
		}
	}
	return nil
}

// bucketFor returns the bucket of a sequence of length n: the number of
// boundaries at or below n (SAMPLING §4).
func bucketFor(boundaries []int, n int) int {
	return sort.Search(len(boundaries), func(i int) bool { return boundaries[i] > n })
}

// Next returns the next batch and the length of each of its examples. At
// end of input it returns an error for which errors.Is(err, io.EOF)
// holds; if the pipeline stopped because a stage failed, it returns that
// error.
func (b *SequenceBuckets) Next(ctx context.Context) (lengths []int, batch input.Batch, err error) {
	e, err := b.s.next(ctx)
	if err != nil {
		return nil, input.Batch{}, err
	}
	return appendLengths(nil, e[1]), input.NewBatch(b.s.cfg.namer.Names(), e[2:]), nil
}

// NextInto is Next for a consumer done with each batch before it asks for
// the next: dst, a batch Next or NextInto returned, is handed back with
// its lengths, and their memory goes to a later batch (the batch NextInto
// returns was made before, and shares the memory of a batch handed back
// earlier, if any). dst and its lengths must not be used afterwards. A
// dst that did not come from this stage is ignored; a zero Batch hands
// back nothing.
//
// A consumer that hands back every batch allocates no batch once the
// pipeline runs: each bucket's batches are assembled over the memory of
// that bucket's batches handed back before (with DynamicPad, as
// input.Batches.NextInto pads them, over memory grown to the largest).
// Once dst is handed back NextInto returns as Next does, with an error at
// end of input or when ctx ends.
func (b *SequenceBuckets) NextInto(ctx context.Context, dst input.Batch) (lengths []int, batch input.Batch, err error) {
	buf := b.s.pool.giveBack(dst.Element(), 2)
	e, err := b.s.next(ctx)
	if err != nil {
		return nil, input.Batch{}, err
	}
	lengths = appendLengths(buf[:0], e[1])
	b.s.pool.lend(e, lengths)
	return lengths, input.NewBatch(b.s.cfg.namer.Names(), e[2:]), nil
}

// appendLengths appends the lengths of a batch's examples, its first
// component, to dst.
func appendLengths(dst []int, t tensor.Tensor) []int {
	ls := t.Int64s()
	if dst == nil {
		dst = make([]int, 0, len(ls))
	}
	for _, n := range ls {
		dst = append(dst, int(n))
	}
	return dst
}

// Queue returns the top queue, which holds whole batches, for its size.
func (b *SequenceBuckets) Queue() queue.Queue { return b.s.top }

// lengthScalars holds the length tensors of one enqueueing goroutine, made
// once for each length: a queue copies an enqueued element's values into
// its batch and never writes them, so one tensor can travel with every
// sequence of its length.
type lengthScalars []tensor.Tensor

// maxSharedLength bounds the lengths that get a tensor kept for reuse, so
// that a stream of ever longer sequences does not keep one per length.
const maxSharedLength = 4096

func (l *lengthScalars) of(n int) tensor.Tensor {
	if n < 0 || n >= maxSharedLength {
		return tensor.Scalar(int64(n))
	}
	if n >= len(*l) {
		*l = append(*l, make([]tensor.Tensor, n+1-len(*l))...)
	}
	t := (*l)[n]
	if !t.IsValid() {
		t = tensor.Scalar(int64(n))
		(*l)[n] = t
	}
	return t
}
