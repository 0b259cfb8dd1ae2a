//go:build unix

package gomlx

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/sluiceml/sluice"
)

// Close from another goroutine ends a Yield that waits for a batch that
// does not come (a named pipe no one writes, as a slow source): Close
// waited for Yield's lock as long as the source did (audit 92). The Yield
// returns an error wrapping ErrClosed, whether it was waiting or came
// after the Close.
func TestCloseWhileYieldWaits(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "b.tfrecord")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	d, err := New(context.Background(), sluice.Examples(fifo, testSpec), 4, []string{"id"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	yielded := make(chan error, 1)
	go func() { _, _, _, err := d.Yield(); yielded <- err }()
	time.Sleep(100 * time.Millisecond) // most often, Yield waits by now
	closed := make(chan struct{})
	go func() { d.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		// Let the waiting Yield go, so that the test ends.
		if w, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
			w.Close()
		}
		<-closed
		t.Fatal("Close waited 10 s for the Yield that waits for data")
	}
	if err := <-yielded; !errors.Is(err, ErrClosed) {
		t.Errorf("Yield: %v, want an error wrapping ErrClosed", err)
	}
}
