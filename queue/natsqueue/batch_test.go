package natsqueue_test

import (
	"context"
	"errors"
	"slices"
	stdstrings "strings"
	"sync"
	"testing"
	"time"

	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/queue/natsqueue"
)

// EnqueueStrings sends units in runs (of up to the room left, at most 256)
// and waits for the acks once per run; runs that cross the capacity, and
// lists longer than a run, still land each unit once, in order.
func TestEnqueueRuns(t *testing.T) {
	for _, tc := range []struct {
		name     string
		capacity int
		n        int
	}{
		{"longer than a run", 1000, 600},
		{"runs cut by the capacity", 7, 100},
		{"capacity one", 1, 12},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, mk := setup(t)
			producer := mk("runs", natsqueue.Capacity(tc.capacity), natsqueue.PollInterval(20*time.Millisecond))
			consumer := mk("runs", natsqueue.Capacity(tc.capacity))
			want := units(tc.n)
			ctx, cancel := context.WithTimeout(bg, 60*time.Second)
			defer cancel()
			var got []string
			var consumeErr error
			var wg sync.WaitGroup
			wg.Go(func() {
				for len(got) < tc.n {
					e, err := consumer.Dequeue(ctx)
					if err == nil {
						err = consumer.WorkDone(ctx, str(e))
					}
					if err != nil {
						consumeErr = err
						return
					}
					got = append(got, str(e))
				}
			})
			err := producer.EnqueueStrings(ctx, want...)
			wg.Wait()
			if err != nil || consumeErr != nil {
				t.Fatal(errors.Join(err, consumeErr))
			}
			if !slices.Equal(got, want) {
				t.Fatalf("got %d units %q...\nwant %d in order", len(got), got[:min(len(got), 5)], len(want))
			}
		})
	}
}

// A server restart in the middle of a long enqueue loses the acks of the
// run in flight; the units are published again under the same message
// IDs, so every unit is stored exactly once.
func TestEnqueueAcrossServerRestart(t *testing.T) {
	defer natsqueue.SetAckWait(500 * time.Millisecond)()
	url, restart := restartableServer(t, 200*time.Millisecond)
	const n = 3000
	want := units(n)
	q := open(t, connect(t, url), "restart-enqueue", natsqueue.Capacity(n), natsqueue.PollInterval(50*time.Millisecond))
	ctx, cancel := context.WithTimeout(bg, 60*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- q.EnqueueStrings(ctx, want...) }()
	// Restart once part of the list is stored.
	for state(t, q).Pending < n/10 {
		select {
		case err := <-done:
			t.Fatalf("the enqueue finished (%v) before the restart; make n larger", err)
		case <-time.After(2 * time.Millisecond):
		}
	}
	restart()
	if err := <-done; err != nil {
		t.Fatalf("EnqueueStrings across a restart: %v", err)
	}
	if err := q.Close(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := drain(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != n || !slices.Equal(sorted(got), sorted(want)) {
		t.Fatalf("stored %d units (%d distinct), want each of %d once", len(got), len(slices.Compact(sorted(got))), n)
	}
}

// A unit larger than the server takes fails the whole call before any
// unit goes out, the units before it and after it included.
func TestEnqueueManyRefusesOversizedUnit(t *testing.T) {
	_, mk := setup(t)
	q := mk("oversized", natsqueue.Capacity(100))
	huge := stdstrings.Repeat("x", 2<<20) // the test server takes 1 MiB
	for _, units := range [][]string{{"a", huge, "c"}, {huge}} {
		err := q.EnqueueMany(bg, strings(units...))
		if !errors.Is(err, queue.ErrInvalidArgument) || !stdstrings.Contains(err.Error(), "no unit was enqueued") {
			t.Errorf("EnqueueMany of %d units, one too large: %v; want an invalid argument", len(units), err)
		}
	}
	if st := state(t, q); st.Pending != 0 {
		t.Fatalf("State = %+v after refused enqueues, want none pending", st)
	}
	// The handle goes on as before.
	if err := q.EnqueueStrings(bg, "a"); err != nil {
		t.Fatal(err)
	}
	if e, err := q.Dequeue(bg); err != nil || str(e) != "a" {
		t.Fatalf("Dequeue = %v, %v", e, err)
	}
}
