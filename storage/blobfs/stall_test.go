package blobfs_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sluiceml/sluice/storage/blobfs"
)

// The stall tests run in a synctest bubble on an in-memory network, in
// fake time: a stall of the default 30 s costs nothing, and no outcome
// depends on how fast the machine is. Without the stall timeout a
// stalled read leaves every goroutine of the bubble blocked, which
// synctest reports as a deadlock instead of hanging.

// stallGets makes a GET whose range covers object offset at stall there:
// with headers, it sends the bytes before at and then nothing; without,
// it sends nothing at all, not even the status line. Either way the
// response waits until the client goes away. times limits how many
// responses stall (negative: all).
func stallGets(at int64, headers bool, times int64) func(http.Handler) http.Handler {
	var stalls atomic.Int64
	return func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			start, last := byteRange(r)
			covers := start <= at && (last < 0 || at <= last)
			if r.Method != http.MethodGet || r.Header.Get("Range") == "" || !covers || (times >= 0 && stalls.Load() >= times) {
				h.ServeHTTP(w, r)
				return
			}
			stalls.Add(1)
			if !headers {
				<-r.Context().Done()
				return
			}
			h.ServeHTTP(&stallWriter{ResponseWriter: w, ctx: r.Context(), left: at - start}, r)
		})
	}
}

// stallWriter passes left bytes of the body, flushes them with the
// headers, and then blocks until the request is cancelled.
type stallWriter struct {
	http.ResponseWriter
	ctx  context.Context
	left int64
}

func (w *stallWriter) Write(p []byte) (int, error) {
	if int64(len(p)) < w.left {
		w.left -= int64(len(p))
		return w.ResponseWriter.Write(p)
	}
	n, _ := w.ResponseWriter.Write(p[:w.left])
	w.left = 0
	http.NewResponseController(w.ResponseWriter).Flush()
	<-w.ctx.Done()
	return n, w.ctx.Err()
}

// stallHeads makes every HEAD wait until the client goes away.
func stallHeads(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodHead {
			<-r.Context().Done()
			return
		}
		h.ServeHTTP(w, r)
	})
}

// trickleGets sends the body of every ranged GET in pieces of chunk
// bytes, gap apart.
func trickleGets(chunk int, gap time.Duration) func(http.Handler) http.Handler {
	return func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodGet || r.Header.Get("Range") == "" {
				h.ServeHTTP(w, r)
				return
			}
			h.ServeHTTP(&trickleWriter{ResponseWriter: w, chunk: chunk, gap: gap}, r)
		})
	}
}

type trickleWriter struct {
	http.ResponseWriter
	chunk int
	gap   time.Duration
}

func (w *trickleWriter) Write(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		time.Sleep(w.gap)
		m, err := w.ResponseWriter.Write(p[n:min(n+w.chunk, len(p))])
		n += m
		if err != nil {
			return n, err
		}
		http.NewResponseController(w.ResponseWriter).Flush()
	}
	return n, nil
}

// A response that stalls — after its headers, part way through its
// body, or before answering at all — is abandoned after the stall
// timeout and retried, resuming at the first byte not received, and the
// read gets every byte. The caller's context has no deadline.
func TestStalledResponseRetried(t *testing.T) {
	const block = 256 * kib
	for _, tt := range []struct {
		name    string
		at      int64
		headers bool
	}{
		{"headers then nothing", block, true},
		{"part of the body then nothing", block + 12345, true},
		{"no answer", block, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := newS3Pipe(t)
				fsys := s.fs(t, blobfs.BlockSize(block), blobfs.Readahead(0))
				data := randomBytes(600*kib, 20)
				name := "s3://bucket/stall.bin"
				put(t, fsys, name, data)
				s.setFaults(stallGets(tt.at, tt.headers, 1))

				f := open(t, fsys, name)
				got, err := io.ReadAll(f)
				if err != nil || !bytes.Equal(got, data) {
					t.Fatalf("ReadAll = %d bytes, %v; want the %d bytes written", len(got), err, len(data))
				}
				resume := fmt.Sprintf(" bytes=%d-%d", tt.at, 2*block-1)
				if n := len(s.requests("GET /bucket/stall.bin")); n != 4 || !hasSuffix(s.requests("GET /bucket/stall.bin"), resume) {
					t.Errorf("%d GETs %q; want one per block and one resuming at %d", n, s.requests("GET"), tt.at)
				}
			})
		})
	}
}

func hasSuffix(list []string, suffix string) bool {
	for _, s := range list {
		if strings.HasSuffix(s, suffix) {
			return true
		}
	}
	return false
}

// A response that stalls on every retry fails the read with an error
// wrapping ErrStalled that names the object and the offset where the
// bytes stopped coming — not context.Canceled, and not a hang.
func TestStalledResponseExhaustsRetries(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newS3Pipe(t)
		fsys := s.fs(t, blobfs.BlockSize(256*kib), blobfs.Retries(2), blobfs.StallTimeout(5*time.Second))
		data := randomBytes(600*kib, 21)
		name := "s3://bucket/dead.bin"
		put(t, fsys, name, data)
		const at = 300*kib + 4321
		s.setFaults(stallGets(at, true, -1))

		f := open(t, fsys, name)
		start := time.Now()
		got, err := io.ReadAll(f)
		t.Log(err)
		wantMsg := fmt.Sprintf("%s at offset %d", name, at)
		if !errors.Is(err, blobfs.ErrStalled) || errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), wantMsg) {
			t.Errorf("ReadAll error = %v; want ErrStalled naming %q", err, wantMsg)
		}
		if len(got) > at || !bytes.Equal(got, data[:len(got)]) {
			t.Errorf("ReadAll returned %d bytes before failing", len(got))
		}
		// The first try and two retries, each abandoned after 5 s of
		// fake time without a byte.
		if n := len(s.requests(fmt.Sprintf("GET /bucket/dead.bin?x-id=GetObject bytes=%d-", at))); n != 2 {
			t.Errorf("%d GETs resuming at %d; want 2 retries: %q", n, at, s.requests("GET"))
		}
		if d := time.Since(start); d < 15*time.Second {
			t.Errorf("gave up after %v; want three stall timeouts", d)
		}
	})
}

// Open, too, gives up on a store that does not answer.
func TestStalledOpen(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newS3Pipe(t)
		fsys := s.fs(t, blobfs.Retries(1))
		name := "s3://bucket/head.bin"
		put(t, fsys, name, []byte("data"))
		s.setFaults(stallHeads)
		_, err := fsys.Open(context.Background(), name)
		if !errors.Is(err, blobfs.ErrStalled) || !strings.Contains(err.Error(), name) {
			t.Errorf("Open = %v; want ErrStalled naming %s", err, name)
		}
	})
}

// The stall timeout bounds the time without progress, not the time of a
// request: a block that arrives slowly but steadily, taking far longer
// than the timeout in all, is read in one request.
func TestSlowTransferNotCut(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newS3Pipe(t)
		fsys := s.fs(t, blobfs.BlockSize(256*kib), blobfs.Readahead(0), blobfs.StallTimeout(10*time.Second))
		data := randomBytes(300*kib, 22)
		name := "s3://bucket/trickle.bin"
		put(t, fsys, name, data)
		s.setFaults(trickleGets(4*kib, time.Second)) // 64 s for a block

		f := open(t, fsys, name)
		got, err := io.ReadAll(f)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("ReadAll = %d bytes, %v", len(got), err)
		}
		if gets := s.requests("GET /bucket/trickle.bin"); len(gets) != 2 {
			t.Errorf("GETs %q; want one per block", gets)
		}
	})
}
