package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/sluiceml/sluice/example"
	"github.com/sluiceml/sluice/internal/pyserve"
	"github.com/sluiceml/sluice/tfrecord"
	"golang.org/x/sys/unix"
)

// A client that stops reading while a pipe full of replies waits (a trainer
// stopped or hung) does not keep the server from a SIGTERM or the end of
// its stdin: the reply is given up, and the server exits as it says, its
// shared-memory files removed. The write waited in the kernel, and the
// server ignored both (audit 96).
func TestBlockedReplyGivenUp(t *testing.T) {
	const features = 200
	data := filepath.Join(t.TempDir(), "wide.tfrecord")
	f, err := os.Create(data)
	if err != nil {
		t.Fatal(err)
	}
	w := tfrecord.NewWriter(f, tfrecord.None)
	spec := map[string]any{}
	for i := range 8 {
		b := example.New()
		for j := range features {
			name := fmt.Sprintf("feature%03d", j)
			b.Int64(name, int64(i))
			spec[name] = map[string]any{"kind": "fixed", "dtype": "int64"}
		}
		if err := w.Write(b.Marshal()); err != nil {
			t.Fatal(err)
		}
	}
	if err := errors.Join(w.Close(), f.Close()); err != nil {
		t.Fatal(err)
	}
	for _, end := range []string{"SIGTERM", "stdin closed"} {
		t.Run(end, func(t *testing.T) {
			shm := t.TempDir()
			cmd, stdin, stdout := startServer(t, shm)
			if err := pyserve.WriteMessage(stdin, map[string]any{"op": "open", "kind": "examples", "files": []string{data},
				"batch_size": 1, "epochs": 100, "slots": 64, "spec": spec}); err != nil {
				t.Fatal(err)
			}
			readReply(t, stdout)
			// 63 replies of 200 arrays each, far more than a pipe holds.
			if err := pyserve.WriteMessage(stdin, map[string]any{"op": "next", "count": 63}); err != nil {
				t.Fatal(err)
			}
			// Until the pipe is full, and the server's write waits.
			fd := int(stdout.(*os.File).Fd())
			deadline := time.Now().Add(20 * time.Second)
			for {
				n, err := unix.IoctlGetInt(fd, unix.TIOCINQ)
				if err != nil {
					t.Fatal(err)
				}
				if n >= 60<<10 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("the pipe holds %d bytes after 20 s: the replies did not fill it", n)
				}
				time.Sleep(time.Millisecond)
			}
			if files, _ := filepath.Glob(filepath.Join(shm, "*")); len(files) == 0 {
				t.Fatal("no shared-memory file: the test would prove nothing of their removal")
			}
			if end == "SIGTERM" {
				if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
					t.Fatal(err)
				}
				done := make(chan error, 1)
				go func() { done <- cmd.Wait() }()
				select {
				case err := <-done:
					var exit *exec.ExitError
					if !errors.As(err, &exit) || exit.ExitCode() != 143 {
						t.Fatalf("the server ended with %v, want exit status 143", err)
					}
				case <-time.After(30 * time.Second):
					t.Fatal("the server is still running 30 s after SIGTERM")
				}
				if files, _ := filepath.Glob(filepath.Join(shm, "*")); len(files) > 0 {
					t.Errorf("shared-memory files left behind: %v", files)
				}
				return
			}
			stdin.Close()
			exitsClean(t, cmd, shm, "its stdin closed")
		})
	}
}
