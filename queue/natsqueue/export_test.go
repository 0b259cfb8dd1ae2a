package natsqueue

import "time"

// SetAckWait shortens how long a run's async acks are awaited, for tests
// that lose them, and returns a function restoring it.
func SetAckWait(d time.Duration) (restore func()) {
	old := ackWait
	ackWait = d
	return func() { ackWait = old }
}
