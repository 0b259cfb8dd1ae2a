package mnist

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/sluiceml/sluice/datasets"
	"github.com/sluiceml/sluice/internal/stall"
)

// failing returns the bytes of r, the last of them with err instead of
// io.EOF.
type failing struct {
	r   *bytes.Reader
	err error
}

func (f *failing) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	if err == io.EOF || f.r.Len() == 0 {
		return n, f.err
	}
	return n, err
}

// A source that stops giving bytes without an error ends the read with
// io.ErrNoProgress, plain or gzip: io.ReadFull read it for ever (audit
// 101).
func TestStallingSource(t *testing.T) {
	plain := encodeImages(t, testImages(20, 28, 28))
	for name, data := range map[string][]byte{"plain": plain, "gzip": gzipped(t, plain)} {
		done := make(chan error, 1)
		go func() {
			r, err := NewImageReader(stall.Reader(bytes.NewReader(data[:len(data)/2])))
			for err == nil {
				_, err = r.Next()
			}
			done <- err
		}()
		select {
		case err := <-done:
			if !errors.Is(err, io.ErrNoProgress) {
				t.Errorf("%s: %v, want io.ErrNoProgress", name, err)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("%s: the read of a stalled source did not end", name)
		}
	}
}

// A failure to read right after a gzip member is that failure, not bytes
// that are not gzip after the stream (audit 101: ErrTrailingData).
func TestReadFailsAfterGzipMember(t *testing.T) {
	boom := errors.New("connection reset")
	data := gzipped(t, encodeImages(t, testImages(3, 28, 28)))
	r, err := NewImageReader(&failing{bytes.NewReader(data), boom})
	for err == nil {
		_, err = r.Next()
	}
	if !errors.Is(err, boom) || errors.Is(err, datasets.ErrTrailingData) {
		t.Errorf("%v, want the read's error, not trailing data", err)
	}
}
