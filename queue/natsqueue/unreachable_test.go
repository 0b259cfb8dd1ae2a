package natsqueue_test

import (
	"context"
	"errors"
	"net"
	stdstrings "strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/queue/natsqueue"
	"github.com/sluiceml/sluice/tensor"
)

// call is one of a Queue's methods that ask the server, with what the
// test needs of it.
type call struct {
	name string
	do   func(ctx context.Context, q *natsqueue.Queue) error
}

// calls are all the methods of a Queue that ask the server. The queue
// they run on holds the unit "held".
var calls = []call{
	{"Enqueue", func(ctx context.Context, q *natsqueue.Queue) error {
		return q.Enqueue(ctx, queue.Element{tensor.Scalar([]byte("x"))})
	}},
	{"EnqueueMany", func(ctx context.Context, q *natsqueue.Queue) error { return q.EnqueueMany(ctx, strings("x", "y")) }},
	{"EnqueueStrings", func(ctx context.Context, q *natsqueue.Queue) error { return q.EnqueueStrings(ctx, "x") }},
	{"Dequeue", func(ctx context.Context, q *natsqueue.Queue) error { _, err := q.Dequeue(ctx); return err }},
	{"DequeueMany", func(ctx context.Context, q *natsqueue.Queue) error { _, err := q.DequeueMany(ctx, 2); return err }},
	{"DequeueUpTo", func(ctx context.Context, q *natsqueue.Queue) error { _, err := q.DequeueUpTo(ctx, 2); return err }},
	{"WorkDone", func(ctx context.Context, q *natsqueue.Queue) error { return q.WorkDone(ctx, "held") }},
	{"Ack", func(ctx context.Context, q *natsqueue.Queue) error {
		return q.Ack(ctx, queue.Element{tensor.Scalar([]byte("held"))})
	}},
	{"State", func(ctx context.Context, q *natsqueue.Queue) error { _, err := q.State(ctx); return err }},
	{"Close", func(ctx context.Context, q *natsqueue.Queue) error { return q.Close(ctx) }},
	{"Close cancelling", func(ctx context.Context, q *natsqueue.Queue) error { return q.CloseNow(ctx) }},
}

// run runs c and fails the test if it does not return within a generous
// bound: before the fix, the calls waited forever for a dead server.
func run(t *testing.T, ctx context.Context, q *natsqueue.Queue, c call) (error, time.Duration) {
	t.Helper()
	res := make(chan error, 1)
	start := time.Now()
	go func() { res <- c.do(ctx, q) }()
	select {
	case err := <-res:
		return err, time.Since(start)
	case <-time.After(30 * time.Second):
		t.Fatalf("%s still blocked 30s after the server went away", c.name)
		return nil, 0
	}
}

// holding opens a queue on url, by Dial or New, and leaves the unit
// "held" held by it. The channel returned is closed when its connection
// comes back after a loss.
func holding(t *testing.T, url string, dial bool, opts ...natsqueue.Option) (*natsqueue.Queue, <-chan struct{}) {
	t.Helper()
	reconnected := make(chan struct{})
	var once sync.Once
	onReconnect := func(*nats.Conn) { once.Do(func() { close(reconnected) }) }
	opts = append([]natsqueue.Option{natsqueue.PollInterval(50 * time.Millisecond), natsqueue.Capacity(10)}, opts...)
	var q *natsqueue.Queue
	if dial {
		var err error
		opts = append(opts, natsqueue.NATSOptions(nats.ReconnectHandler(onReconnect)))
		if q, err = natsqueue.Dial(bg, url, "unreachable", opts...); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { q.Stop(context.Background()) })
	} else {
		js := connect(t, url)
		js.Conn().SetReconnectHandler(onReconnect)
		q = open(t, js, "unreachable", opts...)
	}
	if err := q.EnqueueStrings(bg, "held", "spare"); err != nil {
		t.Fatal(err)
	}
	if e, err := q.Dequeue(bg); err != nil || str(e) != "held" {
		t.Fatalf("Dequeue = %v, %v", e, err)
	}
	return q, reconnected
}

// With the server gone for good, every call, given no deadline, fails
// once the server has been silent for WithUnreachableAfter, with an
// error wrapping ErrUnreachable that names the server. A server back on
// the same address and store later is used again.
func TestServerGoneEveryCallFails(t *testing.T) {
	for _, dial := range []bool{true, false} {
		t.Run(map[bool]string{true: "Dial", false: "New"}[dial], func(t *testing.T) {
			dir := t.TempDir()
			s := runServer(t, dir, -1)
			url, port := s.ClientURL(), s.Addr().(*net.TCPAddr).Port
			const after = time.Second
			q, reconnected := holding(t, url, dial, natsqueue.UnreachableAfter(after))
			start := time.Now()
			s.Shutdown()
			s.WaitForShutdown()
			for i, c := range calls {
				err, took := run(t, bg, q, c)
				if !errors.Is(err, natsqueue.ErrUnreachable) || !stdstrings.Contains(err.Error(), url) {
					t.Fatalf("%s with the server gone = %v; want an error wrapping ErrUnreachable naming %s", c.name, err, url)
				}
				if i == 0 {
					t.Logf("%s failed %v after the server went away: %v", c.name, took, err)
					if since := time.Since(start); since < after {
						t.Fatalf("%s gave up after %v, before %v", c.name, since, after)
					}
				}
			}
			for _, release := range []func() error{
				func() error { return q.Release("held") },
				q.ReleaseAll,
			} {
				if err := release(); !errors.Is(err, natsqueue.ErrUnreachable) {
					t.Fatalf("Release with the server gone = %v, want ErrUnreachable", err)
				}
			}

			// The server comes back: the handle works again.
			s2, err := newServer(dir, port)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s2.Shutdown(); s2.WaitForShutdown() })
			// Until the client has reconnected, calls still fail at once.
			<-reconnected
			ctx, cancel := context.WithTimeout(bg, 20*time.Second)
			defer cancel()
			if err := q.WorkDone(ctx, "held"); err != nil {
				t.Fatalf("WorkDone with the server back: %v", err)
			}
			// Close(ctx, false) would report the queue closed: the
			// CloseNow above cancelled this handle's enqueues for
			// good, though it could not write the flag.
			if err := q.CloseNow(ctx); err != nil {
				t.Fatalf("Close with the server back: %v", err)
			}
			got, err := drain(ctx, q)
			if err != nil {
				t.Fatalf("Dequeue with the server back: %v", err)
			}
			if len(got) != 1 || got[0] != "spare" {
				t.Fatalf("with the server back the queue held %q, want [spare]", got)
			}
		})
	}
}

// With the server gone, calls blocked waiting for it return promptly when
// their context is cancelled, long before the server counts as
// unreachable.
func TestServerGoneCancelledCallsReturn(t *testing.T) {
	s := runServer(t, t.TempDir(), -1)
	q, _ := holding(t, s.ClientURL(), true, natsqueue.UnreachableAfter(time.Hour))
	s.Shutdown()
	s.WaitForShutdown()
	for _, c := range calls {
		ctx, cancel := context.WithTimeout(bg, 100*time.Millisecond)
		err, took := run(t, ctx, q, c)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("%s with the server gone and a deadline = %v, want context.DeadlineExceeded", c.name, err)
		}
		if took > 10*time.Second {
			t.Fatalf("%s took %v to return after its deadline", c.name, took)
		}
	}
}

// Dial fails at once, with ErrUnreachable, when no server listens.
func TestDialNoServer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "nats://" + ln.Addr().String()
	ln.Close() // nothing listens there now
	_, err = natsqueue.Dial(bg, url, "nobody")
	if !errors.Is(err, natsqueue.ErrUnreachable) || !stdstrings.Contains(err.Error(), url) {
		t.Fatalf("Dial with no server = %v, want ErrUnreachable naming %s", err, url)
	}
}

// Dial fails with ErrUnreachable, within the connection's timeout, when
// what listens at the address never answers as a server.
func TestDialSilentServer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close() // held open, never written to
		}
	}()
	url := "nats://" + ln.Addr().String()
	_, err = natsqueue.Dial(bg, url, "silent", natsqueue.NATSOptions(nats.Timeout(200*time.Millisecond)))
	if !errors.Is(err, natsqueue.ErrUnreachable) || !stdstrings.Contains(err.Error(), url) {
		t.Fatalf("Dial of a silent server = %v, want ErrUnreachable naming %s", err, url)
	}
}

// Every call on a handle whose connection is closed for good (the
// caller's, closed by the caller) fails at once: a closed connection
// does not come back, so waiting for it, as for a server away, waited
// until UnreachableAfter (audit 55).
func TestClosedConnectionCallsFail(t *testing.T) {
	s := runServer(t, t.TempDir(), -1)
	js := connect(t, s.ClientURL())
	q := open(t, js, "closed", natsqueue.PollInterval(20*time.Millisecond), natsqueue.UnreachableAfter(time.Hour))
	if err := q.EnqueueStrings(bg, "held", "spare"); err != nil {
		t.Fatal(err)
	}
	if e, err := q.Dequeue(bg); err != nil || str(e) != "held" {
		t.Fatalf("Dequeue = %v, %v", e, err)
	}
	js.Conn().Close()
	for _, c := range calls {
		if err, took := run(t, bg, q, c); !errors.Is(err, nats.ErrConnectionClosed) || took > 10*time.Second {
			t.Errorf("%s on a closed connection = %v after %v; want nats.ErrConnectionClosed at once", c.name, err, took)
		}
	}
}

// Stop ends an Enqueue waiting for room: the connection Dial made is
// closed, and the enqueue must not wait for it to come back (audit 55).
func TestStopEndsWaitingEnqueue(t *testing.T) {
	s := runServer(t, t.TempDir(), -1)
	q, err := natsqueue.Dial(bg, s.ClientURL(), uniqueName("stopenq"), natsqueue.Capacity(1),
		natsqueue.PollInterval(20*time.Millisecond), natsqueue.UnreachableAfter(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if err := q.EnqueueStrings(bg, "a"); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- q.EnqueueStrings(bg, "b") }()
	time.Sleep(100 * time.Millisecond) // the enqueue waits for room, or will
	if err := q.Stop(bg); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err == nil || !stdstrings.Contains(err.Error(), "stopped") {
			t.Errorf("Enqueue ended by Stop = %v; want an error saying the handle is stopped", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Enqueue still waiting 10s after Stop")
	}
}
