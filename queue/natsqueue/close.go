package natsqueue

import (
	"context"
	"errors"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/sluiceml/sluice/queue"
)

// The closed flag is a key in a JetStream key-value bucket, one key per
// queue name and epoch, rather than a sentinel message in the stream: a
// sentinel would be delivered to one worker only, would count against the
// capacity and would have to be re-enqueued by whoever took it, whereas
// every worker can read a key at any time.
const closedValue = "closed"

// readClosed reads the closed flag once. Once set it is never cleared, so
// a flag seen set is not asked for again.
func (q *Queue) readClosed(ctx context.Context) (bool, error) {
	if q.closed.Load() {
		return true, nil
	}
	e, err := q.kv.Get(ctx, q.n.key)
	switch {
	case errors.Is(err, jetstream.ErrKeyNotFound):
		return false, nil
	case err != nil:
		return false, err
	}
	if err := decodeClosed(e.Value()); err != nil {
		return false, err
	}
	q.closed.Store(true)
	return true, nil
}

// isClosed reads the closed flag for op, retrying while the server is
// away (see request).
func (q *Queue) isClosed(ctx context.Context, op string) (closed bool, err error) {
	err = q.request(ctx, op, "reading the closed flag", nil, func(ctx context.Context) (err error) {
		closed, err = q.readClosed(ctx)
		return err
	})
	return closed, err
}

// Close sets the queue's closed flag, for every worker of the epoch. It
// first waits for this handle's blocked enqueues to complete, as
// TensorFlow queues a close behind them, and closing a closed queue is an
// error wrapping queue.ErrClosed. Enqueues blocked in other processes fail
// with queue.ErrClosed when they next read the flag. Dequeues then drain
// the units left and report end of input once none is pending or
// unacknowledged.
func (q *Queue) Close(ctx context.Context) error {
	q.mu.Lock()
	if q.closing || q.cancelled || q.closed.Load() {
		q.mu.Unlock()
		return q.alreadyClosed()
	}
	q.closing = true
	idle := q.enqIdle
	busy := q.enqueuing > 0
	q.mu.Unlock()
	if busy {
		select {
		case <-idle:
			// The enqueues may have ended because a CloseNow failed
			// them; then this Close was cancelled too, whichever case
			// the select saw first.
			select {
			case <-q.cancel:
				return cancelledError("Enqueue", queue.ErrCancelled) // Q-43, in queue.FIFO's words
			default:
			}
		case <-q.cancel:
			return cancelledError("Enqueue", queue.ErrCancelled) // Q-43, in queue.FIFO's words
		case <-ctx.Done():
			q.mu.Lock()
			q.closing = false
			q.mu.Unlock()
			return cancelledError("Close", ctx.Err())
		}
	}
	return q.setClosed(ctx, true)
}

// CloseNow is Close, except that it fails this handle's blocked enqueues
// (and a Close waiting for them) with queue.ErrCancelled at once, and
// setting a flag that is already set is not an error. It still writes the
// flag to the server, which ctx bounds.
func (q *Queue) CloseNow(ctx context.Context) error {
	q.mu.Lock()
	if !q.cancelled {
		q.cancelled = true
		close(q.cancel)
	}
	q.mu.Unlock()
	return q.setClosed(ctx, false)
}

// setClosed writes the flag, retrying while the server is away. With
// exclusive, a flag already set by another worker is an error.
func (q *Queue) setClosed(ctx context.Context, exclusive bool) error {
	tries := 0
	err := q.request(ctx, "Close", "writing the closed flag", nil, func(ctx context.Context) (err error) {
		tries++
		if exclusive {
			_, err = q.kv.Create(ctx, q.n.key, []byte(closedValue))
		} else {
			_, err = q.kv.Put(ctx, q.n.key, []byte(closedValue))
		}
		return err
	})
	switch {
	case err == nil:
		q.closed.Store(true)
		return nil
	case errors.Is(err, jetstream.ErrKeyExists):
		q.closed.Store(true)
		if tries > 1 {
			return nil // our own earlier try landed
		}
		return q.alreadyClosed()
	}
	// Not closed after all, as far as this handle knows: a later Close
	// may try again.
	q.mu.Lock()
	q.closing = false
	q.mu.Unlock()
	return err
}
