//go:build unix

package main

import (
	"fmt"
	"os"
	"slices"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/sluiceml/sluice/internal/pyserve"
)

// TestRequestsThroughPoller checks that a server with one P reads its
// requests from a non-blocking stdin (requests), serves every batch
// through it, and leaves the pipe blocking again when it exits; with two
// Ps stdin stays as it was.
func TestRequestsThroughPoller(t *testing.T) {
	for _, tc := range []struct {
		procs       int
		nonblocking bool
	}{
		{1, true},
		{2, false},
	} {
		t.Run(fmt.Sprintf("GOMAXPROCS=%d", tc.procs), func(t *testing.T) {
			shm := t.TempDir()
			const records, batch = 64, 4
			data := writeExamples(t, records, 2)

			// The read end is handed to the server as it is, and the
			// test's copy shares its mode. (exec makes it blocking, as the
			// server's stdin is when Python starts it.)
			pr, pw, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer pr.Close()
			defer pw.Close()
			cmd := serverCommand(shm, fmt.Sprintf("GOMAXPROCS=%d", tc.procs))
			cmd.Stdin = pr
			stdout := runServer(t, cmd)
			call := func(req any) pyserve.Reply {
				t.Helper()
				if err := pyserve.WriteMessage(pw, req); err != nil {
					t.Fatal(err)
				}
				return readReply(t, stdout)
			}
			// The read end's mode, read without Fd, which would make it
			// blocking.
			rc, err := pr.SyscallConn()
			if err != nil {
				t.Fatal(err)
			}
			nonblocking := func() bool {
				t.Helper()
				var fl int
				var ferr error
				if err := rc.Control(func(fd uintptr) { fl, ferr = unix.FcntlInt(fd, unix.F_GETFL, 0) }); err != nil {
					t.Fatal(err)
				}
				if ferr != nil {
					t.Fatal(ferr)
				}
				return fl&unix.O_NONBLOCK != 0
			}

			call(map[string]any{"op": "open", "kind": "examples", "files": []string{data}, "batch_size": batch,
				"spec": map[string]any{"label": map[string]any{"kind": "fixed", "dtype": "int64"},
					"image": map[string]any{"kind": "fixed", "dtype": "float32", "shape": []int{2}}}})
			if got := nonblocking(); got != tc.nonblocking {
				t.Errorf("stdin non-blocking while serving: %v, want %v", got, tc.nonblocking)
			}
			var batches int
			for {
				r := call(map[string]string{"op": "next"})
				if r.End {
					break
				}
				if r.Batch == nil {
					t.Fatalf("next: %+v", r)
				}
				if r.Batch.File != "" {
					call(map[string]string{"op": "mapped", "file": r.Batch.File})
				}
				i := slices.IndexFunc(r.Batch.Arrays, func(a pyserve.ArrayInfo) bool { return a.Name == "label" })
				if i < 0 || !slices.Equal(r.Batch.Arrays[i].Shape, []int{batch}) {
					t.Fatalf("batch %d: arrays %+v, want a label of %d rows", batches, r.Batch.Arrays, batch)
				}
				batches++
			}
			if batches != records/batch {
				t.Errorf("%d batches, want %d", batches, records/batch)
			}
			call(map[string]string{"op": "close"})
			exitsClean(t, cmd, shm, "close")
			if nonblocking() {
				t.Error("stdin left non-blocking after the server exited")
			}
		})
	}
}
