package natsqueue

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/sluiceml/sluice/queue"
)

// kind is the queue kind in TensorFlow's messages: to a worker the queue
// behaves as the FIFOQueue that string_input_producer makes.
const kind = "FIFOQueue"

// errStopped is a call on a handle after Stop.
var errStopped = errors.New("queue handle is stopped")

// ended returns the error of a call op on a handle that Stop ended, or
// whose connection is closed for good (a caller's, closed; the one Dial
// made, closed by Stop), and nil otherwise. A closed connection does not
// reconnect: waiting for it, as for a server away, would only wait until
// UnreachableAfter.
func (q *Queue) ended(op string) error {
	q.mu.Lock()
	stopped := q.stopped
	q.mu.Unlock()
	switch {
	case stopped:
		return q.errorf("%s: %w", op, errStopped)
	case q.link.nc != nil && q.link.nc.IsClosed():
		return q.errorf("%s: %w", op, nats.ErrConnectionClosed)
	}
	return nil
}

// errorf prefixes an error with the queue's name.
func (q *Queue) errorf(format string, args ...any) error {
	return fmt.Errorf("natsqueue %q: "+format, append([]any{q.name}, args...)...)
}

// closedError is an enqueue into a closed queue, in TensorFlow's words.
func (q *Queue) closedError() error {
	return fmt.Errorf("%s '%s' is closed.: %w", kind, q.name, queue.ErrClosed)
}

func (q *Queue) alreadyClosed() error {
	return fmt.Errorf("Queue '%s' is already closed.: %w", q.name, queue.ErrClosed)
}

// eofError is TensorFlow's OutOfRange for a dequeue that the closed and
// drained queue cannot serve.
func (q *Queue) eofError(requested, size int) error {
	return fmt.Errorf("%s '%s' is closed and has insufficient elements (requested %d, current size %d): %w",
		kind, q.name, requested, size, io.EOF)
}

func cancelledError(op string, cause error) error {
	return fmt.Errorf("%s operation was cancelled: %w", op, cause)
}

func invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{queue.ErrInvalidArgument}, args...)...)
}

// transient reports whether a failed server request may succeed if tried
// again: the connection is down or reconnecting, the server is restarting
// and its JetStream not yet up, or a request timed out. A caller's own
// cancelled context is checked before this and is never transient.
func transient(err error) bool {
	switch {
	case err == nil, errors.Is(err, nats.ErrConnectionClosed), errors.Is(err, context.Canceled):
		return false
	case errors.Is(err, nats.ErrTimeout),
		errors.Is(err, context.DeadlineExceeded),
		errors.Is(err, nats.ErrNoResponders),
		errors.Is(err, nats.ErrDisconnected),
		errors.Is(err, nats.ErrConnectionReconnecting),
		errors.Is(err, nats.ErrConnectionDraining),
		errors.Is(err, jetstream.ErrNoHeartbeat),
		errors.Is(err, jetstream.ErrJetStreamNotEnabled),
		errors.Is(err, jetstream.ErrJetStreamNotEnabledForAccount),
		errors.Is(err, jetstream.ErrServerShutdown),
		errors.Is(err, jetstream.ErrConsumerLeadershipChanged):
		return true
	}
	var api *jetstream.APIError
	return errors.As(err, &api) && api.Code == 503 // JetStream temporarily unavailable
}

// sleep waits d, or less if ctx ends or stop is closed; it reports whether
// the whole wait passed.
func sleep(ctx context.Context, d time.Duration, stop <-chan struct{}) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
	case <-stop:
	}
	return false
}
