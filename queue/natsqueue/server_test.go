package natsqueue_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/queue/natsqueue"
	"github.com/sluiceml/sluice/tensor"
)

// runServer starts an embedded nats-server with JetStream, storing in dir
// and listening on 127.0.0.1:port (a free port if port is -1). Tests and
// examples never talk to anything outside the process.
func runServer(tb testing.TB, dir string, port int) *server.Server {
	tb.Helper()
	s, err := newServer(dir, port)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Shutdown(); s.WaitForShutdown() })
	return s
}

// restartableServer starts a server as runServer does and returns its
// client URL and a function that shuts it down, waits pause (for clients
// to notice), and starts a new one on the same store and port.
func restartableServer(t *testing.T, pause time.Duration) (url string, restart func()) {
	t.Helper()
	dir := t.TempDir()
	s, err := newServer(dir, -1)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		s.Shutdown()
		s.WaitForShutdown()
	})
	port := s.Addr().(*net.TCPAddr).Port
	return s.ClientURL(), func() {
		mu.Lock()
		defer mu.Unlock()
		s.Shutdown()
		s.WaitForShutdown()
		time.Sleep(pause)
		if s, err = newServer(dir, port); err != nil {
			t.Error(err)
		}
	}
}

func newServer(dir string, port int) (*server.Server, error) {
	s, err := server.NewServer(&server.Options{
		Host: "127.0.0.1", Port: port, JetStream: true, StoreDir: dir,
		NoLog: true, NoSigs: true, MaxPayload: 1 << 20,
	})
	if err != nil {
		return nil, err
	}
	s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		s.Shutdown()
		return nil, fmt.Errorf("nats-server not ready")
	}
	return s, nil
}

// connect returns a JetStream context on a connection that reconnects
// quickly and forever, as a worker's should.
func connect(tb testing.TB, url string) jetstream.JetStream {
	tb.Helper()
	nc, err := nats.Connect(url, nats.MaxReconnects(-1), nats.ReconnectWait(50*time.Millisecond))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		tb.Fatal(err)
	}
	return js
}

// open opens name on js and stops the handle when the test ends.
func open(tb testing.TB, js jetstream.JetStream, name string, opts ...natsqueue.Option) *natsqueue.Queue {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	q, err := natsqueue.New(ctx, js, name, append([]natsqueue.Option{natsqueue.PollInterval(50 * time.Millisecond)}, opts...)...)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { q.Stop(context.Background()) })
	return q
}

var queueNames atomic.Int64

// uniqueName returns a fresh queue name, so tests sharing a server never
// share a queue.
func uniqueName(prefix string) string {
	return fmt.Sprintf("%s-%d", prefix, queueNames.Add(1))
}

func units(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("/data/shard-%05d.tfrecord", i)
	}
	return out
}

func str(e queue.Element) string { return string(e[0].Strings()[0]) }

func isEOF(err error) bool { return errors.Is(err, io.EOF) }

// drain dequeues and acknowledges until end of input and returns the
// units in the order they came.
func drain(ctx context.Context, q *natsqueue.Queue) ([]string, error) {
	var got []string
	for {
		e, err := q.Dequeue(ctx)
		if isEOF(err) {
			return got, nil
		}
		if err != nil {
			return got, err
		}
		got = append(got, str(e))
		if err := q.WorkDone(ctx, str(e)); err != nil {
			return got, err
		}
	}
}

func sorted(s []string) []string { s = slices.Clone(s); slices.Sort(s); return s }

func strings(ss ...string) queue.Element { return queue.Element{tensor.Strings(ss...)} }
