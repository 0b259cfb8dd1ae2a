package natsqueue_test

import (
	"errors"
	"os"
	"testing"
	"time"

	"github.com/sluiceml/sluice/queue/natsqueue"
)

// How long a Dequeue blocked on an empty queue, with every option at its
// default, takes to fail once the server is killed. It takes the default
// WithUnreachableAfter and more, so it runs only when asked for:
//
//	NATSQUEUE_MEASURE=1 go test -run TestMeasureDequeueServerKilled -v ./queue/natsqueue
func TestMeasureDequeueServerKilled(t *testing.T) {
	if os.Getenv("NATSQUEUE_MEASURE") == "" {
		t.Skip("set NATSQUEUE_MEASURE=1 to measure")
	}
	s := runServer(t, t.TempDir(), -1)
	q, err := natsqueue.Dial(bg, s.ClientURL(), "measure")
	if err != nil {
		t.Fatal(err)
	}
	defer q.Stop(bg)
	res := make(chan error, 1)
	go func() { _, err := q.Dequeue(bg); res <- err }()
	// The Dequeue is blocked once the server holds its pull request.
	cons, err := connect(t, s.ClientURL()).Consumer(bg, "SLUICE_measure", "measure_e0")
	if err != nil {
		t.Fatal(err)
	}
	for {
		info, err := cons.Info(bg)
		if err != nil {
			t.Fatal(err)
		}
		if info.NumWaiting > 0 {
			break
		}
	}
	start := time.Now()
	s.Shutdown()
	err = <-res
	took := time.Since(start)
	if !errors.Is(err, natsqueue.ErrUnreachable) {
		t.Fatalf("Dequeue = %v, want ErrUnreachable", err)
	}
	t.Logf("Dequeue failed %v after the server was killed: %v", took.Round(time.Millisecond), err)
}
