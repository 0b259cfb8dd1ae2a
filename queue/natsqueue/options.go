package natsqueue

import (
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/sluiceml/sluice/queue"
)

// config is what the options set.
type config struct {
	capacity   int
	epoch      int
	ackWait    time.Duration
	heartbeat  time.Duration
	poll       time.Duration
	dupWindow  time.Duration
	stream     string
	bucket     string
	storage    jetstream.StorageType
	replicas   int
	maxDeliver int
	// endDelivered ends the input once every unit is delivered
	// (EndWhenDelivered).
	endDelivered bool

	unreachable time.Duration
	natsOpts    []nats.Option
}

func defaults() config {
	return config{
		capacity:  32, // string_input_producer's default
		ackWait:   30 * time.Second,
		poll:      200 * time.Millisecond,
		dupWindow: time.Hour,
		storage:   jetstream.FileStorage,
		replicas:  1,

		unreachable: 20 * time.Second,
	}
}

// An Option configures a queue.
type Option func(*config)

// Capacity sets how many units the queue holds, counting those
// delivered to a worker and not yet acknowledged (default 32). Enqueue
// blocks while the epoch's consumer has that many.
func Capacity(n int) Option { return func(c *config) { c.capacity = n } }

// Epoch selects the epoch (default 0). Each epoch of a queue name has
// its own subject, durable consumer, closed flag and message IDs inside the
// queue's one stream, so the workers of epoch 3 share one queue and never
// see epoch 2's units.
func Epoch(epoch int) Option { return func(c *config) { c.epoch = epoch } }

// AckWait sets the consumer's AckWait (default 30s): how long the
// server waits for a delivered unit's ack, or a heartbeat, before it
// redelivers the unit to another worker. It is the time a dead worker's
// unit stays unavailable.
func AckWait(d time.Duration) Option { return func(c *config) { c.ackWait = d } }

// Heartbeat sets how often a worker tells the server it is still
// working on the units it holds (default AckWait/3); a negative value turns
// the heartbeat off, so that a unit held longer than AckWait is
// redelivered.
func Heartbeat(d time.Duration) Option { return func(c *config) { c.heartbeat = d } }

// PollInterval sets how often blocked calls look at the queue's state:
// a full queue for room, an empty one for its closed flag (default 200ms).
// Units themselves arrive without polling. A blocked Dequeue looks at
// least every second, which is how long its pull requests last.
func PollInterval(d time.Duration) Option { return func(c *config) { c.poll = d } }

// DuplicateWindow sets the stream's de-duplication window (default one
// hour) when this call creates the stream: two enqueues of the same unit
// for the same epoch are merged if they are this close in time.
func DuplicateWindow(d time.Duration) Option { return func(c *config) { c.dupWindow = d } }

// Stream names the stream (default "SLUICE_" and the queue's name). A
// stream holds the epochs of one queue name only.
func Stream(name string) Option { return func(c *config) { c.stream = name } }

// Bucket names the key-value bucket of closed flags (default
// "sluice_queues"), which any number of queues share.
func Bucket(name string) Option { return func(c *config) { c.bucket = name } }

// Storage sets the storage of a stream and bucket this call creates
// (default jetstream.FileStorage, which survives a server restart).
func Storage(s jetstream.StorageType) Option { return func(c *config) { c.storage = s } }

// Replicas sets the replicas of a stream and bucket this call creates
// (default 1), for a clustered server.
func Replicas(n int) Option { return func(c *config) { c.replicas = n } }

// MaxDeliver caps how often a unit is delivered (default unlimited);
// a unit that kills every worker that reads it is then dropped. JetStream
// keeps such a message in the stream; the queue deletes it the next time
// a handle asks for room, its State or the end of input, so that it takes
// no room and the epoch still ends. Nothing records the drop: a reader
// that must account for every unit leaves MaxDeliver unlimited.
func MaxDeliver(n int) Option { return func(c *config) { c.maxDeliver = n } }

// EndWhenDelivered makes Dequeue, DequeueMany and DequeueUpTo report the
// end of input (io.EOF) once the queue is closed and a pull request,
// made after the flag was seen, has the server's answer that it has no
// unit to deliver (not a silence the client gave up on): they do not
// wait, as they do by default, for the units other workers hold, which
// come back to the queue only if their worker dies (after AckWait), for
// whichever worker asks then. It is for workers that must not wait for
// each other's units: in synchronous training, a worker that waits for
// a unit another holds, while the other waits for it at the next step,
// never goes on.
func EndWhenDelivered() Option { return func(c *config) { c.endDelivered = true } }

// UnreachableAfter sets how long the server may stay silent (the
// connection lost, requests unanswered) before every call fails with an
// error wrapping ErrUnreachable (default 20s). Until then calls retry,
// so that a server restart or a cluster's leader election goes unnoticed.
//
// The default outlasts a restart of a server or of a cluster's node (a
// few seconds) and JetStream's own request timeout (5s) several times
// over, and is shorter than the default AckWait (30s): a worker cut off
// from the server fails, and its caller can stop reading, before the
// server hands that worker's units to the others.
func UnreachableAfter(d time.Duration) Option {
	return func(c *config) { c.unreachable = d }
}

// NATSOptions adds options to the connection Dial makes, after its
// own (reconnect forever, every 250ms), which they may override: user
// credentials and TLS for a secured server, for instance
//
//	natsqueue.NATSOptions(
//		nats.UserCredentials("worker.creds"),
//		nats.RootCAs("ca.pem"),
//		nats.ClientCert("worker-cert.pem", "worker-key.pem"))
//
// New, given a connection made by its caller, ignores them.
func NATSOptions(opts ...nats.Option) Option {
	return func(c *config) { c.natsOpts = append(c.natsOpts, opts...) }
}

func (c *config) check(name string) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("natsqueue %q: %s: %w", name, fmt.Sprintf(format, args...), queue.ErrInvalidArgument)
	}
	switch {
	case name == "":
		return fmt.Errorf("natsqueue: a queue needs a name: %w", queue.ErrInvalidArgument)
	case c.capacity <= 0:
		return bad("capacity must be positive, not %d", c.capacity)
	case c.epoch < 0:
		return bad("epoch must not be negative, not %d", c.epoch)
	case c.ackWait <= 0:
		return bad("AckWait must be positive, not %v", c.ackWait)
	case c.poll <= 0:
		return bad("poll interval must be positive, not %v", c.poll)
	case c.unreachable <= 0:
		return bad("the time before the server counts as unreachable must be positive, not %v", c.unreachable)
	case c.heartbeat >= c.ackWait:
		return bad("heartbeat %v must be shorter than AckWait %v", c.heartbeat, c.ackWait)
	}
	if c.heartbeat == 0 {
		c.heartbeat = c.ackWait / 3
	}
	return nil
}
