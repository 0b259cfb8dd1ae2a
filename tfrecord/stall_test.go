package tfrecord

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/sluiceml/sluice/internal/stall"
)

// A source that stops giving bytes without an error ends the read with
// io.ErrNoProgress, whatever the record's size and the compression: a
// record larger than the read buffer, or any ZSTD stream, read it for
// ever, spinning a CPU (audit 101).
func TestStallingSource(t *testing.T) {
	for _, c := range []Compression{None, Gzip, Zlib, Zstd} {
		for _, size := range []int{10, 200 << 10} {
			var file bytes.Buffer
			w := NewWriter(&file, c)
			if err := w.Write(bytes.Repeat([]byte{'x'}, size)); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			cut := file.Bytes()[:file.Len()/2] // the stall comes inside the record
			done := make(chan error, 1)
			go func() {
				_, err := NewReader(stall.Reader(bytes.NewReader(cut)), c).Next()
				done <- err
			}()
			select {
			case err := <-done:
				if !errors.Is(err, io.ErrNoProgress) && !errors.Is(err, io.ErrUnexpectedEOF) {
					t.Errorf("%v, a record of %d bytes: %v, want io.ErrNoProgress", c, size, err)
				}
			case <-time.After(20 * time.Second):
				t.Fatalf("%v, a record of %d bytes: the read of a stalled source did not end", c, size)
			}
		}
	}
}
