// Package queue provides the bounded, blocking queues that connect the
// stages of an input pipeline: FIFO, PaddingFIFO, RandomShuffle and
// Priority, all behind the Queue interface, and the Barrier that the
// sequence state saver is built on. They behave as TensorFlow 1.x's queue
// kernels do.
//
// A queue holds elements, each a tuple of tensors, one per component, with
// the types (and, where declared, the shapes) given when the queue was
// made. Enqueue blocks while the queue is full and Dequeue while it is
// empty. EnqueueMany and DequeueMany move batches: a blocked EnqueueMany
// inserts what fits and waits for room for the rest, and a blocked
// DequeueMany takes elements as they arrive until it has its batch (those
// elements no longer count in Size). Blocked calls are served strictly in
// the order they arrived, enqueues and dequeues each in their own line, as
// TensorFlow's QueueBase serves its attempt lists. DequeueManyInto writes
// a batch into the caller's tensors so that steady-state batching
// allocates nothing, and a queue made with Recycle hands the elements it
// has copied into a batch back to their owner, to be filled again.
// Copying a batch never holds the queue's lock: a dequeue that finds its
// batch copies it itself, and one that waits is handed its batch made by
// the call (usually an enqueue) that completed it, rather than woken to
// copy it then. The rows of an EnqueueMany stay in their batch until a
// batch dequeue copies them or a single Dequeue returns one as tensors
// of its own.
//
// Element types and shapes are checked on every call, with TensorFlow's
// messages ("Shape mismatch in tuple component 1. Expected [2,?,3], got
// [2,3,4]"); a rejected call changes nothing and returns an error wrapping
// ErrInvalidArgument. Components may be named (Names): FromMap builds
// an element from a map, Lookup and ToMap read one.
//
// A Priority queue's elements begin with their priority: component 0 is
// an Int64 scalar (in a batch, a vector), followed by the components the
// queue was declared with. This is TensorFlow's layout, so a dequeued
// element still carries its priority.
//
// Close ends a queue's input: it waits behind the enqueues already
// blocked, which complete normally, and then marks the queue closed.
// CloseNow, TensorFlow's cancel_pending_enqueues, closes at once and fails
// them with ErrCancelled. Later enqueues fail with ErrClosed; dequeues
// drain what is left and then fail with an error that wraps io.EOF, the
// end of input, in TensorFlow's words:
//
//	FIFOQueue 'filenames' is closed and has insufficient elements (requested 1, current size 0)
//
// A DequeueMany that fails this way puts back the elements it had taken,
// in order; DequeueUpTo instead returns them. A closed RandomShuffle queue
// no longer holds back min_after_dequeue elements.
//
// Every blocking call takes a context, which replaces TensorFlow's
// session close and operation timeouts. When the context ends while the
// call waits, the call returns an error wrapping ctx.Err() ("Dequeue
// operation was cancelled: context deadline exceeded") and the queue is as
// if the call had not been made; only the rows a cancelled EnqueueMany had
// already inserted stay, as in TensorFlow. A call that can complete at
// once does so even if its context has ended.
//
// # What the Queue interface holds
//
// Queue holds what a pipeline's stages call on a queue they were given:
// its name, component types, shapes and names, the five ways to move
// elements, Close and CloseNow. It leaves out what not every queue can
// answer honestly. Size and Capacity form Sizer, which the queues of this
// package implement and natsqueue's, whose count lives on a server and is
// read by a State call that takes a context and can fail, does not; the
// pipeline's metrics type-assert it. IsClosed is a method of this
// package's queues only: no stage decides by it (each learns of a close
// from the ErrClosed or io.EOF of its next call), and a remote queue could
// only guess. A queue runner needs less still, a name and the two ways to
// close (coord.Closer), so that a state saver or a group of queues runs
// under one without pretending to move elements.
//
// Each queue counts its traffic for the pipeline's metrics: Stats reports
// the elements enqueued and dequeued and the time callers spent blocked,
// from atomic counters, without taking the queue's lock.
package queue
