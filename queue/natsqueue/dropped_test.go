package natsqueue_test

import (
	"context"
	"testing"
	"time"

	"github.com/sluiceml/sluice/queue/natsqueue"
)

// A unit the server gives up on (MaxDeliver) is dropped, as MaxDeliver
// says: it ends no epoch early and holds none open, takes no room and is
// in no count. JetStream itself keeps such a message in a work-queue
// stream; the queue deletes it.
func TestMaxDeliverDropsUnit(t *testing.T) {
	for _, tc := range []struct {
		name string
		// ackLater acknowledges a unit delivered after the dropped one,
		// which moves the consumer's acknowledgement floor past it.
		ackLater bool
	}{
		{"last unit", false},
		{"before a finished unit", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, mk := setup(t)
			opts := []natsqueue.Option{natsqueue.AckWait(300 * time.Millisecond), natsqueue.MaxDeliver(1), natsqueue.Capacity(2)}
			dying := mk("maxdel", append(opts, natsqueue.Heartbeat(-1))...)
			alive := mk("maxdel", opts...)
			if err := dying.EnqueueStrings(bg, "poison", "next"); err != nil {
				t.Fatal(err)
			}
			if e, err := dying.Dequeue(bg); err != nil || str(e) != "poison" {
				t.Fatalf("Dequeue = %v, %v", e, err)
			}
			dying.Stop(bg) // dies holding the unit, delivered its one time
			if tc.ackLater {
				if e, err := alive.Dequeue(bg); err != nil || str(e) != "next" {
					t.Fatalf("Dequeue = %v, %v", e, err)
				}
				if err := alive.WorkDone(bg, "next"); err != nil {
					t.Fatal(err)
				}
			}
			time.Sleep(600 * time.Millisecond) // the dying worker's AckWait passes

			// Room for two units again: the dropped one takes none.
			ctx, cancel := context.WithTimeout(bg, 10*time.Second)
			defer cancel()
			room := []string{"a", "b"}
			if !tc.ackLater {
				room = room[:1] // "next" still pending
			}
			if err := alive.EnqueueStrings(ctx, room...); err != nil {
				t.Fatalf("EnqueueStrings after the drop: %v", err)
			}
			if err := alive.Close(ctx); err != nil {
				t.Fatal(err)
			}
			want := len(room)
			if !tc.ackLater {
				want++
			}
			if st := state(t, alive); st.Pending != want || st.Unacked != 0 {
				t.Errorf("State = %+v, want %d pending, none unacked", st, want)
			}
			for range want {
				e, err := alive.Dequeue(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if err := alive.WorkDone(ctx, str(e)); err != nil {
					t.Fatal(err)
				}
			}
			if e, err := alive.Dequeue(ctx); !isEOF(err) {
				t.Fatalf("Dequeue after every live unit = %v, %v; want io.EOF", e, err)
			}
		})
	}
}

// A batch that waits longer than AckWait for its last unit keeps the
// units it has taken: their heartbeats go out from the first, so the
// server hands them neither to another worker nor back to the batch.
func TestDequeueManyHoldsWhileWaiting(t *testing.T) {
	_, mk := setup(t)
	a := mk("wait", natsqueue.AckWait(time.Second))
	b := mk("wait", natsqueue.AckWait(time.Second))
	if err := a.EnqueueStrings(bg, "u1"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(bg, 20*time.Second)
	defer cancel()
	type result struct {
		units []string
		err   error
	}
	done := make(chan result, 1)
	go func() {
		e, err := a.DequeueMany(ctx, 2)
		if err != nil {
			done <- result{err: err}
			return
		}
		var units []string
		for _, u := range e[0].Strings() {
			units = append(units, string(u))
		}
		done <- result{units: units}
	}()
	for a.Held() == 0 { // the batch has taken u1
		time.Sleep(time.Millisecond)
	}
	// Twice AckWait: long enough for the server to redeliver a unit not
	// kept alive.
	bctx, bcancel := context.WithTimeout(ctx, 2500*time.Millisecond)
	defer bcancel()
	if e, err := b.Dequeue(bctx); err == nil {
		t.Errorf("another worker took %q while the batch waited for its last unit", str(e))
	}
	if err := a.EnqueueStrings(bg, "u2"); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.err != nil || len(r.units) != 2 || r.units[0] != "u1" || r.units[1] != "u2" {
		t.Fatalf("DequeueMany(2) = %q, %v; want [u1 u2]", r.units, r.err)
	}
	if got := a.Held(); got != 2 {
		t.Errorf("Held = %d, want 2", got)
	}
}

// A batch that fails hands back the units it took and holds none.
func TestDequeueManyFailedHoldsNone(t *testing.T) {
	_, mk := setup(t)
	q := mk("fail")
	if err := q.EnqueueStrings(bg, "u1"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(bg, 500*time.Millisecond)
	defer cancel()
	if _, err := q.DequeueMany(ctx, 2); err == nil {
		t.Fatal("DequeueMany(2) of one unit succeeded")
	}
	if got := q.Held(); got != 0 {
		t.Errorf("Held = %d after the failed batch, want 0", got)
	}
	ctx, cancel = context.WithTimeout(bg, 10*time.Second)
	defer cancel()
	if e, err := q.Dequeue(ctx); err != nil || str(e) != "u1" {
		t.Fatalf("Dequeue after the failed batch = %v, %v; want u1", e, err)
	}
}
