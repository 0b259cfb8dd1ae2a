package blobfs_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sluiceml/sluice/storage/blobfs"
)

// slowGets delays every ranged GET by d and records the most requests in
// flight at once.
func slowGets(d time.Duration, inFlight, most *atomic.Int64) func(http.Handler) http.Handler {
	return func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet && r.Header.Get("Range") != "" {
				n := inFlight.Add(1)
				defer inFlight.Add(-1)
				for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
				}
				select {
				case <-time.After(d):
				case <-r.Context().Done():
					return
				}
			}
			h.ServeHTTP(w, r)
		})
	}
}

// A slow store still yields every byte, and a sequential reader keeps
// several block requests in flight rather than waiting for each in turn.
func TestSlowResponses(t *testing.T) {
	s := newS3(t)
	fsys := s.fs(t, blobfs.BlockSize(64*kib), blobfs.Readahead(3), blobfs.Concurrency(4))
	data := randomBytes(mib, 9)
	put(t, fsys, "s3://bucket/slow.bin", data)
	var inFlight, most atomic.Int64
	s.setFaults(slowGets(20*time.Millisecond, &inFlight, &most))

	f := open(t, fsys, "s3://bucket/slow.bin")
	got, err := io.ReadAll(f)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("ReadAll = %d bytes, %v", len(got), err)
	}
	if most.Load() < 2 {
		t.Errorf("at most %d block request in flight; readahead should overlap them", most.Load())
	}
}

// A store that stops answering does not hang the reader: cancelling the
// context the file was opened with ends the read in progress with the
// context's error, and Close leaves no goroutine behind (TestMain checks).
func TestStalledResponseCancelled(t *testing.T) {
	s := newS3(t)
	fsys := s.fs(t, blobfs.BlockSize(64*kib))
	put(t, fsys, "s3://bucket/stall.bin", randomBytes(256*kib, 10))
	var inFlight, most atomic.Int64
	s.setFaults(slowGets(time.Hour, &inFlight, &most))

	ctx, cancel := context.WithCancel(context.Background())
	f, err := fsys.Open(ctx, "s3://bucket/stall.bin")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	done := make(chan error, 1)
	go func() {
		_, err := f.ReadAt(make([]byte, 100), 70*kib)
		done <- err
	}()
	for inFlight.Load() == 0 { // the read is waiting on the store
		time.Sleep(time.Millisecond)
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("ReadAt after cancel = %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ReadAt still blocked 10s after its context was cancelled")
	}
}
