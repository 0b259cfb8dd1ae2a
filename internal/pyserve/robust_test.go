//go:build unix

package pyserve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sluiceml/sluice"
	"github.com/sluiceml/sluice/dataerr"
	"github.com/sluiceml/sluice/internal/fifotest"
	"github.com/sluiceml/sluice/storage"
)

func labelSpec() map[string]any {
	return map[string]any{"label": map[string]any{"kind": "fixed", "dtype": "int64"}}
}

// A next whose count the server cannot serve gets one error reply, not
// count of them built in memory first: the reply after it is the close's.
func TestServeNextCountBounded(t *testing.T) {
	pat := writeExamples(t, t.TempDir(), 1, 20)
	for _, opened := range []bool{false, true} {
		t.Run(fmt.Sprint("opened=", opened), func(t *testing.T) {
			c := startServer(t)
			if opened {
				if r := c.call(map[string]any{"op": "open", "kind": "examples", "files": []string{pat}, "batch_size": 4, "readers": 1, "spec": labelSpec()}); r.Error != nil {
					t.Fatal(r.Error)
				}
			}
			if r := c.call(map[string]any{"op": "next", "count": 1 << 30}); r.Error == nil || r.Error.Kind != "protocol" {
				t.Fatalf("next of count 2^30: %+v, want a protocol error", r)
			}
			if r := c.call(map[string]string{"op": "close"}); !r.OK {
				t.Fatalf("the reply after a refused next: %+v, want the close's", r)
			}
		})
	}
}

// Keep and count are checked each on its own, so that their sum cannot
// wrap past the check; the message gives the numbers sent; and a refused
// next takes no batch from the data set.
func TestServeNextKeepCount(t *testing.T) {
	pat := writeExamples(t, t.TempDir(), 1, 40)
	c := startServer(t)
	if r := c.call(map[string]any{"op": "open", "kind": "examples", "files": []string{pat}, "batch_size": 4, "readers": 1, "spec": labelSpec()}); r.Error != nil {
		t.Fatal(r.Error)
	}
	const maxInt = int(^uint(0) >> 1)
	for _, tc := range []struct {
		keep, count int
		msg         string
	}{
		{maxInt, 0, fmt.Sprintf("keep %d and count 0 with 3 slots", maxInt)},
		{maxInt, 1, fmt.Sprintf("keep %d and count 1 with 3 slots", maxInt)},
		{maxInt - 1, 2, fmt.Sprintf("keep %d and count 2 with 3 slots", maxInt-1)},
		{1, maxInt, fmt.Sprintf("keep 1 and count %d with 3 slots", maxInt)},
		{0, -5, "keep 0 and count -5 with 3 slots"},
		{-1, 1, "keep -1 and count 1 with 3 slots"},
		{3, 0, "keep 3 and count 0 with 3 slots"},
	} {
		r := c.call(map[string]any{"op": "next", "keep": tc.keep, "count": tc.count})
		if r.Error == nil || r.Error.Kind != "protocol" || !strings.Contains(r.Error.Message, tc.msg) {
			t.Errorf("next keep %d count %d: %+v, want a protocol error with %q", tc.keep, tc.count, r, tc.msg)
		}
	}
	var labels []int64
	for {
		b, r := c.next()
		if b == nil {
			if !r.End {
				t.Fatalf("%+v", r)
			}
			break
		}
		labels = append(labels, int64s(b["label"].raw, len(b["label"].raw)/8)...)
	}
	if len(labels) != 40 || labels[0] != 0 || labels[39] != 39 {
		t.Errorf("labels after refused nexts: %v, want 0 to 39", labels)
	}
}

// The end of the input cancels a next waiting for slow input (a FIFO
// nobody writes), and Serve returns within its grace period, not the
// pipeline's two minutes.
func TestServeInputEndCancelsNext(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "slow.tfrecord")
	if err := fifotest.Make(fifo); err != nil {
		t.Skip("no FIFO:", err)
	}
	// A reader still blocked opening the FIFO ends when a writer comes;
	// one that opened it without blocking (storage.Local on Linux) and
	// left has nobody to pair with, and a non-blocking open says so
	// (ENXIO) where a blocking one would wait for ever.
	defer func() {
		if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	}()
	c := startServer(t)
	if r := c.call(map[string]any{"op": "open", "kind": "examples", "files": []string{fifo}, "batch_size": 4, "readers": 1, "spec": labelSpec()}); r.Error != nil {
		t.Fatal(r.Error)
	}
	// One next, which waits for a batch; the end of the input behind it
	// is read, and cancels it. (A second request behind it would be read
	// only when Serve takes it: readRequests.)
	if err := WriteMessage(c.in, map[string]any{"op": "next"}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	c.in.Close()
	select {
	case err := <-c.done:
		if err != nil {
			t.Errorf("Serve: %v, want nil at the end of the input", err)
		}
		c.done <- nil
	case <-time.After(30 * time.Second):
		t.Fatal("Serve still waits for the FIFO 30 s after its input ended")
	}
	if d := time.Since(start); d > 3*stopGrace+time.Second {
		t.Errorf("Serve returned %v after its input ended, want about its grace period (%v) at most", d, stopGrace)
	}
}

// An error message larger than a message can be is cut, its place kept:
// the client gets the DataError instead of a server that exits.
func TestServeHugeErrorCut(t *testing.T) {
	dir := t.TempDir()
	csv := filepath.Join(dir, "huge.csv")
	data := "1\n" + strings.Repeat("x", MaxMessage+1) + "\n3\n"
	if err := os.WriteFile(csv, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	c := startServer(t)
	if r := c.call(map[string]any{"op": "open", "kind": "csv", "files": []string{csv}, "batch_size": 4, "readers": 1,
		"columns": []map[string]any{{"name": "a", "dtype": "int64"}}}); r.Error != nil {
		t.Fatal(r.Error)
	}
	r := c.call(map[string]any{"op": "next"})
	e := r.Error
	if e == nil || e.Kind != "data" || e.File != csv || e.Line != 2 {
		t.Fatalf("%+v, want a data error at %s line 2", e, csv)
	}
	if len(e.Message) > maxErrorText+100 || !strings.Contains(e.Message, "bytes cut]") {
		t.Errorf("a message of %d bytes (%.80q...), want it cut to about %d", len(e.Message), e.Message, maxErrorText)
	}
	// Every text of the reply is bounded, escaped or not.
	big := strings.Repeat("\x01", 4*MaxMessage)
	info := errorInfo(&dataerr.Error{File: big, Key: big, Offset: 7, Record: -1, Err: errors.New(big)})
	if _, err := appendMessage(nil, Reply{Error: info}); err != nil || info.Offset != 7 {
		t.Errorf("an error reply of three huge texts: %v (offset %d)", err, info.Offset)
	}
}

// Each error a client tells apart has its kind; in particular the one
// error of a commit after which the files are under their names.
func TestErrorInfoKinds(t *testing.T) {
	for _, tt := range []struct {
		err  error
		kind string
	}{
		{&dataerr.Error{File: "a.tfrecord", Offset: 7, Record: -1, Err: errors.New("corrupt record")}, "data"},
		{fmt.Errorf("open: %w", sluice.ErrNoFiles), "nofiles"},
		{fmt.Errorf("open: %w", sluice.ErrInvalid), "invalid"},
		{fmt.Errorf("%w: bad op", ErrProtocol), "protocol"},
		{fmt.Errorf("storage: a.tfrecord written: %w", storage.ErrNotDurable), "not_durable"},
		{errors.New("disk full"), "other"},
	} {
		if got := errorInfo(tt.err).Kind; got != tt.kind {
			t.Errorf("errorInfo(%v).Kind = %q, want %q", tt.err, got, tt.kind)
		}
	}
}

// A write that names a file twice is refused before anything is written:
// each name's records would be renamed over the other's.
func TestServeWriteSameFileTwice(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.tfrecord")
	for _, out := range [][]string{{a, a}, {a, filepath.Join(dir, ".", "a.tfrecord")}, {filepath.Join(dir, "b"), a, filepath.Join(dir, "x", "..", "a.tfrecord")}} {
		c := startServer(t)
		r := c.call(map[string]any{"op": "write", "out": out, "compression": "NONE"})
		if r.Error == nil || !strings.Contains(r.Error.Message, "same file") {
			t.Errorf("write to %q: %+v, want an error", out, r)
		}
		c.sendRaw(recordsMsg("first", "second"))
		if r := c.call(map[string]string{"op": "commit"}); r.Error == nil || r.Wrote != nil {
			t.Errorf("commit after a refused write: %+v, want an error", r)
		}
		if left := ls(t, dir); len(left) != 0 {
			t.Errorf("files after a refused write: %v", left)
		}
	}
}

// An absurd batch size is refused at once, and a large one on a small
// file makes room for the records it reads, not for the batch size.
func TestServeBatchSizeBounds(t *testing.T) {
	pat := writeExamples(t, t.TempDir(), 1, 10)
	for _, tc := range []struct {
		opts map[string]any
		size int
		rows int // 0: an invalid-argument error
	}{
		{nil, 1 << 31, 0},
		{nil, 1 << 62, 0},
		{nil, 1<<31 - 1, 10},
		{map[string]any{"shuffle": 4}, 1<<31 - 1, 10},
		{map[string]any{"deterministic": true}, 1<<31 - 1, 10},
		{map[string]any{"global_shuffle": true}, 1<<31 - 1, 10},
	} {
		c := startServer(t)
		open := map[string]any{"op": "open", "kind": "examples", "files": []string{pat}, "batch_size": tc.size, "readers": 2, "spec": labelSpec()}
		for k, v := range tc.opts {
			open[k] = v
		}
		if r := c.call(open); r.Error != nil {
			t.Fatal(r.Error)
		}
		b, r := c.next()
		switch {
		case tc.rows == 0:
			if r == nil || r.Error == nil || r.Error.Kind != "invalid" || !strings.Contains(r.Error.Message, "batch size") {
				t.Errorf("batch size %d: %+v, want an invalid-argument error", tc.size, r)
			}
		case b == nil:
			t.Errorf("batch size %d %v: %+v", tc.size, tc.opts, r.Error)
		case len(b["label"].raw) != 8*tc.rows:
			t.Errorf("batch size %d %v: %d bytes of labels, want %d rows", tc.size, tc.opts, len(b["label"].raw), tc.rows)
		}
	}
}

// A raw feature whose shape's byte count overflows is refused at open, as
// is a shape of more bytes than a record holds.
func TestServeRawShapeOverflow(t *testing.T) {
	pat := writeExamples(t, t.TempDir(), 1, 4)
	for _, shape := range [][]int{{3, 6148914691236517206}, {1 << 40, 1 << 40}, {1<<31 + 1}} {
		c := startServer(t)
		r := c.call(map[string]any{"op": "open", "kind": "examples", "files": []string{pat}, "batch_size": 2,
			"spec": map[string]any{"pix": map[string]any{"kind": "fixed", "dtype": "uint8", "shape": shape}}})
		if r.Error == nil || r.Error.Kind != "invalid" {
			t.Errorf("raw shape %v: %+v, want an invalid-argument error", shape, r)
		}
	}
}

// Every request is decoded strictly: a field no op of its kind has is a
// protocol error naming it.
func TestServeStrictRequests(t *testing.T) {
	c := startServer(t)
	for _, req := range []map[string]any{
		{"op": "next", "cout": 4},
		{"op": "next", "keep": 1, "count": 2, "before": 1},
		{"op": "state", "befor": 2},
		{"op": "close", "now": true},
		{"op": "commit", "files": 1},
		{"op": "mapped", "file": "x", "slot": 1},
	} {
		r := c.call(req)
		var unknown string
		for k := range req {
			if k != "op" && k != "file" && k != "keep" && k != "count" {
				unknown = k
			}
		}
		if r.Error == nil || r.Error.Kind != "protocol" || !strings.Contains(r.Error.Message, unknown) {
			t.Errorf("%v: %+v, want a protocol error naming %q", req, r, unknown)
		}
	}
	if r := c.call(map[string]string{"op": "close"}); !r.OK {
		t.Fatalf("close: %+v", r)
	}
}

// A state asked for after an open whose iteration could not start is
// that error, of its kind, not "state before open".
func TestServeStateAfterFailedOpen(t *testing.T) {
	dir := t.TempDir()
	pat := writeExamples(t, dir, 1, 4)
	for _, tc := range []struct {
		open map[string]any
		kind string
		msg  string
	}{
		{map[string]any{"op": "open", "kind": "examples", "files": []string{pat}, "batch_size": 2, "deterministic": true, "spec": labelSpec(),
			"resume": json.RawMessage(`"not-a-state"`)}, "invalid", "checkpoint"},
		{map[string]any{"op": "open", "kind": "examples", "files": []string{filepath.Join(dir, "none-*")}, "batch_size": 2, "spec": labelSpec()},
			"nofiles", "no files match"},
		{map[string]any{"op": "open", "kind": "examples", "files": []string{pat}, "batch_size": 0, "spec": labelSpec()}, "invalid", "batch size 0"},
	} {
		c := startServer(t)
		if r := c.call(tc.open); r.Error != nil {
			t.Fatal(r.Error)
		}
		r := c.call(map[string]any{"op": "state"})
		if r.Error == nil || r.Error.Kind != tc.kind || !strings.Contains(r.Error.Message, tc.msg) {
			t.Errorf("state after %v: %+v, want a %s error with %q", tc.open, r.Error, tc.kind, tc.msg)
		}
	}
}

// Readers beyond maxReaders are refused at open.
func TestServeReadersBounded(t *testing.T) {
	pat := writeExamples(t, t.TempDir(), 1, 4)
	c := startServer(t)
	for _, n := range []int{-1, maxReaders + 1, 1_000_000} {
		r := c.call(map[string]any{"op": "open", "kind": "examples", "files": []string{pat}, "batch_size": 2, "readers": n, "spec": labelSpec()})
		if r.Error == nil || r.Error.Kind != "invalid" || !strings.Contains(r.Error.Message, fmt.Sprintf("readers %d", n)) {
			t.Errorf("readers %d: %+v, want an invalid-argument error", n, r)
		}
	}
	if r := c.call(map[string]any{"op": "open", "kind": "examples", "files": []string{pat}, "batch_size": 2, "readers": maxReaders, "spec": labelSpec()}); r.Error != nil {
		t.Errorf("readers %d: %+v", maxReaders, r.Error)
	}
}

// A first part too short to hold the record's length says so.
func TestServeWriteShortFirstPart(t *testing.T) {
	dir := t.TempDir()
	c := startServer(t)
	if r := c.call(map[string]any{"op": "write", "out": []string{filepath.Join(dir, "a.tfrecord")}, "compression": "NONE"}); r.Error != nil {
		t.Fatal(r.Error)
	}
	c.sendRaw([]byte{partMessage, 1, 2, 3})
	r := c.call(map[string]string{"op": "commit"})
	if r.Error == nil || !strings.Contains(r.Error.Message, "first part of 3 bytes") {
		t.Errorf("commit after a first part of 3 bytes: %+v", r)
	}
}

// A cancelled session's reader keeps draining the input, and Serve ends.
func TestServeReadAheadDrains(t *testing.T) {
	inR, inW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, inR, io.Discard) }()
	cancel()
	for range 10 {
		if err := WriteMessage(inW, map[string]any{"op": "next"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Serve: %v", err)
	}
	inW.Close()
}
