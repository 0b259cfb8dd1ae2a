// Package bucket batches examples by group: each example goes into one of
// several buckets, and every batch holds examples of one bucket only. It
// is TensorFlow's contrib bucket and bucket_by_sequence_length. The usual
// use is sequences of varied length: bucketed by length and padded per
// batch, a batch of short sentences is not padded to the longest sentence
// of the corpus, which saves the recurrent network most of its work on
// padding.
//
// Bucket takes a step that returns each example's bucket id with its
// components; BySequenceLength takes a step that returns each example's
// length, and boundaries that split lengths into buckets: with boundaries
// [10, 20], lengths below 10 go into bucket 0, 10 to 19 into bucket 1, and
// 20 and above into bucket 2. Both build a stage on an input.Pipeline,
// which starts, stops and joins its goroutines and reports its queues'
// metrics like those of its own stages:
//
//	p := input.NewPipeline()
//	batches := bucket.BySequenceLength(p, step, []int{10, 20}, []int{64, 32, 16},
//		bucket.DynamicPad(), bucket.AllowSmallerFinalBatch())
//	if err := p.Start(ctx); err != nil {
//		return err // a build error: bad boundaries, batch sizes, ...
//	}
//	for {
//		lengths, batch, err := batches.Next(ctx)
//		if errors.Is(err, io.EOF) {
//			break
//		}
//		if err != nil {
//			return err
//		}
//		train(lengths, batch.Tensor("tokens")) // [n, longest in batch]
//	}
//	return p.Join(ctx)
//
// Bucket's Next returns the bucket id with the batch; BySequenceLength's
// returns the length of each example. A consumer done with each batch
// before it asks for the next calls NextInto instead, handing the last
// batch back: its memory goes to a later batch of its bucket, and once
// the pipeline runs no batch is allocated. Batch sizes are one for all buckets
// or one per bucket; Capacity bounds the examples in each bucket's queue
// (or BucketCapacities, per bucket) and the batches waiting for Next;
// KeepInput drops examples; Threads runs the step in several
// goroutines.
//
// Inside, as in TensorFlow, each bucket has a queue; a mover per bucket
// takes a batch from its queue as soon as there is one and queues it with
// the bucket id on a top queue, which Next reads. Batches therefore come
// in the order buckets fill, not in the order of the input.
//
// # Differences from TensorFlow
//
//   - With AllowSmallerFinalBatch, the examples left in the buckets at end
//     of input are delivered as smaller batches, one per bucket that holds
//     any. TensorFlow drops them even with allow_smaller_final_batch
//     (TensorFlow issue 8182: 100 examples in batches of 5 gave 17 batches,
//     not 20), because the end of input closes the top queue before the
//     buckets are drained. Here it closes the bucket queues, which drain
//     into the top queue first. Without the option the examples of
//     unfilled buckets are dropped, and every full batch is still
//     delivered (TensorFlow may lose full batches not yet moved as well).
//   - A bucket id outside [0, numBuckets) stops the pipeline with an error
//     wrapping ErrBucketRange, naming the id and the number of buckets.
//     TensorFlow drops the example silently.
//   - Sequence lengths are Go ints: the last bucket holds every length at
//     or above the last boundary. TensorFlow's lengths are int32, and
//     a length of exactly 2^31-1 matches no bucket and is dropped
//     (SAMPLING §4).
//   - The examples' component types and shapes are fixed by the first
//     example the step returns (a Go step returns tensors instead of
//     declaring them in a graph); later examples must match, in rank only
//     with DynamicPad. An empty first example is TensorFlow's "Expected at
//     least one tensor in bucket()." error, found when it arrives.
//   - batchSizes is a slice: one entry stands for TensorFlow's single
//     batch size. Go's types make TensorFlow's type checks of the
//     boundaries unnecessary; its other argument checks keep their text.
//   - There are no shared queues (shared_name), no static shapes, and no
//     sparse components.
package bucket
