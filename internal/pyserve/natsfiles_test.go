//go:build unix

package pyserve

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	natsserver "github.com/nats-io/nats-server/v2/server"

	"github.com/sluiceml/sluice"
	"github.com/sluiceml/sluice/internal/slowlink"
)

// startNATS runs a JetStream server on a loopback port for the test.
func startNATS(t *testing.T) string {
	t.Helper()
	return startNATSServer(t).ClientURL()
}

func startNATSServer(t *testing.T) *natsserver.Server {
	t.Helper()
	ns, err := natsserver.NewServer(&natsserver.Options{Host: "127.0.0.1", Port: natsserver.RANDOM_PORT, JetStream: true,
		StoreDir: t.TempDir(), NoLog: true, NoSigs: true})
	if err != nil {
		t.Fatal(err)
	}
	go ns.Start()
	if !ns.ReadyForConnections(10 * time.Second) {
		t.Fatal("nats-server did not start")
	}
	t.Cleanup(func() {
		ns.Shutdown()
		ns.WaitForShutdown()
	})
	return ns
}

// An endless iteration over a shared queue keeps a connection for the
// epoch it reads and those whose files it still holds, not one for every
// epoch it has read (audit 46: 400 connections after 400 epochs).
func TestServeSharedQueueEndlessConnections(t *testing.T) {
	ns := startNATSServer(t)
	pat := writeExamples(t, t.TempDir(), 2, 4)
	open := map[string]any{"op": "open", "kind": "examples", "files": []string{pat}, "batch_size": 4, "forever": true,
		"queue_url": ns.ClientURL(), "queue_name": "pyserve_endless",
		"spec": map[string]any{"label": map[string]any{"kind": "fixed", "dtype": "int64"}}}
	c := startServer(t)
	if r := c.call(open); r.Error != nil {
		t.Fatal(r.Error)
	}
	most := 0
	for range 12 * 2 { // 12 epochs of two batches
		if b, r := c.next(); b == nil {
			t.Fatalf("%+v", r)
		}
		most = max(most, ns.NumClients())
	}
	if most > 4 {
		t.Errorf("%d connections to the NATS server while reading 12 epochs, want a few", most)
	}
}

// Two servers given the same queue URL and name share the files: between
// them they read every record once per epoch, neither reading one the
// other read in the same epoch. A second pass (the trainer's next loop over
// the data set) reads the epochs after those of the first.
func TestServeSharedQueue(t *testing.T) {
	url := startNATS(t)
	// Epochs several times what a worker reads ahead (its buffers), as
	// real ones are: a worker opened a moment before another could
	// otherwise take a whole pass's files before the other starts, which
	// then reads the next pass on its own.
	pat := writeExamples(t, t.TempDir(), 6, 200)
	const epochs, total = 2, 6 * 200
	open := map[string]any{"op": "open", "kind": "examples", "files": []string{pat}, "batch_size": 32, "epochs": epochs,
		"readers": 2, "shuffle": 10, "queue_url": url, "queue_name": "pyserve_test",
		"spec": map[string]any{"label": map[string]any{"kind": "fixed", "dtype": "int64"}}}
	clients := []*client{startServer(t), startServer(t)}
	for pass := range 2 {
		for _, c := range clients {
			if r := c.call(open); r.Error != nil {
				t.Fatal(r.Error)
			}
		}
		count := make([]int, total)
		perClient := make([]int, len(clients))
		// The clients ask in turn, as two hosts' trainers would, until
		// both have seen their end.
		live := slices.Clone(clients)
		for n := len(live); n > 0; {
			n = 0
			for i, c := range live {
				if c == nil {
					continue
				}
				b, r := c.next()
				if b == nil {
					if !r.End {
						t.Fatalf("pass %d, client %d: %+v", pass, i, r.Error)
					}
					live[i] = nil
					continue
				}
				n++
				raw := b["label"].raw
				for j := 0; j < len(raw); j += 8 {
					count[binary.LittleEndian.Uint64(raw[j:])]++
					perClient[i]++
				}
			}
		}
		for l, c := range count {
			if c != epochs {
				t.Fatalf("pass %d: label %d read %d times by the two workers, want %d (once per epoch)", pass, l, c, epochs)
			}
		}
		t.Logf("pass %d: records per worker: %v", pass, perClient)
	}
}

// Options that would decide the files beside the queue are errors.
func TestServeSharedQueueConflicts(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  func(o *Open)
	}{
		{"shard", func(o *Open) { o.Shard = []int{0, 2} }},
		{"deterministic", func(o *Open) { o.Deterministic = true }},
		{"global_shuffle", func(o *Open) { o.GlobalShuffle = true }},
		{"no queue_name", func(o *Open) { o.QueueName = "" }},
		{"negative queue_epoch", func(o *Open) { o.QueueEpoch = -1 }},
	} {
		o := &Open{Kind: "examples", Files: []string{"x"}, BatchSize: 1, QueueURL: "nats://127.0.0.1:1", QueueName: "q",
			Spec: map[string]FeatureSpec{"a": {Kind: "fixed", DType: "int64"}}}
		tc.set(o)
		if _, err := newSource(o); !errors.Is(err, sluice.ErrInvalid) {
			t.Errorf("%s: got %v, want ErrInvalid", tc.name, err)
		}
	}
}

// A worker reaches the end of its pass while another still holds a file
// it is not reading on (its trainer waits, as synchronous training waits
// for the slowest worker): the first does not wait for that file, which
// would never come.
func TestServeSharedQueueDoesNotWaitForHeldFiles(t *testing.T) {
	url := startNATS(t)
	pat := writeExamples(t, t.TempDir(), 4, 40)
	open := map[string]any{"op": "open", "kind": "examples", "files": []string{pat}, "batch_size": 4,
		"readers": 1, "queue_url": url, "queue_name": "held",
		"spec": map[string]any{"label": map[string]any{"kind": "fixed", "dtype": "int64"}}}
	count := make([]int, 4*40)
	read := func(c *client, batches int) int {
		n := 0
		for ; batches < 0 || n < batches; n++ {
			b, r := c.next()
			if b == nil {
				if !r.End {
					t.Fatal(r.Error)
				}
				break
			}
			raw := b["label"].raw
			for j := 0; j < len(raw); j += 8 {
				count[binary.LittleEndian.Uint64(raw[j:])]++
			}
		}
		return n
	}
	a := startServer(t)
	if r := a.call(open); r.Error != nil {
		t.Fatal(r.Error)
	}
	read(a, 1) // a has a file, and stops reading it
	b := startServer(t)
	if r := b.call(open); r.Error != nil {
		t.Fatal(r.Error)
	}
	start := time.Now()
	if read(b, -1) == 0 {
		t.Fatal("the second worker read nothing")
	}
	t.Logf("the second worker's pass ended after %v", time.Since(start))
	read(a, -1)
	for l, c := range count {
		if c != 1 {
			t.Fatalf("label %d read %d times, want once", l, c)
		}
	}
}

// A worker that joins after the others' first pass reads their second
// with them, not a pass of its own: passes are aligned.
func TestServeSharedQueueLateJoiner(t *testing.T) {
	url := startNATS(t)
	// Epochs larger than what a worker reads ahead (see
	// TestServeSharedQueue).
	pat := writeExamples(t, t.TempDir(), 4, 300)
	open := map[string]any{"op": "open", "kind": "examples", "files": []string{pat}, "batch_size": 32,
		"readers": 1, "queue_url": url, "queue_name": "late",
		"spec": map[string]any{"label": map[string]any{"kind": "fixed", "dtype": "int64"}}}
	readAll := func(clients ...*client) []int {
		count := make([]int, 4*300)
		for _, c := range clients {
			if r := c.call(open); r.Error != nil {
				t.Fatal(r.Error)
			}
		}
		live := slices.Clone(clients)
		for n := len(live); n > 0; {
			n = 0
			for i, c := range live {
				if c == nil {
					continue
				}
				b, r := c.next()
				if b == nil {
					if !r.End {
						t.Fatal(r.Error)
					}
					live[i] = nil
					continue
				}
				n++
				raw := b["label"].raw
				for j := 0; j < len(raw); j += 8 {
					count[binary.LittleEndian.Uint64(raw[j:])]++
				}
			}
		}
		return count
	}
	a := startServer(t)
	for l, c := range readAll(a) {
		if c != 1 {
			t.Fatalf("the first pass, one worker: label %d read %d times, want once", l, c)
		}
	}
	b := startServer(t)
	for l, c := range readAll(a, b) {
		if c != 1 {
			t.Fatalf("the second pass, with a worker that joined: label %d read %d times, want once", l, c)
		}
	}
}

// A data set of more files than natsqueue's default capacity (32) is
// read: each worker enqueues the whole epoch before it takes a file, and
// the queue held 32, so no worker ever took one (audit 48: a hang).
func TestServeSharedQueueManyFiles(t *testing.T) {
	url := startNATS(t)
	const files = 40
	pat := writeExamples(t, t.TempDir(), files, 1)
	c := startServer(t)
	if r := c.call(map[string]any{"op": "open", "kind": "examples", "files": []string{pat}, "batch_size": 8,
		"queue_url": url, "queue_name": "pyserve_many",
		"spec": map[string]any{"label": map[string]any{"kind": "fixed", "dtype": "int64"}}}); r.Error != nil {
		t.Fatal(r.Error)
	}
	n := 0
	for {
		b, r := c.next()
		if b == nil {
			if !r.End {
				t.Fatalf("after %d records: %+v", n, r.Error)
			}
			break
		}
		n += len(b["label"].raw) / 8
	}
	if n != files {
		t.Errorf("%d records read, want %d", n, files)
	}
}

// A worker whose link to the server is slower than a poll reads every
// file of the epoch once, then its end (audit 55: with a round trip over
// 250 ms it read nothing, each file coming after its dequeue had given up
// and going back to the queue; below that, such a file could end the
// epoch unread).
func TestServeSharedQueueSlowLink(t *testing.T) {
	url := slowlink.Start(t, startNATS(t), 300*time.Millisecond)
	files := []string{"/data/a", "/data/b"}
	q, err := newNATSFiles(&Open{QueueURL: url, QueueName: "slow", Files: files})
	if err != nil {
		t.Fatal(err)
	}
	defer q.stop()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	var got []string
	for {
		e, err := q.Dequeue(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("after %q: %v", got, err)
		}
		f := string(e[0].Strings()[0])
		got = append(got, f)
		if err := q.WorkDone(ctx, f); err != nil {
			t.Fatal(err)
		}
	}
	if slices.Sort(got); !slices.Equal(got, files) {
		t.Fatalf("read %q, want %q once each", got, files)
	}
}

// A worker that finds epochs over before the one it produces enqueues
// that epoch's files in the order the seed and the epoch give, the sorted
// list shuffled, as every worker producing it does: the order used to be
// shuffled again for each epoch found over (audit 55).
func TestServeSharedQueueEpochOrder(t *testing.T) {
	url := startNATS(t)
	var files []string
	for i := range 8 {
		files = append(files, fmt.Sprintf("/data/%d", i))
	}
	seed := uint64(7)
	open := func() *natsFiles {
		q, err := newNATSFiles(&Open{QueueURL: url, QueueName: "order", Files: files, ShuffleFiles: true, Seed: &seed, Forever: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(q.stop)
		return q
	}
	read := func(q *natsFiles, n int) []string {
		var got []string
		for range n {
			e, err := q.Dequeue(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			f := string(e[0].Strings()[0])
			got = append(got, f)
			if err := q.WorkDone(t.Context(), f); err != nil {
				t.Fatal(err)
			}
		}
		return got
	}
	read(open(), 2*len(files)) // epochs 0 and 1
	got := read(open(), len(files))
	want := slices.Clone(files)
	r := rand.New(rand.NewPCG(seed, 2))
	r.Shuffle(len(want), func(i, j int) { want[i], want[j] = want[j], want[i] })
	if !slices.Equal(got, want) {
		t.Fatalf("epoch 2, produced after finding epochs 0 and 1 over: %q, want %q", got, want)
	}
}
