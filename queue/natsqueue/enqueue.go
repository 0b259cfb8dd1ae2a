package natsqueue

import (
	"context"

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
// already inserted stay if the call is cancelled.
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
	closed, err := q.readClosed(ctx)
	if err != nil {
		return err
	}
	if closed {
		return q.closedError()
	}
	for _, u := range units {
		if err := q.waitRoom(ctx); err != nil {
			return err
		}
		if err := q.publish(ctx, u); err != nil {
			return err
		}
	}
	return nil
}

// beginEnqueue counts an enqueue call under way, so that a non-cancelling
// Close waits for it, or fails it if a Close already runs.
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

// waitRoom blocks until the queue has room for one more unit and takes
// it. The server is asked only when the room last seen is used up, so a
// producer pays one stream-info request per batch of units, not per
// unit; with several producers the capacity may be overshot by what each
// saw free at once.
func (q *Queue) waitRoom(ctx context.Context) error {
	for {
		q.mu.Lock()
		if q.credit > 0 {
			q.credit--
			q.mu.Unlock()
			return nil
		}
		q.mu.Unlock()
		if err := q.cancelledOrClosed(ctx, "Enqueue"); err != nil {
			return err
		}
		held, err := q.stored(ctx)
		switch {
		case err == nil:
			if held < q.cfg.capacity {
				q.mu.Lock()
				q.credit = q.cfg.capacity - held - 1
				q.mu.Unlock()
				return nil
			}
		case ctx.Err() != nil:
			return cancelledError("Enqueue", ctx.Err())
		case !transient(err):
			return q.errorf("Enqueue: stream info: %w", err)
		}
		if !sleep(ctx, q.cfg.poll, q.cancel) {
			return q.cancelledOrClosed(ctx, "Enqueue")
		}
	}
}

// cancelledOrClosed reports why a blocked call must end: its context, a
// cancelling Close on this handle, or the closed flag.
func (q *Queue) cancelledOrClosed(ctx context.Context, op string) error {
	select {
	case <-q.cancel:
		return cancelledError(op, queue.ErrCancelled)
	default:
	}
	if ctx.Err() != nil {
		return cancelledError(op, ctx.Err())
	}
	closed, err := q.readClosed(ctx)
	switch {
	case err != nil && ctx.Err() != nil:
		return cancelledError(op, ctx.Err())
	case err != nil && !transient(err):
		return err
	case closed:
		q.mu.Lock()
		q.credit = 0
		q.mu.Unlock()
		return q.closedError()
	}
	return nil
}

// publish stores one unit under its message ID, retrying while the server
// is unreachable: the ID makes a retry of a publish that did land a
// duplicate, which the server drops.
func (q *Queue) publish(ctx context.Context, unit []byte) error {
	q.mu.Lock()
	k := q.seen[string(unit)]
	q.seen[string(unit)] = k + 1
	q.mu.Unlock()
	id := q.n.msgID(unit, k)
	for {
		_, err := q.js.Publish(ctx, q.n.subject, unit, jetstream.WithMsgID(id), jetstream.WithExpectStream(q.n.stream))
		switch {
		case err == nil:
			return nil
		case ctx.Err() != nil:
			// Whether the unit landed is unknown; a retry of the same call
			// must reuse its ID.
			q.mu.Lock()
			if q.seen[string(unit)] == k+1 {
				q.seen[string(unit)] = k
			}
			q.mu.Unlock()
			return cancelledError("Enqueue", ctx.Err())
		case !transient(err):
			return q.errorf("Enqueue: publish: %w", err)
		}
		if !sleep(ctx, q.cfg.poll, nil) {
			return cancelledError("Enqueue", ctx.Err())
		}
	}
}
