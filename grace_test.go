package sluice

import (
	"context"
	"errors"
	"io"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sluiceml/sluice/storage"
)

// stuckFS serves one file, stuck://x, whose reads wait until stuck is
// closed, whatever their context: a reader nothing can cancel, as one of
// a named pipe whose writer went silent.
type stuckFS struct{ stuck chan struct{} }

type stuckFile struct{ stuck chan struct{} }

func (f stuckFile) Read([]byte) (int, error) {
	<-f.stuck
	return 0, io.EOF
}

func (f stuckFile) ReadAt(b []byte, _ int64) (int, error) { return f.Read(b) }
func (stuckFile) Close() error                            { return nil }
func (stuckFile) Size() int64                             { return 1 << 20 }
func (stuckFile) Name() string                            { return "stuck://x" }

func (s stuckFS) Open(context.Context, string) (storage.File, error) { return stuckFile(s), nil }
func (stuckFS) Create(context.Context, string) (io.WriteCloser, error) {
	return nil, errors.ErrUnsupported
}
func (stuckFS) Glob(_ context.Context, pattern string) ([]string, error) {
	return []string{pattern}, nil
}

// An iteration whose reader cannot be stopped ends one grace period after
// its context does, not two: Next stopped the pipeline and waited, then
// stopping the iterator did again (audit 86: a cancel took 2 s with
// GracePeriod(1s), and 4 min with the default).
func TestCancelWaitsOneGracePeriod(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		stuck := make(chan struct{})
		storage.Register("stuck", stuckFS{stuck})
		defer storage.Unregister("stuck")
		defer close(stuck)
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		it, err := Records("stuck://x", Readers(1), GracePeriod(time.Second)).Iterator(ctx, 4)
		if err != nil {
			t.Fatal(err)
		}
		defer it.Close()
		time.AfterFunc(500*time.Millisecond, cancel)
		start := time.Now()
		if _, err := it.Next(); !errors.Is(err, context.Canceled) {
			t.Errorf("Next: %v, want the context's end", err)
		}
		if took := time.Since(start); took != 1500*time.Millisecond {
			t.Errorf("Next returned %v after it began; want the cancel at 500ms and one grace period of 1s", took)
		}
	})
}
