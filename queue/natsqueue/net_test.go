package natsqueue_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/sluiceml/sluice/internal/slowlink"
	"github.com/sluiceml/sluice/queue/natsqueue"
)

// A worker whose pull requests reach the server only after its poll
// interval has passed still gets every unit at once and in order: the
// server, not the client, ends a pull request, so the client never drops
// a unit the server sent to a request it still served. (When the client
// gave up on its requests by its own clock, the units they brought were
// dropped, held by nobody until AckWait, and came back out of order:
// TestEnqueueRuns "want 600 in order" under load.)
func TestSlowPullRequestsLoseNothing(t *testing.T) {
	url, _ := setup(t)
	const ackWait = time.Minute // longer than the test: a dropped unit never comes back in time
	producer := open(t, connect(t, url), "slow", natsqueue.AckWait(ackWait))
	worker := open(t, connect(t, slowlink.Start(t, url, 150*time.Millisecond)), "slow",
		natsqueue.AckWait(ackWait), natsqueue.PollInterval(50*time.Millisecond))
	want := units(3)
	if err := producer.EnqueueStrings(bg, want...); err != nil {
		t.Fatal(err)
	}
	if err := producer.Close(bg); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(bg, 20*time.Second)
	defer cancel()
	got, err := drain(ctx, worker)
	if err != nil {
		t.Fatalf("after %q: %v", got, err)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// A Dequeue cancelled while its pull request is on its way returns at
// once; the unit the request then brings is handed back, for another
// worker to take at once rather than after AckWait.
func TestCancelledDequeueHandsBackLateUnit(t *testing.T) {
	url, _ := setup(t)
	const ackWait = time.Minute
	producer := open(t, connect(t, url), "late", natsqueue.AckWait(ackWait))
	// Both workers share one slow connection, so that the cancelled
	// worker's request reaches the server before the other's.
	const delay = 300 * time.Millisecond
	js := connect(t, slowlink.Start(t, url, delay))
	cancelled := open(t, js, "late", natsqueue.AckWait(ackWait), natsqueue.PollInterval(time.Second))
	other := open(t, js, "late", natsqueue.AckWait(ackWait))
	if err := producer.EnqueueStrings(bg, "u"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(bg, delay/3)
	defer cancel()
	start := time.Now()
	if e, err := cancelled.Dequeue(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Dequeue with a deadline before its request arrives = %v, %v", e, err)
	}
	if d := time.Since(start); d >= delay {
		t.Fatalf("the cancelled Dequeue returned after %v, not at once", d)
	}
	ctx, cancel = context.WithTimeout(bg, 20*time.Second)
	defer cancel()
	e, err := other.Dequeue(ctx)
	if err != nil || str(e) != "u" {
		t.Fatalf("the other worker's Dequeue = %v, %v; want the unit handed back", e, err)
	}
	if cancelled.Held() != 0 {
		t.Fatalf("the cancelled worker holds %d units", cancelled.Held())
	}
}

// With EndWhenDelivered, only the server's answer that it has no unit
// ends the input: a pull request the NATS client gave up on, hearing
// nothing (here a link so slow that the unit the server sends comes after
// the client stopped listening), says nothing of what is pending.
func TestEndWhenDeliveredNeedsAnAnswer(t *testing.T) {
	url, _ := setup(t)
	producer := open(t, connect(t, url), "unanswered")
	if err := producer.EnqueueStrings(bg, "pending"); err != nil {
		t.Fatal(err)
	}
	if err := producer.Close(bg); err != nil {
		t.Fatal(err)
	}
	slow := open(t, connect(t, slowlink.Start(t, url, 1300*time.Millisecond)), "unanswered",
		natsqueue.PollInterval(50*time.Millisecond), natsqueue.EndWhenDelivered())
	ctx, cancel := context.WithTimeout(bg, 5*time.Second)
	defer cancel()
	if e, err := slow.Dequeue(ctx); isEOF(err) {
		t.Fatalf("Dequeue over a link slower than the client waits = %v, %v: the end of input, with a unit pending", e, err)
	}
}
