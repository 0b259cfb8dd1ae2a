package natsqueue

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tensor"
)

// A Queue is one worker's handle on a shared queue of string work units
// kept in a JetStream stream. Any number of handles, in any number of
// processes, may open the same queue name and epoch; they then share its
// units, its capacity and its closed flag. A Queue implements queue.Queue
// and Acker, and its methods are safe for concurrent use.
type Queue struct {
	name  string
	cfg   config
	n     names
	js    jetstream.JetStream
	strm  jetstream.Stream
	cons  jetstream.Consumer
	kv    jetstream.KeyValue
	owned *nats.Conn // closed by Stop when Dial made it
	link  *link

	fetches     sync.WaitGroup // fetches given up by cancelled dequeues
	handingBack atomic.Int32   // those of them not ended

	closed atomic.Bool // the closed flag, once seen set (it is never cleared)

	mu        sync.Mutex
	held      map[string][]jetstream.Msg // delivered, unacked units by content
	nheld     int
	hbStop    chan struct{} // closed to stop the running heartbeat, nil if none runs
	stopped   bool
	seen      map[string]int // enqueues of each content through this handle
	credit    int            // units that fit before the capacity is read again
	enqueuing int            // enqueue calls under way
	enqIdle   chan struct{}  // closed when enqueuing drops to 0
	closing   bool           // a Close waits or has run
	cancel    chan struct{}  // closed by a CloseNow
	cancelled bool
}

var _ queue.Queue = (*Queue)(nil)

// New opens the queue name, epoch 0 unless Epoch says otherwise,
// creating its stream, its epoch's durable consumer and the bucket of
// closed flags if they do not exist yet. Every worker of a job calls New
// with the same name and epoch; existing objects are used as they are,
// except that the consumer's AckWait and MaxDeliver are set to this
// call's. A server that does not answer for UnreachableAfter fails it
// with an error wrapping ErrUnreachable.
func New(ctx context.Context, js jetstream.JetStream, name string, opts ...Option) (*Queue, error) {
	c := defaults()
	for _, o := range opts {
		o(&c)
	}
	if err := c.check(name); err != nil {
		return nil, err
	}
	q := &Queue{
		name: name, cfg: c, n: newNames(name, c.epoch, &c), js: js,
		held: map[string][]jetstream.Msg{}, seen: map[string]int{},
		cancel: make(chan struct{}),
		link:   newLink(js.Conn(), c.unreachable),
	}
	if err := q.request(ctx, "opening", "", nil, q.setup); err != nil {
		return nil, err
	}
	return q, nil
}

// Dial connects to the NATS server or cluster at url (nats.DefaultURL if
// empty) and opens the queue there. The connection reconnects forever
// after a server restart; Stop closes it. NATSOptions passes
// credentials, TLS and other options to the connection. A server that
// cannot be reached at all fails Dial at once with an error wrapping
// ErrUnreachable: none listens at url, its host is unknown, or it does
// not answer within the connection's timeout (nats.Timeout, two seconds
// by default).
func Dial(ctx context.Context, url, name string, opts ...Option) (*Queue, error) {
	if url == "" {
		url = nats.DefaultURL
	}
	c := defaults()
	for _, o := range opts {
		o(&c)
	}
	nopts := append([]nats.Option{nats.MaxReconnects(-1), nats.ReconnectWait(250 * time.Millisecond)}, c.natsOpts...)
	nc, err := nats.Connect(url, nopts...)
	// No server listening, a host unknown or a server that does not
	// answer in time: the network's errors, not the server's refusal.
	var netErr net.Error
	if errors.Is(err, nats.ErrNoServers) || errors.As(err, &netErr) {
		return nil, fmt.Errorf("natsqueue %q: connecting to %s: %w: %w", name, url, ErrUnreachable, err)
	}
	if err != nil {
		return nil, fmt.Errorf("natsqueue %q: connecting to %s: %w", name, url, err)
	}
	// The async publish timeout resolves the acks a server restart lost,
	// so they do not stay pending in the client (see publishRun).
	js, err := jetstream.New(nc, jetstream.WithPublishAsyncTimeout(2*ackWait))
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("natsqueue %q: %w", name, err)
	}
	q, err := New(ctx, js, name, opts...)
	if err != nil {
		nc.Close()
		return nil, err
	}
	q.owned = nc
	return q, nil
}

func (q *Queue) setup(ctx context.Context) error {
	var err error
	q.strm, err = q.js.Stream(ctx, q.n.stream)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		q.strm, err = q.js.CreateStream(ctx, jetstream.StreamConfig{
			Name:        q.n.stream,
			Description: "sluice work queue " + q.name,
			Subjects:    []string{q.n.subjects},
			// Work-queue retention: an acked unit is deleted, so the
			// stream holds exactly the units not yet finished.
			Retention:  jetstream.WorkQueuePolicy,
			Storage:    q.cfg.storage,
			Replicas:   q.cfg.replicas,
			Duplicates: q.cfg.dupWindow,
		})
		if errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
			q.strm, err = q.js.Stream(ctx, q.n.stream) // another worker made it first
		}
	}
	if err != nil {
		return fmt.Errorf("stream %s: %w", q.n.stream, err)
	}
	q.cons, err = q.js.CreateOrUpdateConsumer(ctx, q.n.stream, jetstream.ConsumerConfig{
		Durable:       q.n.consumer,
		Description:   fmt.Sprintf("sluice work queue %s, epoch %d", q.name, q.cfg.epoch),
		FilterSubject: q.n.subject,
		DeliverPolicy: jetstream.DeliverAllPolicy,
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       q.cfg.ackWait,
		MaxDeliver:    q.cfg.maxDeliver,
		MaxAckPending: -1, // every worker may hold a unit, however many there are
	})
	if err != nil {
		return fmt.Errorf("consumer %s: %w", q.n.consumer, err)
	}
	q.kv, err = q.js.KeyValue(ctx, q.n.bucket)
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		q.kv, err = q.js.CreateKeyValue(ctx, jetstream.KeyValueConfig{
			Bucket:      q.n.bucket,
			Description: "closed flags of sluice work queues",
			Storage:     q.cfg.storage,
			Replicas:    q.cfg.replicas,
		})
		if errors.Is(err, jetstream.ErrBucketExists) {
			q.kv, err = q.js.KeyValue(ctx, q.n.bucket)
		}
	}
	if err != nil {
		return fmt.Errorf("bucket %s: %w", q.n.bucket, err)
	}
	return nil
}

// Name returns the queue's name.
func (q *Queue) Name() string { return q.name }

// Epoch returns the epoch the queue serves.
func (q *Queue) Epoch() int { return q.cfg.epoch }

// DTypes returns the one component type, tensor.String.
func (q *Queue) DTypes() []tensor.DType { return []tensor.DType{tensor.String} }

// Shapes returns the one component shape, a scalar.
func (q *Queue) Shapes() []tensor.Shape { return []tensor.Shape{{}} }

// Names returns nil: the component is unnamed.
func (q *Queue) Names() []string { return nil }

// Capacity returns the most units the queue holds, delivered and
// unacknowledged ones included.
func (q *Queue) Capacity() int { return q.cfg.capacity }

// A State is a queue's content as the server sees it.
type State struct {
	Pending int  // units not delivered to any worker
	Unacked int  // units delivered and not yet acknowledged
	Closed  bool // the closed flag is set
}

// State asks the server for the queue's content and closed flag. It is
// how a Queue reports its size, which is not known without asking: a
// Queue is not a queue.Sizer. Pending counts units as soon as their
// enqueue has returned; units delivered and not yet acknowledged are
// Unacked, not Pending, as a dequeued element is not in an in-process
// queue.
func (q *Queue) State(ctx context.Context) (State, error) {
	var stored int
	var info *jetstream.ConsumerInfo
	err := q.request(ctx, "State", "stream and consumer info", nil, func(ctx context.Context) (err error) {
		// The stream's count is current as soon as a publish is
		// confirmed; the consumer's pending count lags it, its
		// ack-pending count does not (a delivery is recorded before the
		// message is sent).
		if stored, err = q.stored(ctx); err != nil {
			return err
		}
		if q.mayDrop() {
			// Units given up on are in the stream but in no count.
			swept, err := q.sweepDropped(ctx)
			if err != nil {
				return err
			}
			stored -= swept
		}
		info, err = q.cons.Info(ctx)
		return err
	})
	if err != nil {
		return State{}, err
	}
	closed, err := q.isClosed(ctx, "State")
	if err != nil {
		return State{}, err
	}
	return State{Pending: max(0, stored-info.NumAckPending), Unacked: info.NumAckPending, Closed: closed}, nil
}

// stored returns the number of units the stream holds for this epoch:
// with work-queue retention, those pending and those delivered and not yet
// acknowledged. The stream counts a unit as soon as its publish is
// confirmed, whereas the consumer's counts follow a moment later, so
// capacity and end of input are judged by this count.
func (q *Queue) stored(ctx context.Context) (int, error) {
	info, err := q.strm.Info(ctx, jetstream.WithSubjectFilter(q.n.subject))
	if err != nil {
		return 0, err
	}
	return int(info.State.Subjects[q.n.subject]), nil
}

// Stop ends this handle's part in the queue without touching the queue:
// it stops the heartbeats of the units it holds, which the server
// therefore redelivers to other workers after AckWait, as if this process
// had died, and closes the connection Dial made. Call ReleaseAll first to
// hand held units back at once. The handle must not be used afterwards.
//
// Stop waits for the pull requests of cancelled dequeues to end (within
// two seconds), so that what they bring is handed back and nothing is
// left running. When ctx ends first it closes the connection at once
// and returns an error wrapping ctx.Err(); a dequeue's pull request still
// out then ends on its own, within two seconds, and what it brings is
// redelivered after AckWait.
func (q *Queue) Stop(ctx context.Context) error {
	q.mu.Lock()
	q.stopped = true
	q.stopHeartbeat()
	q.held = map[string][]jetstream.Msg{}
	q.nheld = 0
	q.mu.Unlock()
	// A dequeue cancelled while its pull request was out left a goroutine
	// to hand back what the request may yet bring; it ends when the
	// server ends the request, within maxPull and a second.
	fetched := make(chan struct{})
	go func() {
		q.fetches.Wait()
		close(fetched)
	}()
	var err error
	select {
	case <-fetched:
	case <-ctx.Done():
		err = fmt.Errorf("natsqueue: stop %s: %w", q.name, ctx.Err())
	}
	if q.owned != nil {
		q.owned.Close()
	}
	return err
}
