package natsqueue_test

import (
	"context"
	"errors"
	"slices"
	stdstrings "strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/sluiceml/sluice/queue/natsqueue"
)

// Messages on the queue's subject that the queue did not write as they
// stand (a message ID that was not made for the payload, or is not a
// message ID at all) fail the Dequeue that meets them, with ErrBadMessage
// and the message's place in the stream, and are dropped; a message
// without an ID, published by hand, is a unit. The units around them are
// served in order.
func TestForeignMessages(t *testing.T) {
	url, mk := setup(t)
	q := mk("hostile")
	js := connect(t, url)
	const subject = "sluice.q.hostile.e0"
	publish := func(data string, opts ...jetstream.PublishOpt) {
		t.Helper()
		if _, err := js.Publish(bg, subject, []byte(data), opts...); err != nil {
			t.Fatal(err)
		}
	}
	if err := q.EnqueueStrings(bg, "a"); err != nil {
		t.Fatal(err)
	}
	publish("evil", jetstream.WithMsgID("hostile/0/00000000000000000000000000000000/0"))
	publish("evil", jetstream.WithMsgID("garbage"))
	publish("by-hand")
	if err := q.EnqueueStrings(bg, "b"); err != nil {
		t.Fatal(err)
	}
	if err := q.Close(bg); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, bad := range []bool{false, true, true, false, false} {
		e, err := q.Dequeue(bg)
		switch {
		case bad && (!errors.Is(err, natsqueue.ErrBadMessage) || !stdstrings.Contains(err.Error(), "message ")):
			t.Fatalf("Dequeue of a foreign message = %v, %v; want ErrBadMessage", e, err)
		case bad:
			t.Log(err)
		case err != nil:
			t.Fatalf("Dequeue after %q: %v", got, err)
		default:
			got = append(got, str(e))
			if err := q.WorkDone(bg, str(e)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if want := []string{"a", "by-hand", "b"}; !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	if _, err := q.Dequeue(bg); !isEOF(err) {
		t.Fatalf("Dequeue at the end = %v, want io.EOF: the foreign messages were not dropped", err)
	}
}

// An empty message with a Status header, which the NATS client drops as
// the server's word on the pull request, is never seen as a unit: the end
// of input waits for it as for a unit another worker holds, until
// MaxDeliver gives up on it, as ErrBadMessage's doc says.
func TestStatusMessageOnSubject(t *testing.T) {
	url, _ := setup(t)
	js := connect(t, url)
	name := uniqueName("status")
	q := open(t, js, name, natsqueue.AckWait(300*time.Millisecond), natsqueue.MaxDeliver(2), natsqueue.PollInterval(50*time.Millisecond))
	if err := q.EnqueueStrings(bg, "good1"); err != nil {
		t.Fatal(err)
	}
	if _, err := js.PublishMsg(bg, &nats.Msg{Subject: "sluice.q." + name + ".e0", Header: nats.Header{"Status": {"404"}}}); err != nil {
		t.Fatal(err)
	}
	if err := q.EnqueueStrings(bg, "good2"); err != nil {
		t.Fatal(err)
	}
	if err := q.Close(bg); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(bg, 20*time.Second)
	defer cancel()
	got, err := drain(ctx, q)
	if err != nil || !slices.Equal(got, []string{"good1", "good2"}) {
		t.Fatalf("drained %q, %v; want good1, good2, then the end of input", got, err)
	}
}
