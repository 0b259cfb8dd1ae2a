package natsqueue

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
)

// ErrUnreachable is wrapped by the error of every call made once the NATS
// server has not answered for the time UnreachableAfter sets. The
// error's text names the server's URL and how long it has been silent.
var ErrUnreachable = errors.New("NATS server unreachable")

// link keeps track of whether the server answers, for all the calls of one
// handle: the calls retry the server's transient errors (a lost
// connection, a restart) only while the server has been silent for less
// than the configured time, counted from the first failure that no
// success has followed.
type link struct {
	nc    *nats.Conn
	url   string        // the server's URL as errors print it
	after time.Duration // silence after which calls give up

	mu   sync.Mutex
	down time.Time // since when the server has not answered; zero while it does
	last error     // the latest failure while down
}

func newLink(nc *nats.Conn, after time.Duration) *link {
	l := &link{nc: nc, after: after}
	if nc != nil {
		l.url = nc.ConnectedUrlRedacted()
		if l.url == "" {
			if s := nc.Servers(); len(s) > 0 {
				l.url = s[0]
			}
		}
	}
	if l.url == "" {
		l.url = "(unknown URL)"
	}
	return l
}

// up records an answer from the server.
func (l *link) up() {
	l.mu.Lock()
	l.down, l.last = time.Time{}, nil
	l.mu.Unlock()
}

// failed records a request started at start that failed with a transient
// error.
func (l *link) failed(start time.Time, err error) {
	l.mu.Lock()
	if l.down.IsZero() || start.Before(l.down) {
		l.down = start
	}
	l.last = err
	l.mu.Unlock()
}

// connected reports whether the connection is up, recording the server
// silent from now if it is not: a request sent while the client
// reconnects would wait in its buffer, and a pull request would be served
// after the fetch waiting for it gave up.
func (l *link) connected() bool {
	if l.nc == nil || l.nc.IsConnected() {
		return true
	}
	l.failed(time.Now(), fmt.Errorf("connection %s", strings.ToLower(l.nc.Status().String())))
	return false
}

// unreachable returns the error of a call op once the server has been
// silent for the configured time, and nil before.
func (l *link) unreachable(op string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.down.IsZero() {
		return nil
	}
	d := time.Since(l.down)
	if d < l.after {
		return nil
	}
	return fmt.Errorf("%s: %w: no answer from %s for %v (last error: %w)",
		op, ErrUnreachable, l.url, d.Round(time.Millisecond), l.last)
}

// attemptTimeout bounds one request to the server, so that a call whose
// context has no deadline still notices a server that stopped answering.
// JetStream's own default for requests is the same.
const attemptTimeout = 5 * time.Second

// request runs f, one request to the server (what it asks for, in
// errors), until it succeeds, ctx ends, stop is closed, or the server has
// been unreachable for the configured time; an error that trying again
// would not mend ends it at once. Each attempt has its own timeout. The
// error returned is ready for the caller of op: it names the queue, or is
// TensorFlow's cancelled error.
func (q *Queue) request(ctx context.Context, op, what string, stop <-chan struct{}, f func(context.Context) error) error {
	for {
		if ctx.Err() != nil {
			return cancelledError(op, ctx.Err())
		}
		if err := q.ended(op); err != nil {
			return err
		}
		if q.link.connected() {
			start := time.Now()
			actx, cancel := context.WithTimeout(ctx, min(attemptTimeout, q.cfg.unreachable))
			err := f(actx)
			cancel()
			switch {
			case err == nil:
				q.link.up()
				return nil
			case ctx.Err() != nil:
				return cancelledError(op, ctx.Err())
			case !transient(err) && what == "":
				return q.errorf("%s: %w", op, err)
			case !transient(err):
				return q.errorf("%s: %s: %w", op, what, err)
			}
			q.link.failed(start, err)
		}
		if err := q.link.unreachable(op); err != nil {
			return q.errorf("%w", err)
		}
		if !sleep(ctx, q.cfg.poll, stop) {
			if ctx.Err() != nil {
				return cancelledError(op, ctx.Err())
			}
			return errStop
		}
	}
}

// errStop is request's error when its stop channel closed.
var errStop = errors.New("stopped")
