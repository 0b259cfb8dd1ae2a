// Package sequence splits variable-length sequence examples into segments
// of a fixed number of time steps, batches the segments of many examples,
// and carries a state for each example from one segment to the next: it
// is TensorFlow's contrib SequenceQueueingStateSaver and
// batch_sequences_with_states, for truncated backpropagation through time
// (an LSTM that sees 20 steps at a time but keeps its state across the
// whole sequence).
//
// An example (Input) has a key, a length, sequences with time as their
// first dimension, and context values that hold for the whole example.
// Its padded length (the sequences' first dimension) is cut into
// padded_length/num_unroll segments. Segment s gets rows [s*u, (s+1)*u)
// of every sequence, a copy of the context, and the keys
//
//	key      = "%05d_of_%05d:%s" % (s, count, input key)
//	next_key = key of segment s+1, or "STOP:<input key>" for the last
//
// A StateSaver takes examples with Prefetch and returns batches with Next.
// A Batch gives each segment's key, next key, index, count, length (the
// steps before padding in this segment), total length, insertion index,
// sequences, context, and states: the initial states for a first segment,
// else what the previous batch saved with SaveState. An example's next
// segment becomes ready only after its state was saved, and segments are
// served oldest example first, so an example's segments come in
// consecutive batches:
//
//	for {
//		b, err := saver.Next(ctx)
//		if errors.Is(err, io.EOF) {
//			break
//		}
//		...
//		h := step(b.State("h"), b.Sequences("x"))
//		if err := b.SaveState(ctx, "h", h); err != nil {
//			return err
//		}
//	}
//
// A loop done with each batch once its states are saved calls
// saver.NextInto(ctx, b) in place of Next: the next batch is made in b's
// memory.
//
// Capacity bounds the number of examples held at once: Prefetch blocks
// while that many have segments left. Close ends the input and lets the
// examples already started finish; CloseNow drops those not yet ready.
//
// BatchSequencesWithStates builds the whole stage on an input.Pipeline:
// prefetch goroutines run a Step as a queue runner of the pipeline, pad
// sequences to a multiple of num_unroll, optionally make keys unique, and
// close the state saver when the step's input ends, so Next reports end of
// input (io.EOF) after the last segment. Sparse sequences are split by
// time too, and sparse context is copied to every segment.
//
// # Differences from TensorFlow
//
//   - The names, types and shapes of an example's sequences and context
//     are fixed by the first example (a Go step returns concrete tensors
//     instead of declaring them in a graph); later examples must match.
//   - Go's types make key and length checks (string and int32 scalars,
//     SQ-03) unnecessary; the batch size given to NextN replaces a fed
//     batch size tensor.
//   - A Prefetch takes its capacity token before inserting anything, and a
//     Close waits for the Prefetch calls in progress (bounded by its
//     context) before closing the barrier, so every example a prefetch
//     goroutine has read is delivered. TensorFlow inserts an example's data
//     before waiting for capacity and only its initial states after.
//   - The barrier holds a handle per segment and the states; the
//     sequences and context stay in the state saver and are sliced when a
//     batch is assembled, as TensorFlow already does for sparse tensors.
//   - Only states and segment handles pass through the barrier, so its
//     error messages name the state saver's components, not TensorFlow's
//     sorted_sequences_* tensors; the input checks keep TensorFlow's text.
//   - Saving the same state twice for one batch is an error; TensorFlow's
//     barrier would silently start a new, never completed element.
//   - Input.InitialStates may override the initial states per example, as a
//     TensorFlow graph can compute them from the input.
package sequence
