package cifar10

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/sluiceml/sluice/internal/stall"
)

// A source that stops giving bytes without an error ends the read with
// io.ErrNoProgress: io.ReadFull read it for ever (audit 101).
func TestStallingSource(t *testing.T) {
	data := refFile(CIFAR10)
	done := make(chan error, 1)
	go func() {
		r, err := NewReader(stall.Reader(bytes.NewReader(data[:len(data)/2])), CIFAR10)
		for err == nil {
			_, err = r.Next()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, io.ErrNoProgress) {
			t.Errorf("%v, want io.ErrNoProgress", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the read of a stalled source did not end")
	}
}
