package natsqueue

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/sluiceml/sluice/queue"
)

// An Acker is a queue whose dequeued work units stay assigned to the
// worker that took them until it reports them finished. It has the method
// set of recordio.WorkAcker, which this package cannot name (records sit
// above queues), so a recordio.Reader on a Queue acknowledges each unit
// by itself: it calls WorkDone after the format has closed the unit
// (Format.OnWorkFinished) and before it takes the next one.
//
// A reader should also call WorkDone for a unit it drops because it
// cannot open it (OnWorkStarted fails), or Release it: until then the
// handle holds the unit, sends heartbeats for it, and the epoch cannot
// end for the other workers.
type Acker interface {
	// WorkDone reports that the worker finished unit, a string it
	// dequeued. A shared queue then forgets the unit for good.
	WorkDone(ctx context.Context, unit string) error
}

var _ Acker = (*Queue)(nil)

// hold records a delivered unit as this handle's and starts the heartbeat
// if it is the first.
func (q *Queue) hold(m jetstream.Msg) {
	q.mu.Lock()
	defer q.mu.Unlock()
	u := string(m.Data())
	q.held[u] = append(q.held[u], m)
	q.nheld++
	if q.hbStop == nil && q.cfg.heartbeat > 0 && !q.stopped {
		q.hbStop = make(chan struct{})
		go q.heartbeat(q.hbStop)
	}
}

// unhold takes the oldest held delivery of unit, or nil.
func (q *Queue) unhold(unit string) jetstream.Msg {
	q.mu.Lock()
	defer q.mu.Unlock()
	ms := q.held[unit]
	if len(ms) == 0 {
		return nil
	}
	m := ms[0]
	if len(ms) == 1 {
		delete(q.held, unit)
	} else {
		q.held[unit] = ms[1:]
	}
	q.nheld--
	if q.nheld == 0 {
		q.stopHeartbeat()
	}
	return m
}

// unholdDelivery stops holding the delivery m, which a failed request
// took, and reports whether it was still held (ReleaseAll or Stop may
// have let go of it meanwhile).
func (q *Queue) unholdDelivery(m jetstream.Msg) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	u := string(m.Data())
	ms := q.held[u]
	i := slices.Index(ms, m)
	if i < 0 {
		return false
	}
	if len(ms) == 1 {
		delete(q.held, u)
	} else {
		q.held[u] = slices.Delete(ms, i, i+1)
	}
	q.nheld--
	if q.nheld == 0 {
		q.stopHeartbeat()
	}
	return true
}

// stopHeartbeat ends the heartbeat goroutine. q.mu is held.
func (q *Queue) stopHeartbeat() {
	if q.hbStop != nil {
		close(q.hbStop)
		q.hbStop = nil
	}
}

// heartbeat tells the server, every heartbeat interval, that this worker
// still works on the units it holds, which resets their AckWait: a unit
// that takes longer than AckWait to read is not redelivered while its
// worker lives, and is redelivered within AckWait once the worker dies.
// It runs only while the handle holds units.
func (q *Queue) heartbeat(stop <-chan struct{}) {
	t := time.NewTicker(q.cfg.heartbeat)
	defer t.Stop()
	var ms []jetstream.Msg
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		ms = ms[:0]
		q.mu.Lock()
		for _, held := range q.held {
			ms = append(ms, held...)
		}
		q.mu.Unlock()
		for _, m := range ms {
			// Fire and forget: a lost heartbeat is made good by the next,
			// and AckWait is several heartbeats long.
			m.InProgress()
		}
	}
}

// WorkDone acknowledges unit, which this handle dequeued: the server
// deletes it, and it counts no more against the capacity or end of input.
// If the handle holds the same content several times, the oldest delivery
// is acknowledged. The acknowledgement is confirmed by the server and
// retried while the server is away (see UnreachableAfter); if ctx
// ends or the server stays unreachable, the unit stays held, though the
// ack may have reached the server: end of input then looks for it in the
// stream rather than count it.
func (q *Queue) WorkDone(ctx context.Context, unit string) error {
	m := q.unhold(unit)
	if m == nil {
		return q.errorf("WorkDone(%q): the unit is not held by this handle: %w", unit, queue.ErrInvalidArgument)
	}
	err := q.request(ctx, "WorkDone", fmt.Sprintf("acknowledging %s", quoteShort([]byte(unit))), nil, m.DoubleAck)
	if err != nil {
		// Not known to be acknowledged: the unit stays held (a retried
		// ack of a unit that was acknowledged is harmless).
		q.hold(m)
	}
	return err
}

// Ack is WorkDone for a dequeued element, a scalar string.
func (q *Queue) Ack(ctx context.Context, e queue.Element) error {
	if len(e) != 1 || e[0].Rank() != 0 || len(e[0].Strings()) != 1 {
		return invalidf("natsqueue %q: Ack takes a dequeued element, a scalar string, not %v", q.name, e)
	}
	return q.WorkDone(ctx, string(e[0].Strings()[0]))
}

// Release hands unit back to the queue unfinished, for another worker to
// take at once (a worker shutting down mid-unit, say). Once the server
// counts as unreachable it fails with ErrUnreachable and the unit stays
// held.
func (q *Queue) Release(unit string) error {
	if !q.link.connected() {
		if err := q.link.unreachable("Release"); err != nil {
			return q.errorf("%w", err)
		}
	}
	m := q.unhold(unit)
	if m == nil {
		return q.errorf("Release(%q): the unit is not held by this handle: %w", unit, queue.ErrInvalidArgument)
	}
	// While the client reconnects the nak waits in its buffer and is
	// sent when it reconnects.
	if err := m.Nak(); err != nil {
		return q.errorf("Release(%q): %w", unit, err)
	}
	return nil
}

// ReleaseAll hands back every unit this handle holds.
func (q *Queue) ReleaseAll() error {
	if !q.link.connected() {
		if err := q.link.unreachable("ReleaseAll"); err != nil {
			return q.errorf("%w", err)
		}
	}
	q.mu.Lock()
	var ms []jetstream.Msg
	for _, held := range q.held {
		ms = append(ms, held...)
	}
	q.held = map[string][]jetstream.Msg{}
	q.nheld = 0
	q.stopHeartbeat()
	q.mu.Unlock()
	var first error
	for _, m := range ms {
		if err := m.Nak(); err != nil && first == nil {
			first = fmt.Errorf("natsqueue %q: ReleaseAll: %w", q.name, err)
		}
	}
	return first
}

// Held returns the number of units this handle holds: dequeued and
// neither acknowledged nor released.
func (q *Queue) Held() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.nheld
}
