package natsqueue

import (
	"context"
	"errors"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tensor"
)

// Dequeue takes the next unit, blocking while none is pending. The unit
// stays unacknowledged: this handle holds it, sends heartbeats for it, and
// the server redelivers it to another worker if this one dies before
// calling WorkDone. Once the queue is closed and no unit is pending or
// held by another worker, Dequeue returns an error wrapping io.EOF.
func (q *Queue) Dequeue(ctx context.Context) (queue.Element, error) {
	m, err := q.take(ctx, 0)
	if errors.Is(err, errEOF) {
		return nil, q.eofError(1, 0)
	}
	if err != nil {
		return nil, err
	}
	q.hold(m)
	return queue.Element{tensor.Scalar(m.Data())}, nil
}

// DequeueMany takes exactly n units and returns them as a string vector;
// the caller then holds each of them. If the queue runs out first, the
// units taken are handed back and the call fails with io.EOF.
func (q *Queue) DequeueMany(ctx context.Context, n int) (queue.Element, error) {
	return q.dequeueBatch(ctx, n, false)
}

// DequeueUpTo is DequeueMany, except that once the queue is closed and
// drained it returns the 1..n-1 units it could take.
func (q *Queue) DequeueUpTo(ctx context.Context, n int) (queue.Element, error) {
	return q.dequeueBatch(ctx, n, true)
}

func (q *Queue) dequeueBatch(ctx context.Context, n int, upTo bool) (queue.Element, error) {
	if n < 0 {
		return nil, invalidf("Dequeue count must be non-negative, not %d", n)
	}
	if n == 0 {
		return queue.Element{tensor.Zeros(tensor.String, tensor.Shape{0})}, nil
	}
	var taken []jetstream.Msg
	for len(taken) < n {
		m, err := q.take(ctx, len(taken))
		if err != nil {
			if errors.Is(err, errEOF) && upTo && len(taken) > 0 {
				break
			}
			// Hand back what was taken and fail. The server
			// redelivers naked units in the order of the naks, so the
			// oldest goes first to be first again.
			for _, m := range taken {
				m.Nak()
			}
			if errors.Is(err, errEOF) {
				return nil, q.eofError(n, len(taken))
			}
			return nil, err
		}
		taken = append(taken, m)
	}
	units := make([][]byte, len(taken))
	for i, m := range taken {
		q.hold(m)
		units[i] = m.Data()
	}
	return queue.Element{tensor.New(units)}, nil
}

// errEOF marks the end of input inside this package; callers see
// eofError, whose text needs the request's size.
var errEOF = errors.New("end of input")

// take fetches one unit for a request that already holds taking units.
// It returns errEOF at end of input.
func (q *Queue) take(ctx context.Context, taking int) (jetstream.Msg, error) {
	for {
		if err := q.usable(ctx); err != nil {
			return nil, err
		}
		m, err := q.fetch(ctx)
		switch {
		case m != nil:
			return m, nil
		case ctx.Err() != nil:
			return nil, cancelledError("Dequeue", ctx.Err())
		case err != nil && !transient(err):
			return nil, q.errorf("Dequeue: fetch: %w", err)
		case err != nil:
			// The server is away; wait before asking again rather than
			// spin through failing requests.
			if !sleep(ctx, q.cfg.poll, nil) {
				return nil, cancelledError("Dequeue", ctx.Err())
			}
			continue
		}
		eof, err := q.drained(ctx, taking)
		switch {
		case ctx.Err() != nil:
			return nil, cancelledError("Dequeue", ctx.Err())
		case err != nil && !transient(err):
			return nil, err
		case eof:
			return nil, errEOF
		}
	}
}

func (q *Queue) usable(ctx context.Context) error {
	q.mu.Lock()
	stopped := q.stopped
	q.mu.Unlock()
	if stopped {
		return q.errorf("Dequeue: %w", errStopped)
	}
	if ctx.Err() != nil {
		return cancelledError("Dequeue", ctx.Err())
	}
	return nil
}

// fetch waits up to one poll interval for a unit. It returns nil, nil if
// none came.
func (q *Queue) fetch(ctx context.Context) (jetstream.Msg, error) {
	pctx, cancel := context.WithTimeout(ctx, q.cfg.poll)
	defer cancel()
	batch, err := q.cons.Fetch(1, jetstream.FetchContext(pctx))
	if errors.Is(err, jetstream.ErrInvalidOption) {
		// The caller's deadline is too close for a pull request: wait it
		// out as a fetch that found nothing would.
		<-pctx.Done()
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var m jetstream.Msg
	for got := range batch.Messages() {
		m = got
	}
	if m != nil && ctx.Err() != nil {
		// Cancelled as the unit arrived: hand it back at once so the
		// queue is as if this call had not been made.
		m.Nak()
		return nil, nil
	}
	if m != nil {
		return m, nil
	}
	if err := batch.Error(); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return nil, err
	}
	return nil, nil
}

// drained reports end of input: the closed flag is set, no unit is
// pending, and every unacknowledged unit is held by this handle (or by
// the request asking, which holds taking units). Units this handle holds
// are being read by its own workers, who have no further use for the
// queue if they die, so waiting for them could only wait forever; units
// held by other workers may still come back if those workers die.
func (q *Queue) drained(ctx context.Context, taking int) (bool, error) {
	closed, err := q.readClosed(ctx)
	if err != nil || !closed {
		return false, err
	}
	stored, err := q.stored(ctx)
	if err != nil {
		return false, q.errorf("Dequeue: stream info: %w", err)
	}
	q.mu.Lock()
	mine := q.nheld + taking
	q.mu.Unlock()
	// Units held here are in the stream until acknowledged; anything more
	// is pending or held by another worker.
	return stored <= mine, nil
}
