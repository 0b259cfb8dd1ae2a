package natsqueue_test

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/queue/natsqueue"
	"github.com/sluiceml/sluice/tensor"
)

var bg = context.Background()

func setup(t *testing.T) (string, func(name string, opts ...natsqueue.Option) *natsqueue.Queue) {
	t.Helper()
	s := runServer(t, t.TempDir(), -1)
	url := s.ClientURL()
	return url, func(name string, opts ...natsqueue.Option) *natsqueue.Queue {
		return open(t, connect(t, url), name, opts...)
	}
}

func TestFIFOSingleConsumer(t *testing.T) {
	_, mk := setup(t)
	q := mk("files", natsqueue.Capacity(100))
	want := units(20)
	if err := q.EnqueueMany(bg, strings(want...)); err != nil {
		t.Fatal(err)
	}
	if got := state(t, q).Pending; got != 20 {
		t.Fatalf("Pending = %d, want 20", got)
	}
	if err := q.Close(bg); err != nil {
		t.Fatal(err)
	}
	got, err := drain(bg, q)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("got %q\nwant %q", got, want)
	}
	if st := state(t, q); q.Held() != 0 || st.Pending != 0 || st.Unacked != 0 {
		t.Fatalf("Held %d, %+v after the drain", q.Held(), st)
	}
}

// state returns q's State, failing the test if the server does not answer.
func state(t *testing.T, q *natsqueue.Queue) natsqueue.State {
	t.Helper()
	st, err := q.State(bg)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestInterface(t *testing.T) {
	_, mk := setup(t)
	q := mk("input_producer/scope name", natsqueue.Capacity(7))
	if q.Name() != "input_producer/scope name" || q.Capacity() != 7 || q.Names() != nil ||
		!slices.Equal(q.DTypes(), []tensor.DType{tensor.String}) || len(q.Shapes()) != 1 || len(q.Shapes()[0]) != 0 {
		t.Fatalf("metadata: %q %d %v %v %v", q.Name(), q.Capacity(), q.Names(), q.DTypes(), q.Shapes())
	}
	// Its size is known only by asking the server: State, not Size.
	if _, ok := any(q).(queue.Sizer); ok {
		t.Error("a natsqueue.Queue claims to be a queue.Sizer")
	}
	for _, bad := range []queue.Element{
		{tensor.Scalar(int32(1))},
		{tensor.Strings("a", "b")},
		{tensor.StringScalar("a"), tensor.StringScalar("b")},
	} {
		if err := q.Enqueue(bg, bad); !errors.Is(err, queue.ErrInvalidArgument) {
			t.Errorf("Enqueue(%v) = %v, want ErrInvalidArgument", bad, err)
		}
	}
	if err := q.EnqueueMany(bg, queue.Element{tensor.StringScalar("a")}); !errors.Is(err, queue.ErrInvalidArgument) {
		t.Errorf("EnqueueMany(scalar) = %v", err)
	}
	if err := q.EnqueueMany(bg, strings()); err != nil {
		t.Errorf("EnqueueMany(empty) = %v", err)
	}
	if e, err := q.DequeueMany(bg, 0); err != nil || e[0].Len() != 0 {
		t.Errorf("DequeueMany(0) = %v, %v", e, err)
	}
	// The units a batch takes count against the capacity until
	// acknowledged: more than it could never be taken whole, and the
	// dequeue and its producers waited for good (audit 38).
	n := q.Capacity() + 1
	if _, err := q.DequeueMany(bg, n); !errors.Is(err, queue.ErrInvalidArgument) || !bytes.Contains([]byte(err.Error()), []byte("more than the queue's capacity")) {
		t.Errorf("DequeueMany(capacity+1) = %v", err)
	}
	if _, err := q.DequeueUpTo(bg, n); !errors.Is(err, queue.ErrInvalidArgument) {
		t.Errorf("DequeueUpTo(capacity+1) = %v", err)
	}
	if err := q.WorkDone(bg, "never dequeued"); !errors.Is(err, queue.ErrInvalidArgument) {
		t.Errorf("WorkDone of an unknown unit = %v", err)
	}
	if _, err := natsqueue.New(bg, nil, "x", natsqueue.Capacity(0)); !errors.Is(err, queue.ErrInvalidArgument) {
		t.Errorf("capacity 0: %v", err)
	}
}

// Several workers, each with its own connection, share one queue: every
// unit goes to exactly one of them.
func TestConsumersShareUnits(t *testing.T) {
	_, mk := setup(t)
	const workers, n = 4, 200
	producer := mk("shared", natsqueue.Capacity(16))
	qs := make([]*natsqueue.Queue, workers)
	for i := range qs {
		qs[i] = mk("shared", natsqueue.Capacity(16))
	}
	var wg sync.WaitGroup
	got := make([][]string, workers)
	errs := make([]error, workers+1)
	for i, q := range qs {
		wg.Go(func() { got[i], errs[i] = drain(bg, q) })
	}
	wg.Go(func() {
		if errs[workers] = producer.EnqueueStrings(bg, units(n)...); errs[workers] == nil {
			errs[workers] = producer.Close(bg)
		}
	})
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	var all []string
	for i, g := range got {
		if len(g) == 0 {
			t.Errorf("worker %d got no unit", i)
		}
		all = append(all, g...)
	}
	if !slices.Equal(sorted(all), units(n)) {
		t.Fatalf("got %d units, want each of %d once", len(all), n)
	}
}

// Two producers enqueue the same epoch's list, each in its own order, one
// of them twice over: the consumer sees every unit once, except a unit
// that the list itself holds twice.
func TestDedupOnDoubleEnqueue(t *testing.T) {
	_, mk := setup(t)
	list := append(units(30), "/data/shard-00007.tfrecord") // listed twice
	a := mk("dedup", natsqueue.Capacity(100))
	b := mk("dedup", natsqueue.Capacity(100))
	shuffled := slices.Clone(list)
	rand.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	if err := a.EnqueueStrings(bg, list...); err != nil {
		t.Fatal(err)
	}
	if err := b.EnqueueStrings(bg, shuffled...); err != nil {
		t.Fatal(err)
	}
	// A producer restarted from scratch repeats its IDs too.
	c := mk("dedup", natsqueue.Capacity(100))
	if err := c.EnqueueStrings(bg, list...); err != nil {
		t.Fatal(err)
	}
	if got := state(t, a).Pending; got != len(list) {
		t.Fatalf("Pending = %d after three enqueues of one list, want %d", got, len(list))
	}
	// Another epoch of the same name is a different queue.
	e1 := mk("dedup", natsqueue.Epoch(1))
	if err := e1.EnqueueStrings(bg, list[:3]...); err != nil {
		t.Fatal(err)
	}
	if got := state(t, e1).Pending; got != 3 {
		t.Fatalf("epoch 1 Pending = %d, want 3", got)
	}
	if err := a.Close(bg); err != nil {
		t.Fatal(err)
	}
	got, err := drain(bg, a)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(sorted(got), sorted(list)) {
		t.Fatalf("got %q\nwant %q", sorted(got), sorted(list))
	}
}

// Enqueue blocks while the queue holds Capacity units, counting those
// delivered and not yet acknowledged, and proceeds once one is finished.
func TestCapacityBlocksThenProceeds(t *testing.T) {
	_, mk := setup(t)
	q := mk("cap", natsqueue.Capacity(3))
	if err := q.EnqueueStrings(bg, "a", "b", "c"); err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(bg, 300*time.Millisecond)
	err := q.EnqueueStrings(short, "d")
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Enqueue into a full queue = %v, want a deadline error", err)
	}
	if _, err := q.Dequeue(bg); err != nil { // "a", held, still counts
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- q.EnqueueStrings(bg, "d") }()
	select {
	case err := <-done:
		t.Fatalf("Enqueue returned %v while an unacked unit fills the queue", err)
	case <-time.After(400 * time.Millisecond):
	}
	if err := q.WorkDone(bg, "a"); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Enqueue still blocked after the ack")
	}
	if err := q.Close(bg); err != nil {
		t.Fatal(err)
	}
	got, err := drain(bg, q)
	if err != nil || !slices.Equal(got, []string{"b", "c", "d"}) {
		t.Fatalf("drain = %q, %v", got, err)
	}
}

// After Close, enqueues fail with ErrClosed on every handle, dequeues
// drain what is left and then report io.EOF with TensorFlow's text.
func TestCloseDrainsThenEOF(t *testing.T) {
	_, mk := setup(t)
	q := mk("filenames")
	other := mk("filenames")
	if err := q.EnqueueStrings(bg, "x", "y"); err != nil {
		t.Fatal(err)
	}
	if state(t, q).Closed {
		t.Fatal("closed before Close")
	}
	if err := q.Close(bg); err != nil {
		t.Fatal(err)
	}
	if err := q.Close(bg); !errors.Is(err, queue.ErrClosed) || err.Error() != "Queue 'filenames' is already closed.: queue is closed" {
		t.Fatalf("second Close = %v", err)
	}
	if err := other.Close(bg); !errors.Is(err, queue.ErrClosed) {
		t.Fatalf("Close on another handle = %v", err)
	}
	if err := other.CloseNow(bg); err != nil {
		t.Fatalf("CloseNow of a closed queue = %v", err)
	}
	if !state(t, other).Closed {
		t.Fatal("not closed on another handle")
	}
	for _, h := range []*natsqueue.Queue{q, other} {
		err := h.EnqueueStrings(bg, "z")
		if !errors.Is(err, queue.ErrClosed) || err.Error() != "FIFOQueue 'filenames' is closed.: queue is closed" {
			t.Fatalf("Enqueue after Close = %v", err)
		}
	}
	e, err := other.DequeueUpTo(bg, 5)
	if err != nil || !slices.Equal(stringsOf(e), []string{"x", "y"}) {
		t.Fatalf("DequeueUpTo = %v, %v", e, err)
	}
	// other holds both units: q's end of input waits for their acks.
	short, cancel := context.WithTimeout(bg, 300*time.Millisecond)
	_, err = q.Dequeue(short)
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Dequeue while another worker holds units = %v, want to wait", err)
	}
	for _, u := range []string{"x", "y"} {
		if err := other.WorkDone(bg, u); err != nil {
			t.Fatal(err)
		}
	}
	_, err = q.Dequeue(bg)
	const msg = "FIFOQueue 'filenames' is closed and has insufficient elements (requested 1, current size 0): EOF"
	if !isEOF(err) || err.Error() != msg {
		t.Fatalf("Dequeue at end = %v, want %q", err, msg)
	}
	if _, err := q.DequeueUpTo(bg, 3); !isEOF(err) {
		t.Fatalf("DequeueUpTo at end = %v", err)
	}
}

func stringsOf(e queue.Element) []string {
	var out []string
	for _, b := range e[0].Strings() {
		out = append(out, string(b))
	}
	return out
}

// A DequeueMany that the closed queue cannot fill hands back its units;
// DequeueUpTo returns them.
func TestDequeueManyAtEnd(t *testing.T) {
	_, mk := setup(t)
	q := mk("batches")
	if err := q.EnqueueStrings(bg, "a", "b", "c", "d", "e"); err != nil {
		t.Fatal(err)
	}
	e, err := q.DequeueMany(bg, 2)
	if err != nil || !slices.Equal(stringsOf(e), []string{"a", "b"}) {
		t.Fatalf("DequeueMany(2) = %v, %v", e, err)
	}
	if err := q.Close(bg); err != nil {
		t.Fatal(err)
	}
	_, err = q.DequeueMany(bg, 4)
	if !isEOF(err) || err.Error() != "FIFOQueue 'batches' is closed and has insufficient elements (requested 4, current size 3): EOF" {
		t.Fatalf("DequeueMany(4) = %v", err)
	}
	// The units handed back come back, though not in a promised order:
	// the server puts one it readied for a pull request that expired
	// meanwhile at the back of its redelivery queue.
	e, err = q.DequeueUpTo(bg, 4)
	if err != nil || !slices.Equal(sorted(stringsOf(e)), []string{"c", "d", "e"}) {
		t.Fatalf("DequeueUpTo(4) = %v, %v", e, err)
	}
	if q.Held() != 5 {
		t.Fatalf("Held = %d, want 5", q.Held())
	}
	for _, u := range []string{"a", "b", "c", "d", "e"} {
		if err := q.Ack(bg, queue.Element{tensor.StringScalar(u)}); err != nil {
			t.Fatal(err)
		}
	}
	if st, err := q.State(bg); err != nil || st != (natsqueue.State{Closed: true}) {
		t.Fatalf("State = %+v, %v", st, err)
	}
}

// waitFor waits until cond holds, and fails the test if it does not
// within a minute: explicit synchronisation with a state that tests
// cannot be told of otherwise.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("still waiting for %s after a minute", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// blockedDequeues returns a function reporting whether the server holds
// a pull request of a Dequeue blocked on the queue name (epoch 0).
func blockedDequeues(t *testing.T, url, name string) func() bool {
	cons, err := connect(t, url).Consumer(bg, "SLUICE_"+name, name+"_e0")
	if err != nil {
		t.Fatal(err)
	}
	return func() bool {
		info, err := cons.Info(bg)
		if err != nil {
			t.Fatal(err)
		}
		return info.NumWaiting > 0
	}
}

// A CloseNow that comes while a blocked enqueue reads the closed flag,
// after it looked for a cancel, still cancels it: the flag it reads set
// is the CloseNow's own. It failed with ErrClosed once, under load.
func TestCloseNowWhileFlagRead(t *testing.T) {
	_, mk := setup(t)
	q := mk("cancelread", natsqueue.Capacity(1))
	if err := q.EnqueueStrings(bg, "a"); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	defer natsqueue.SetFlagReadHook(func(h *natsqueue.Queue) {
		if h == q {
			once.Do(func() {
				if err := q.CloseNow(bg); err != nil {
					t.Error(err)
				}
			})
		}
	})()
	if err := q.EnqueueStrings(bg, "b"); !errors.Is(err, queue.ErrCancelled) {
		t.Fatalf("enqueue cancelled while it read the flag = %v, want ErrCancelled", err)
	}
}

// CloseNow fails this handle's blocked enqueues at once, where Close waits
// for them; CloseNow also cancels a Close waiting behind enqueues.
func TestCancelClose(t *testing.T) {
	_, mk := setup(t)
	q := mk("cancel", natsqueue.Capacity(1))
	if err := q.EnqueueStrings(bg, "a"); err != nil {
		t.Fatal(err)
	}
	blocked := make(chan error, 1)
	go func() { blocked <- q.EnqueueStrings(bg, "b") }()
	waitFor(t, "the enqueue to begin", func() bool { return q.Enqueuing() == 1 })
	closed := make(chan error, 1)
	go func() { closed <- q.Close(bg) }()
	waitFor(t, "the Close to begin", q.Closing)
	if state(t, q).Closed {
		t.Fatal("closed while Close waits behind an enqueue (Q-56)")
	}
	if err := q.EnqueueStrings(bg, "late"); !errors.Is(err, queue.ErrClosed) {
		t.Fatalf("Enqueue behind a waiting Close = %v", err)
	}
	// The blocked calls wait for room that never comes; only the
	// CloseNow ends them.
	if err := q.CloseNow(bg); err != nil {
		t.Fatal(err)
	}
	for _, ch := range []chan error{blocked, closed} {
		select {
		case err := <-ch:
			if !errors.Is(err, queue.ErrCancelled) {
				t.Fatalf("blocked call = %v, want ErrCancelled", err)
			}
		case <-time.After(20 * time.Second):
			t.Fatal("blocked call not cancelled")
		}
	}
	if !state(t, q).Closed {
		t.Fatal("not closed")
	}
	got, err := drain(bg, q)
	if err != nil || !slices.Equal(got, []string{"a"}) {
		t.Fatalf("drain = %q, %v", got, err)
	}
}

// A Close waits for a blocked enqueue, which completes.
func TestCloseWaitsForBlockedEnqueue(t *testing.T) {
	_, mk := setup(t)
	q := mk("wait", natsqueue.Capacity(1))
	if err := q.EnqueueStrings(bg, "a"); err != nil {
		t.Fatal(err)
	}
	blocked := make(chan error, 1)
	go func() { blocked <- q.EnqueueStrings(bg, "b") }()
	waitFor(t, "the enqueue to begin", func() bool { return q.Enqueuing() == 1 })
	closed := make(chan error, 1)
	go func() { closed <- q.Close(bg) }()
	waitFor(t, "the Close to begin", q.Closing)
	if _, err := q.Dequeue(bg); err != nil {
		t.Fatal(err)
	}
	if err := q.WorkDone(bg, "a"); err != nil {
		t.Fatal(err)
	}
	for _, ch := range []chan error{blocked, closed} {
		select {
		case err := <-ch:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(20 * time.Second):
			t.Fatal("still blocked")
		}
	}
	got, err := drain(bg, q)
	if err != nil || !slices.Equal(got, []string{"b"}) {
		t.Fatalf("drain = %q, %v", got, err)
	}
}

// Cancelling the context of a blocked Dequeue or Enqueue ends it promptly
// (well before the next poll, a minute away, or the end of the Dequeue's
// pull request, a second away) and leaves the queue as it was.
func TestContextCancelsBlockedCalls(t *testing.T) {
	url, mk := setup(t)
	q := mk("ctx", natsqueue.Capacity(1), natsqueue.PollInterval(time.Minute))
	ctx, cancel := context.WithCancel(bg)
	res := make(chan error, 1)
	go func() { _, err := q.Dequeue(ctx); res <- err }()
	waitFor(t, "the Dequeue to block", blockedDequeues(t, url, "ctx"))
	start := time.Now()
	cancel()
	if err := <-res; !errors.Is(err, context.Canceled) || err.Error() != "Dequeue operation was cancelled: context canceled" {
		t.Fatalf("Dequeue = %v", err)
	}
	if d := time.Since(start); d > 900*time.Millisecond {
		t.Fatalf("Dequeue took %v to see its context cancelled", d)
	}
	if err := q.EnqueueStrings(bg, "a"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel = context.WithCancel(bg)
	go func() { res <- q.EnqueueStrings(ctx, "b") }()
	waitFor(t, "the enqueue to begin", func() bool { return q.Enqueuing() == 1 })
	start = time.Now()
	cancel()
	if err := <-res; !errors.Is(err, context.Canceled) {
		t.Fatalf("Enqueue = %v", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("Enqueue took %v to see its context cancelled", d)
	}
	// The cancelled dequeue took nothing: "a" is next, and "b" never went in.
	if err := q.Close(bg); err != nil {
		t.Fatal(err)
	}
	got, err := drain(bg, q)
	if err != nil || !slices.Equal(got, []string{"a"}) {
		t.Fatalf("drain = %q, %v", got, err)
	}
}
