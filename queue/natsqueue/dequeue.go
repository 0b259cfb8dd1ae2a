package natsqueue

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tensor"
)

// Dequeue takes the next unit, blocking while none is pending. The unit
// stays unacknowledged: this handle holds it, sends heartbeats for it, and
// the server redelivers it to another worker if this one dies before
// calling WorkDone. Once the queue is closed and no unit is pending or
// held by another worker (with EndWhenDelivered, none pending), Dequeue
// returns an error wrapping io.EOF.
func (q *Queue) Dequeue(ctx context.Context) (queue.Element, error) {
	m, err := q.take(ctx)
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
	if n > q.cfg.capacity {
		// The units taken count against the capacity until acknowledged:
		// the producers would wait for room and the batch for units,
		// for good (audit 38).
		return nil, invalidf("Dequeue count %d is more than the queue's capacity, %d, which counts the units a batch has taken: it could never be taken whole", n, q.cfg.capacity)
	}
	// Each unit is held as it is taken, so that the heartbeat keeps it
	// while the request waits for the rest: a batch that waits longer
	// than AckWait would otherwise lose its first units to redelivery,
	// to another worker or to itself.
	var taken []jetstream.Msg
	for len(taken) < n {
		m, err := q.take(ctx)
		if err != nil {
			if errors.Is(err, errEOF) && upTo && len(taken) > 0 {
				break
			}
			// Hand back what was taken and fail. The server
			// redelivers naked units before any other, mostly in the
			// order of the naks, so the oldest goes first; but a unit it
			// readies for a pull request that has just expired goes to
			// the back of its redelivery queue, so their order is not
			// promised.
			for _, m := range taken {
				if q.unholdDelivery(m) {
					m.Nak()
				}
			}
			if errors.Is(err, errEOF) {
				return nil, q.eofError(n, len(taken))
			}
			return nil, err
		}
		q.hold(m)
		taken = append(taken, m)
	}
	units := make([][]byte, len(taken))
	for i, m := range taken {
		units[i] = m.Data()
	}
	return queue.Element{tensor.New(units)}, nil
}

// errEOF marks the end of input inside this package; callers see
// eofError, whose text needs the request's size.
var errEOF = errors.New("end of input")

// take fetches one unit. It returns errEOF at end of input.
func (q *Queue) take(ctx context.Context) (jetstream.Msg, error) {
	// closedSeen is set once the flag was read after an empty fetch: with
	// EndWhenDelivered, the next fetch coming back empty too ends the
	// input, every unit being in the stream before the flag was set.
	closedSeen := false
	for {
		if err := q.usable(ctx); err != nil {
			return nil, err
		}
		if !q.link.connected() {
			// A pull request sent now would wait in the client's buffer
			// and be served after this call gave up on it.
			if err := q.link.unreachable("Dequeue"); err != nil {
				return nil, q.errorf("%w", err)
			}
			if !sleep(ctx, q.cfg.poll, nil) {
				return nil, cancelledError("Dequeue", ctx.Err())
			}
			continue
		}
		start := time.Now()
		m, err := q.fetch(ctx)
		switch {
		case m != nil:
			q.link.up()
			if err := q.checkUnit(m); err != nil {
				return nil, err
			}
			return m, nil
		case ctx.Err() != nil:
			return nil, cancelledError("Dequeue", ctx.Err())
		case err != nil && !transient(err):
			return nil, q.errorf("Dequeue: fetch: %w", err)
		case err != nil:
			// The server is away; wait before asking again rather than
			// spin through failing requests.
			q.link.failed(start, err)
			if err := q.link.unreachable("Dequeue"); err != nil {
				return nil, q.errorf("%w", err)
			}
			if !sleep(ctx, q.cfg.poll, nil) {
				return nil, cancelledError("Dequeue", ctx.Err())
			}
			continue
		}
		// Nothing came: the queue is empty, or at its end. Asking also
		// finds a server that stopped answering without closing the
		// connection, as an empty fetch cannot tell.
		if q.cfg.endDelivered {
			// A unit a cancelled call of this handle's is handing back
			// is on its way to the server, to be delivered again. And
			// only the server's own answer that it has nothing says so:
			// the NATS client ends a request it heard nothing of a second
			// after its expiry, as it ends one the server let expire, so
			// a request that took that long may have gone unanswered (a
			// server partitioned away), and proves nothing.
			answered := time.Since(start) < q.pullWait()+maxPull/2
			if closedSeen && answered && q.handingBack.Load() == 0 {
				return nil, errEOF
			}
			var err error
			if closedSeen, err = q.isClosed(ctx, "Dequeue"); err != nil {
				return nil, err
			}
			continue
		}
		eof, err := q.drained(ctx)
		switch {
		case err != nil:
			return nil, err
		case eof:
			return nil, errEOF
		}
	}
}

// checkUnit checks a delivered message with decodeUnit. A message that is
// not a unit of this queue is terminated, so that it is not delivered
// again, and reported with its stream sequence.
func (q *Queue) checkUnit(m jetstream.Msg) error {
	var id string
	if h := m.Headers(); h != nil {
		id = h.Get(jetstream.MsgIDHeader)
	}
	_, err := q.n.decodeUnit(m.Subject(), id, m.Data())
	if err == nil {
		return nil
	}
	seq := "?"
	if md, merr := m.Metadata(); merr == nil {
		seq = strconv.FormatUint(md.Sequence.Stream, 10)
	}
	m.TermWithReason("not a sluice unit of this queue")
	return q.errorf("Dequeue: message %s of stream %s: %w", seq, q.n.stream, err)
}

func (q *Queue) usable(ctx context.Context) error {
	if err := q.ended("Dequeue"); err != nil {
		return err
	}
	if ctx.Err() != nil {
		return cancelledError("Dequeue", ctx.Err())
	}
	return nil
}

// maxPull bounds the life of a pull request, and so how long one that a
// cancelled dequeue left behind keeps running (see fetch, Stop).
const maxPull = time.Second

// pullWait is how long a pull request waits at the server for a unit.
func (q *Queue) pullWait() time.Duration { return min(q.cfg.poll, maxPull) }

// fetch waits up to one poll interval, and at most maxPull, for a unit.
// It returns nil, nil if none came.
//
// The pull request's lifetime is the server's to end (FetchMaxWait), never
// the client's: a request the client gave up on, by a deadline of its own,
// may still be served by the server, which cannot know, and the unit it
// sends would be dropped by the client and stay delivered, out of reach,
// until AckWait, then come back out of its order. Likewise a call
// cancelled while its request is out returns at once but leaves the
// request to run to its end, handing back whatever it brings.
//
// One client-side limit remains, the NATS client's own: it stops
// listening one second after the request's expiry by its clock. A
// process stalled longer than that (seen only on a 2-core machine running
// the race-enabled test suite beside it, audit 55) can miss a unit the
// server sent just in time, which then comes back after AckWait.
func (q *Queue) fetch(ctx context.Context) (jetstream.Msg, error) {
	batch, err := q.cons.Fetch(1, jetstream.FetchMaxWait(q.pullWait()))
	if err != nil {
		return nil, err
	}
	select {
	case m, ok := <-batch.Messages():
		switch {
		case ok && ctx.Err() != nil:
			// Cancelled as the unit arrived: hand it back at once so the
			// queue is as if this call had not been made.
			m.Nak()
			return nil, nil
		case ok:
			return m, nil
		}
	case <-ctx.Done():
		q.handingBack.Add(1)
		q.fetches.Go(func() {
			defer q.handingBack.Add(-1)
			for m := range batch.Messages() {
				m.Nak()
			}
		})
		return nil, nil
	}
	// The request ended with no unit: the server's expiry, or an error.
	if err := batch.Error(); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return nil, err
	}
	return nil, nil
}

// drained reports end of input: the closed flag is set, no unit is
// pending, and every unacknowledged unit is held by this handle (a
// request taking several holds those it has taken). Units this handle holds
// are being read by its own workers, who have no further use for the
// queue if they die, so waiting for them could only wait forever; units
// held by other workers may still come back if those workers die.
func (q *Queue) drained(ctx context.Context) (bool, error) {
	closed, err := q.isClosed(ctx, "Dequeue")
	if err != nil || !closed {
		return false, err
	}
	var stored, held int
	err = q.request(ctx, "Dequeue", "stream info", nil, func(ctx context.Context) (err error) {
		if stored, err = q.stored(ctx); err != nil {
			return err
		}
		if stored > q.heldCount() && q.mayDrop() {
			swept, err := q.sweepDropped(ctx)
			if stored -= swept; err != nil {
				return err
			}
		}
		if stored > q.heldCount() {
			held = q.heldCount()
			return nil
		}
		held, err = q.heldInStream(ctx)
		return err
	})
	if err != nil {
		return false, err
	}
	// Units held here are in the stream until acknowledged; anything more
	// is pending or held by another worker. The units held here are
	// counted after the stream's: once closed, the stream only shrinks,
	// so a count taken before is at least the stream's now. Counted
	// first, a unit another reader of this handle acknowledged in between
	// left the stream but not the count of those held here, and the
	// stream could seem to hold only them while another worker held a
	// unit (audit 38).
	return stored <= held, nil
}

// heldInStream returns how many of the units this handle holds the stream
// still has. One whose WorkDone was cancelled, or timed out, after its
// ack reached the server is held still (WorkDone cannot know it was
// acknowledged) but is gone from the stream: counted, it would make a
// unit another worker holds look like one of this handle's, and end the
// input early (audit 55). Asked only when end of input is in sight, of
// the few units a handle holds.
func (q *Queue) heldInStream(ctx context.Context) (int, error) {
	q.mu.Lock()
	var ms []jetstream.Msg
	for _, held := range q.held {
		ms = append(ms, held...)
	}
	q.mu.Unlock()
	n := len(ms)
	for _, m := range ms {
		md, err := m.Metadata()
		if err != nil {
			continue // not a delivery of the stream's: counted, to be safe
		}
		if _, err := q.strm.GetMsg(ctx, md.Sequence.Stream); errors.Is(err, jetstream.ErrMsgNotFound) {
			n--
		} else if err != nil {
			return 0, err
		}
	}
	return n, nil
}

// heldCount returns the units this handle holds.
func (q *Queue) heldCount() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.nheld
}
