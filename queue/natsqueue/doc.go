// Package natsqueue is a queue of work units shared by many workers on
// many hosts, kept in NATS JetStream: TensorFlow's shared filename queue
// (a string_input_producer with a shared_name, from which several workers
// dequeue distinct file names) for a job that outgrows one machine. A
// Queue implements queue.Queue for scalar strings, file names or
// serialized examples, so readers and pipeline stages use it as they use
// an in-process FIFO queue.
//
// # Use
//
// Every worker opens the same queue name and epoch, with a JetStream
// context of its own connection (New) or a URL (Dial):
//
//	q, err := natsqueue.Dial(ctx, "nats://queue-host:4222", "train_files",
//		natsqueue.Epoch(epoch), natsqueue.AckWait(time.Minute))
//	defer q.Stop(context.WithoutCancel(ctx))
//
// The producer (any worker, or several) enqueues the epoch's file list and
// closes the queue:
//
//	q.EnqueueStrings(ctx, files...) // or Enqueue / EnqueueMany with tensors
//	q.Close(ctx)
//
// and each worker reads units until end of input, acknowledging each unit
// when it has read it to the end:
//
//	for {
//		e, err := q.Dequeue(ctx)
//		if errors.Is(err, io.EOF) {
//			break // the epoch is done, on every host
//		}
//		name := string(e[0].Strings()[0])
//		... read the file ...
//		q.WorkDone(ctx, name)
//	}
//
// A recordio.Reader on a Queue calls WorkDone by itself (see Acker).
//
// # Secured servers
//
// Dial takes the connection's credentials and TLS settings as NATS's own
// options, through NATSOptions:
//
//	q, err := natsqueue.Dial(ctx, "tls://queue-host:4222", "train_files",
//		natsqueue.NATSOptions(
//			nats.UserCredentials("worker.creds"), // or nats.UserInfo, nats.Token
//			nats.RootCAs("ca.pem"),
//			nats.ClientCert("worker-cert.pem", "worker-key.pem")))
//
// A server that refuses them fails Dial with NATS's error (wrapping
// nats.ErrAuthorization for bad credentials). New takes a connection its
// caller made, with whatever options it likes.
//
// # A server that goes away
//
// Errors of the server's (a lost connection, a restart, a request that
// times out) are retried, every poll interval, while the server has been
// silent for less than UnreachableAfter (default 20s), so a server
// restart or a cluster's leader election goes unnoticed. Once it has been
// silent that long, every call that needs it (the enqueues, the dequeues,
// WorkDone and Ack, Close, State, Release) fails with an error wrapping
// ErrUnreachable that names the server's URL and how long it has been
// silent, at once for calls made later, until the client has reconnected;
// the handle then works again. A unit whose WorkDone failed stays held. Every blocked call also returns
// as soon as its context ends, whatever the server does. (Measured: a
// Dequeue blocked when the server is killed fails 20.1s later with the
// defaults; TestMeasureDequeueServerKilled.) Dial fails at once with
// ErrUnreachable if no server answers at the URL.
//
// # One queue per epoch, shared by all workers
//
// A queue name has one JetStream stream with work-queue retention; each
// epoch has a subject in it, one durable pull consumer shared by every
// worker of that epoch, and a closed flag in a key-value bucket. Since the
// workers pull from one consumer, each unit is delivered to one worker at
// a time, in the order it was enqueued, and a worker that pulls faster
// takes more units. Units handed back (Release, a DequeueMany that fails,
// a worker's death) are delivered again before the others, in no promised
// order among themselves. Workers may join late or restart: the consumer
// and everything in it outlive any of them, and a server restart too with
// the default file storage.
//
// # Acknowledgement
//
// Dequeue hands out a unit without removing it. The unit stays in the
// stream, held by the worker, until the worker calls WorkDone (or Ack):
// an ack means "this unit has been read to its end and must never be
// handed out again", and only then does the server delete it. While a
// worker holds units its handle sends heartbeats (InProgress) every
// AckWait/3, so a file that takes longer than AckWait to read stays with
// its worker. When a worker dies, its heartbeats stop and the server hands
// its units to other workers once AckWait has passed; the reading starts
// again from the unit's beginning, so delivery is at least once: a unit
// whose worker died after reading part of it, or whose ack a server
// restart lost, is read again. Release gives a unit back at once.
//
// # End of input
//
// Close sets the epoch's closed flag, a key in JetStream's key-value
// store, for every worker. A Dequeue then returns the error wrapping
// io.EOF, with TensorFlow's OutOfRange text, once the flag is set and no
// unit is pending or held by another worker: while another worker holds a
// unit it may yet die, and its unit come back. Units held by the calling
// handle itself do not delay end of input (their readers are in this
// process and have no more use for the queue).
//
// # De-duplication
//
// Each enqueue carries a Nats-Msg-Id made of the queue name, the epoch, a
// hash of the unit and how many times this handle enqueued the same unit
// before. Two producers that enqueue the same epoch's list, in any order,
// therefore store each unit once, and a producer restarted from scratch
// adds nothing, within the stream's duplicate window (DuplicateWindow,
// default one hour). A unit listed twice is stored twice, as an
// in-process queue would hold it twice.
//
// # Differences from the in-process queues
//
//   - Capacity counts delivered but unacknowledged units too: they are
//     still in the stream. So a batch's units held while it waits for
//     the rest count too: DequeueMany or DequeueUpTo of more than the
//     capacity is refused (it could never be taken whole; TensorFlow's
//     takes a batch's elements one at a time, freeing room), and batches
//     of several workers that together exceed it wait for each other and
//     for their producers until a context ends: keep the capacity above
//     the batches taken at once.
//   - A Queue is not a queue.Sizer: how many units it holds, and whether
//     it is closed, are known only by asking the server, so State reports
//     them, taking a context and returning an error when the server
//     cannot answer. A pipeline's metrics leave it out.
//   - Blocked calls poll (PollInterval, default 200ms): a full queue
//     for room, an empty one for the closed flag. Units themselves arrive
//     as soon as they are enqueued. Blocked calls are not served in
//     arrival order across workers, and with several producers the
//     capacity is a soft limit, overshot by at most what each producer saw
//     free at once.
//   - A Close waits for the enqueues blocked on its own
//     handle; enqueues blocked on other hosts fail with queue.ErrClosed
//     when they next read the flag, and one racing a Close from another
//     host may still land after it (it is then left in the stream after
//     end of input; close from the producer, after its enqueues returned).
//   - A cancelled Dequeue returns at once and hands back any unit that
//     its pull request still brings: the server, not the client, ends a
//     pull request (after a poll interval, at most a second), so that no
//     unit is sent to a request the client gave up on. Only a unit in
//     flight when the connection was lost is redelivered after AckWait.
//   - Errors of the server's (a lost connection, a restart) are retried
//     until the call's context ends or the server counts as unreachable
//     (see above); other errors name the queue.
//   - A message on the queue's subject whose message ID is not one this
//     package made for its payload, for this queue and epoch, fails the
//     Dequeue that meets it with an error wrapping ErrBadMessage and is
//     dropped. A message without an ID (published by hand) is a unit.
//   - EnqueueMany sends its units in runs (up to the room last seen, at
//     most 256) and waits for their acks once per run, about four times
//     as fast as a round trip per unit (BenchmarkEnqueue). A unit whose
//     publish failed and was retried may land after units that followed
//     it in its run.
//   - The element is one scalar string; DequeueMany returns a string
//     vector whose units the caller then holds, each to be acknowledged.
package natsqueue
