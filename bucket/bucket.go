package bucket

import (
	"context"
	"fmt"

	"github.com/sluiceml/sluice/input"
	"github.com/sluiceml/sluice/internal/stagehook"
	"github.com/sluiceml/sluice/queue"
)

// A Step produces one example for Bucket: the bucket it goes into, in
// [0, numBuckets), and its components. It reports the end of its input
// with an error for which errors.Is(err, io.EOF) holds. With Threads
// above 1 it is called from several goroutines at once.
type Step func(ctx context.Context) (bucket int, e queue.Element, err error)

// Buckets is the output of Bucket: batches, each from one bucket.
type Buckets struct{ s *stage }

// Bucket builds TensorFlow's contrib bucket on p: Threads goroutines
// (default 1) run step and put each example into the queue of the bucket
// it names; whenever a bucket holds its batch size of examples, they are
// batched and queued, with the bucket id, on a top queue of Capacity
// batches (default 32), which Next reads.
//
// batchSizes holds one batch size for every bucket, or one per bucket.
// An example whose bucket is out of range stops the pipeline with an
// error wrapping ErrBucketRange.
//
// The examples' component types and shapes are fixed by the first example
// (with DynamicPad, only their ranks). Build errors are recorded on p,
// whose Start returns them; Next returns them too.
func Bucket(p *input.Pipeline, step Step, batchSizes []int, numBuckets int, opts ...Option) *Buckets {
	cfg := newConfig(opts)
	name := cfg.name
	if name == "" {
		name = "bucket"
	}
	cfg.namer = stagehook.NewNamer(name, cfg.names)
	var newRoute func() routeFunc
	if step != nil {
		newRoute = func() routeFunc {
			c := cfg.namer.Caller()
			return func(ctx context.Context) (int, queue.Element, bool, error) {
				id, e, err := callNamed(ctx, c, step)
				if err != nil {
					return 0, nil, false, err
				}
				return id, e, cfg.keep == nil || cfg.keep(id, e), nil
			}
		}
	}
	return &Buckets{newStage(p, name, fmt.Sprintf("bucket %q", name), cfg, numBuckets, batchSizes, 0, newRoute, nil)}
}

// Next returns the next batch and the bucket it came from. At end of
// input it returns an error for which errors.Is(err, io.EOF) holds; if
// the pipeline stopped because a stage failed, it returns that error.
func (b *Buckets) Next(ctx context.Context) (bucket int, batch input.Batch, err error) {
	e, err := b.s.next(ctx)
	if err != nil {
		return 0, input.Batch{}, err
	}
	return bucketOf(e), input.NewBatch(b.s.cfg.namer.Names(), e[1:]), nil
}

// NextInto is Next for a consumer done with each batch before it asks for
// the next: dst, a batch Next or NextInto returned, is handed back, and
// its memory goes to a later batch of its bucket (the batch NextInto
// returns was made before, and shares the memory of a batch handed back
// earlier, if any). dst must not be used afterwards. A dst that did not
// come from this stage is ignored; a zero Batch hands back nothing.
//
// A consumer that hands back every batch allocates no batch once the
// pipeline runs: each bucket's batches are assembled over the memory of
// that bucket's batches handed back before (with DynamicPad, as
// input.Batches.NextInto pads them, over memory grown to the largest).
// Once dst is handed back NextInto returns as Next does, with an error at
// end of input or when ctx ends.
func (b *Buckets) NextInto(ctx context.Context, dst input.Batch) (bucket int, batch input.Batch, err error) {
	b.s.pool.giveBack(dst.Element(), 1)
	e, err := b.s.next(ctx)
	if err != nil {
		return 0, input.Batch{}, err
	}
	b.s.pool.lend(e, nil)
	return bucketOf(e), input.NewBatch(b.s.cfg.namer.Names(), e[1:]), nil
}

// bucketOf returns the bucket of a top queue element.
func bucketOf(e queue.Element) int { return int(e[0].Int32s()[0]) }

// Queue returns the top queue, which holds whole batches, for its size.
func (b *Buckets) Queue() queue.Queue { return b.s.top }
