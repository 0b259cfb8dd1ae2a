package natsqueue

import (
	"context"
	"time"
)

// SetAckWait shortens how long a run's async acks are awaited, for tests
// that lose them, and returns a function restoring it.
func SetAckWait(d time.Duration) (restore func()) {
	old := ackWait
	ackWait = d
	return func() { ackWait = old }
}

// Enqueuing returns the number of enqueue calls under way on q, for tests
// that must know that one has begun.
func (q *Queue) Enqueuing() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.enqueuing
}

// Closing reports whether a Close has begun on q.
func (q *Queue) Closing() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.closing
}

// SetFlagReadHook makes f run whenever an enqueue is about to read the
// closed flag, and returns a function removing it.
func SetFlagReadHook(f func(*Queue)) (restore func()) {
	testHookFlagRead = f
	return func() { testHookFlagRead = nil }
}

// AckKeepingHeld acknowledges the oldest delivery of unit that q holds and
// goes on holding it: the state a WorkDone leaves whose ack reached the
// server but whose context ended before the server's reply did.
func (q *Queue) AckKeepingHeld(ctx context.Context, unit string) error {
	q.mu.Lock()
	m := q.held[unit][0]
	q.mu.Unlock()
	return m.DoubleAck(ctx)
}
