package natsqueue

import (
	"context"
	"errors"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tensor"
)

// Enqueue adds one unit, a scalar string, blocking while the queue holds
// Capacity units. A unit this epoch already received from another
// producer (the same content, enqueued as often before) is not stored
// twice; see msgID.
func (q *Queue) Enqueue(ctx context.Context, e queue.Element) error {
	if len(e) != 1 {
		return invalidf("Wrong number of components in tuple. Expected 1, got %d", len(e))
	}
	if e[0].DType() != tensor.String {
		return invalidf("Type mismatch in tuple component 0. Expected string, got %s", e[0].DType().TFName())
	}
	if e[0].Rank() != 0 {
		return invalidf("Shape mismatch in tuple component 0. Expected [], got %v", e[0].Shape())
	}
	return q.enqueue(ctx, e[0].Strings())
}

// EnqueueMany adds the units of a string vector in order. As in-process
// queues do, it inserts what fits and waits for room for the rest; units
// already inserted stay if the call is cancelled. Units go out in runs,
// acknowledged once per run; a unit retried after a server error may
// land after the ones that followed it (see publishRun).
func (q *Queue) EnqueueMany(ctx context.Context, batch queue.Element) error {
	if len(batch) != 1 {
		return invalidf("Wrong number of components in tuple. Expected 1, got %d", len(batch))
	}
	if batch[0].DType() != tensor.String {
		return invalidf("Type mismatch in tuple component 0. Expected string, got %s", batch[0].DType().TFName())
	}
	if batch[0].Rank() != 1 {
		return invalidf("Shape mismatch in tuple component 0. Expected [?], got %v", batch[0].Shape())
	}
	units := batch[0].Strings()
	if len(units) == 0 {
		return nil // never blocks, as Q-18
	}
	return q.enqueue(ctx, units)
}

// EnqueueStrings adds units as EnqueueMany does, for callers that hold
// file names rather than a tensor.
func (q *Queue) EnqueueStrings(ctx context.Context, units ...string) error {
	b := make([][]byte, len(units))
	for i, u := range units {
		b[i] = []byte(u)
	}
	if len(b) == 0 {
		return nil
	}
	return q.enqueue(ctx, b)
}

func (q *Queue) enqueue(ctx context.Context, units [][]byte) error {
	if err := q.beginEnqueue(); err != nil {
		return err
	}
	defer q.endEnqueue()
	// A closed flag set by another worker is read once per call and at
	// every capacity check, rather than before every unit: see the package
	// documentation on the race this leaves.
	// An enqueue under way when a CloseNow comes is a pending one:
	// it fails with ErrCancelled, whichever of its checks sees the Close
	// first (cancelledOrClosed looks at the cancel before the flag and
	// again after it).
	if err := q.cancelledOrClosed(ctx, "Enqueue"); err != nil {
		return err
	}
	if err := q.checkSizes(units); err != nil {
		return err
	}
	for len(units) > 0 {
		n, err := q.waitRoom(ctx, min(len(units), maxRun))
		if err != nil {
			return err
		}
		if err := q.publishRun(ctx, units[:n]); err != nil {
			return err
		}
		units = units[n:]
	}
	return nil
}

// checkSizes refuses units larger than the server takes, before any unit
// goes out: found at publish, such a unit would fail the call with the
// units before it stored and those after it in flight. TensorFlow checks
// an EnqueueMany whole before inserting anything, too.
func (q *Queue) checkSizes(units [][]byte) error {
	limit := q.js.Conn().MaxPayload()
	if limit <= 0 { // not connected yet: the publish finds out
		return nil
	}
	// The headers a publish adds (see publishRun), with the longest
	// message ID: the count k takes at most 20 digits.
	headers := int64(len("NATS/1.0\r\nNats-Msg-Id: \r\nNats-Expected-Stream: \r\n\r\n") +
		len(q.n.msgID(nil, 0)) + 20 + len(q.n.stream))
	for i, u := range units {
		if int64(len(u))+headers > limit {
			return q.errorf("Enqueue: unit %d of %d is %d bytes, more than the server takes in a message (%d bytes with its headers); no unit was enqueued: %w",
				i, len(units), len(u), limit, queue.ErrInvalidArgument)
		}
	}
	return nil
}

// beginEnqueue counts an enqueue call under way, so that a Close waits
// for it, or fails it if a Close already runs.
func (q *Queue) beginEnqueue() error {
	q.mu.Lock()
	defer q.mu.Unlock()
	switch {
	case q.stopped:
		return q.errorf("Enqueue: %w", errStopped)
	case q.closing || q.cancelled || q.closed.Load():
		return q.closedError()
	}
	if q.enqueuing == 0 {
		q.enqIdle = make(chan struct{})
	}
	q.enqueuing++
	return nil
}

func (q *Queue) endEnqueue() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.enqueuing--
	if q.enqueuing == 0 {
		close(q.enqIdle)
	}
}

// waitRoom blocks until the queue has room for at least one more unit
// and takes room for up to want units, returning how many. The server is
// asked only when the room last seen is used up, so a producer pays one
// stream-info request per batch of units, not per unit; with several
// producers the capacity may be overshot by what each saw free at once.
func (q *Queue) waitRoom(ctx context.Context, want int) (int, error) {
	for {
		q.mu.Lock()
		if q.credit > 0 {
			n := min(q.credit, want)
			q.credit -= n
			q.mu.Unlock()
			return n, nil
		}
		q.mu.Unlock()
		if err := q.cancelledOrClosed(ctx, "Enqueue"); err != nil {
			return 0, err
		}
		var held int
		err := q.request(ctx, "Enqueue", "stream info", q.cancel, func(ctx context.Context) (err error) {
			if held, err = q.stored(ctx); err != nil || held < q.cfg.capacity || !q.mayDrop() {
				return err
			}
			swept, err := q.sweepDropped(ctx) // units given up on take no room
			held -= swept
			return err
		})
		switch {
		case err == errStop:
			return 0, cancelledError("Enqueue", queue.ErrCancelled)
		case err != nil:
			return 0, err
		case held < q.cfg.capacity:
			q.mu.Lock()
			q.credit = q.cfg.capacity - held
			n := min(q.credit, want)
			q.credit -= n
			q.mu.Unlock()
			return n, nil
		}
		if !sleep(ctx, q.cfg.poll, q.cancel) {
			return 0, q.cancelledOrClosed(ctx, "Enqueue")
		}
	}
}

// cancelledOrClosed reports why a blocked call must end: its context, a
// CloseNow on this handle, or the closed flag.
//
// testHookFlagRead, when set, runs before the flag is read: tests put a
// CloseNow there, into the window between the two checks.
var testHookFlagRead func(*Queue)

func (q *Queue) cancelledOrClosed(ctx context.Context, op string) error {
	select {
	case <-q.cancel:
		return cancelledError(op, queue.ErrCancelled)
	default:
	}
	if ctx.Err() != nil {
		return cancelledError(op, ctx.Err())
	}
	if err := q.ended(op); err != nil {
		return err
	}
	if testHookFlagRead != nil {
		testHookFlagRead(q)
	}
	closed, err := q.isClosed(ctx, op)
	switch {
	case err != nil:
		return err
	case closed:
		q.mu.Lock()
		q.credit = 0
		q.mu.Unlock()
		// A CloseNow of this handle that came while the flag was read
		// (it closes q.cancel before it writes the flag) cancels this
		// call: the flag read may be its own.
		select {
		case <-q.cancel:
			return cancelledError(op, queue.ErrCancelled)
		default:
		}
		return q.closedError()
	}
	return nil
}

// maxRun is the most units published before waiting for their acks.
const maxRun = 256

// ackWait is how long a run's acks are awaited before the units not yet
// acknowledged are published again, one at a time: an async publish whose
// reply was lost would otherwise never resolve.
var ackWait = 5 * time.Second

// publishRun stores units in order under their message IDs. It sends them
// all before waiting for the server's acks, so a run costs about one
// round trip rather than one per unit. A unit whose async publish fails
// with a transient error, or is not acknowledged within ackWait, is
// published again with publishID; its message ID makes that safe even if
// the first copy landed. Such a retried unit may land after units that
// follow it in the run.
func (q *Queue) publishRun(ctx context.Context, units [][]byte) error {
	if len(units) == 1 {
		return q.publish(ctx, units[0])
	}
	ids, ks := make([]string, len(units)), make([]int, len(units))
	q.mu.Lock()
	for i, u := range units {
		ks[i] = q.seen[string(u)]
		q.seen[string(u)] = ks[i] + 1
		ids[i] = q.n.msgID(u, ks[i])
	}
	q.mu.Unlock()
	futures := make([]jetstream.PubAckFuture, len(units))
	// Without a connection the units would wait in the client's buffer
	// for a server that may not come back: they are published one at a
	// time below, which gives up once the server is unreachable.
	if q.link.connected() {
		for i, u := range units {
			// A unit the client refuses to send now (too many acks
			// pending) is left nil and published again below.
			futures[i], _ = q.js.PublishAsync(q.n.subject, u, jetstream.WithMsgID(ids[i]), jetstream.WithExpectStream(q.n.stream))
		}
	}
	timeout := time.NewTimer(ackWait)
	defer timeout.Stop()
	expired := false
	for i, f := range futures {
		var err error = errNotSent
		if f != nil && !expired {
			select {
			case <-f.Ok():
				q.link.up()
				continue
			case err = <-f.Err():
			case <-timeout.C:
				expired = true
			case <-ctx.Done():
				q.unsee(units[i:], ks[i:])
				return cancelledError("Enqueue", ctx.Err())
			}
		}
		if err != errNotSent && !transient(err) {
			return q.errorf("Enqueue: publish: %w", err)
		}
		if err := q.publishID(ctx, units[i], ids[i], ks[i]); err != nil {
			if i+1 < len(units) {
				q.unsee(units[i+1:], ks[i+1:])
			}
			return err
		}
	}
	return nil
}

// errNotSent marks a unit of a run that publishRun must publish again.
var errNotSent = errors.New("not sent")

// unsee takes back the enqueue counts of units whose publish was not
// confirmed, last first, so that the same call retried reuses their
// message IDs; ks are the counts the units were published under.
func (q *Queue) unsee(units [][]byte, ks []int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for i := len(units) - 1; i >= 0; i-- {
		if q.seen[string(units[i])] == ks[i]+1 {
			q.seen[string(units[i])] = ks[i]
		}
	}
}

// publish stores one unit under its message ID (see publishID).
func (q *Queue) publish(ctx context.Context, unit []byte) error {
	q.mu.Lock()
	k := q.seen[string(unit)]
	q.seen[string(unit)] = k + 1
	q.mu.Unlock()
	return q.publishID(ctx, unit, q.n.msgID(unit, k), k)
}

// publishID publishes unit under message ID id, its k-th enqueue through
// this handle, retrying while the server is away (see request): the ID
// makes a retry of a publish that did land a duplicate, which the server
// drops.
func (q *Queue) publishID(ctx context.Context, unit []byte, id string, k int) error {
	err := q.request(ctx, "Enqueue", "publish", nil, func(ctx context.Context) error {
		_, err := q.js.Publish(ctx, q.n.subject, unit, jetstream.WithMsgID(id), jetstream.WithExpectStream(q.n.stream))
		return err
	})
	if err != nil {
		// Whether the unit landed is unknown; a retry of the same call
		// must reuse its ID.
		q.unsee([][]byte{unit}, []int{k})
	}
	return err
}
