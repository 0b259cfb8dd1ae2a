// Package input builds input pipelines: the producers, readers, decoders
// and batchers of TensorFlow's "Reading data" guide, run by queue runners
// under one coordinator.
//
// A Pipeline plays the role of TensorFlow's graph and session. Stages are
// created on it — a producer that fills a filename queue once per epoch,
// steps that read and decode records, a batcher that collects examples into
// batches — and Start runs them all. Data then flows through bounded
// queues: each stage's goroutines block when the next queue is full, so
// memory stays bounded and the slowest stage sets the pace.
//
// When the input ends (after the last epoch), the end cascades: the
// producer closes the filename queue, readers that find it drained stop,
// the last of them closes the example queue, and once the batches are
// drained the consumer sees end of input (io.EOF). Every example of every
// epoch that the batchers keep is delivered exactly once: a Maybe batcher
// drops the examples its keep flags drop, and a batcher without
// AllowSmallerFinalBatch drops the examples left at end of input that do
// not fill a batch (BAT-09), as TensorFlow's do. Any other error stops the whole pipeline
// and is returned by Join, with the record's key in it. A stopped pipeline
// cancels every blocked call, so nothing hangs and no goroutine outlives
// Stop.
//
// Each kind of stage takes its own type of option, as each TensorFlow
// function takes its own keyword arguments: a ProducerOption, BatchOption,
// ShuffleBatchOption or PipelineOption. An option several kinds take
// (Capacity, Name, Threads, Seed, ...) is of each of their types, and an
// option given to a stage that does not take it does not compile.
//
// Building a stage never fails on the spot: a stage given invalid option
// values records the error on the pipeline, Start returns it, and the
// stage is inert. This keeps pipeline construction as short as
// TensorFlow's.
//
// With Deterministic and a Seed, a pipeline's batches are a function of
// its inputs, seed and options alone, and Checkpoint saves its position
// between two batches in a few hundred bytes: which stages it has, how
// many batches each consumer took, the sizes of its files, and the states
// a state saver carries. A pipeline built the same way with Resume
// replays the run up to that position and goes on with exactly the
// batches the first would have delivered next.
//
// # Memory
//
// By default a step returns a new element per example and the consumer
// gets a new batch per call: simple, and every value the pipeline hands
// out stays valid. A pipeline that must not allocate per example reuses
// memory at both ends. The consumer asks for each batch with NextInto,
// giving back the batch it is done with. The steps take the elements the
// batcher has copied into batches with Recycled, and fill them again,
// when the batcher is built with Recycle:
//
//	readers[i] = func(ctx context.Context) (queue.Element, error) {
//		rec, err := r.ReadValue(ctx) // no key: no allocation
//		if err != nil {
//			return nil, err
//		}
//		return parser.ParseSingleInto(input.Recycled(ctx), rec, "")
//	}
//	batches := p.ShuffleBatchJoin(readers, 128, ..., input.Recycle())
//
// An element is handed back only after its values were copied into a
// batch, to a step of the stage that made it or, once its pipeline was
// joined, of a later recycling stage whose elements have the same types
// and shapes (a pipeline built again for every pass or evaluation then
// fills its queue without allocating it again), so a batch never shares
// memory with an element a step overwrites, and the order and contents of
// the batches are those of the same pipeline without Recycle.
// What Recycle asks of the steps is to own what they return (see
// Recycle). Once the shuffle queue is full, such a pipeline allocates
// next to nothing per example; its memory is the queue's elements, a
// batch, and one batch's worth of elements in between.
//
// A stage of one's own runs with the pipeline through AddQueueRunner and
// Coordinator, and may hand out batches made with NewBatch; steps declare
// their components' names with Named and store sparse tensors with
// StoreSparse.
package input
