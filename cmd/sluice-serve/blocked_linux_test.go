package main

import (
	"errors"
	"fmt"
	"io"
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
	for _, tc := range []struct{ stdout, end string }{
		{"pipe", "SIGTERM"}, {"pipe", "stdin closed"}, {"socket", "SIGTERM"}, {"socket", "stdin closed"},
		// One socket as stdin and stdout (audit 100).
		{"one socket", "SIGTERM"}, {"one socket", "stdin closed"},
	} {
		t.Run(tc.stdout+", "+tc.end, func(t *testing.T) {
			shm := t.TempDir()
			cmd := serverCommand(shm)
			var stdin io.WriteCloser
			var stdout *os.File
			switch tc.stdout {
			case "pipe":
				p, err := cmd.StdinPipe()
				if err != nil {
					t.Fatal(err)
				}
				stdin, stdout = p, runServer(t, cmd).(*os.File)
			case "socket":
				p, err := cmd.StdinPipe()
				if err != nil {
					t.Fatal(err)
				}
				stdin, stdout = p, startOverSocket(t, cmd, false)
			case "one socket":
				stdout = startOverSocket(t, cmd, true)
				stdin = halfCloser{stdout}
			}
			if err := pyserve.WriteMessage(stdin, map[string]any{"op": "open", "kind": "examples", "files": []string{data},
				"batch_size": 1, "epochs": 100, "slots": 64, "spec": spec}); err != nil {
				t.Fatal(err)
			}
			readReply(t, stdout)
			// 63 replies of 200 arrays each, far more than a pipe or a
			// socket's buffer holds.
			if err := pyserve.WriteMessage(stdin, map[string]any{"op": "next", "count": 63}); err != nil {
				t.Fatal(err)
			}
			// Until the buffer is full (it holds the same for a while),
			// and the server's write waits.
			fd := int(stdout.Fd())
			deadline := time.Now().Add(20 * time.Second)
			for last := -1; ; {
				n, err := unix.IoctlGetInt(fd, unix.TIOCINQ)
				if err != nil {
					t.Fatal(err)
				}
				if n >= 60<<10 && n == last {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("the buffer holds %d bytes after 20 s: the replies did not fill it", n)
				}
				last = n
				time.Sleep(50 * time.Millisecond)
			}
			if files, _ := filepath.Glob(filepath.Join(shm, "*")); len(files) == 0 {
				t.Fatal("no shared-memory file: the test would prove nothing of their removal")
			}
			if tc.end == "SIGTERM" {
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

// A reply that fits in the pipe is written though the session has ended:
// the close a client sends right before it closes its end of the requests
// gets its reply. A deadline set at once at the end failed it (audit 97).
func TestReplyAfterEndOfRequests(t *testing.T) {
	for range 20 {
		shm := t.TempDir()
		cmd, stdin, stdout := startServer(t, shm)
		if err := pyserve.WriteMessage(stdin, map[string]string{"op": "close"}); err != nil {
			t.Fatal(err)
		}
		stdin.Close()
		if r := readReply(t, stdout); !r.OK {
			t.Fatalf("close: %+v, want ok", r)
		}
		exitsClean(t, cmd, shm, "a close")
	}
}

// One socket as both stdin and stdout (a client's end of a socket pair)
// serves as two pipes do: switched to non-blocking for the replies, it
// failed the requests' blocking read with EAGAIN (audit 99).
func TestOneSocketBothWays(t *testing.T) {
	for _, procs := range []string{"1", "4"} {
		shm := t.TempDir()
		cmd := serverCommand(shm, "GOMAXPROCS="+procs)
		mine := startOverSocket(t, cmd, true)
		// A first request answered: the server reads the next while the
		// socket is empty.
		if err := pyserve.WriteMessage(mine, map[string]string{"op": "next"}); err != nil {
			t.Fatal(err)
		}
		if _, err := pyserve.ReadMessage(mine); err != nil {
			t.Fatalf("GOMAXPROCS=%s: the reply to a next before an open: %v", procs, err)
		}
		if err := pyserve.WriteMessage(mine, map[string]string{"op": "close"}); err != nil {
			t.Fatal(err)
		}
		if r := readReply(t, mine); !r.OK {
			t.Fatalf("GOMAXPROCS=%s: close: %+v, want ok", procs, r)
		}
		mine.Close()
		exitsClean(t, cmd, shm, "a close")
	}
}

// halfCloser writes to a socket, and its Close ends the socket's writing
// half only, as closing a pipe to the server does.
type halfCloser struct{ f *os.File }

func (h halfCloser) Write(p []byte) (int, error) { return h.f.Write(p) }
func (h halfCloser) Close() error                { return syscall.Shutdown(int(h.f.Fd()), syscall.SHUT_WR) }

// A server handed descriptors already non-blocking (Python's
// socket.setdefaulttimeout makes every socket so) serves as with blocking
// ones: a second File of such a descriptor could not be polled, and its
// reads and writes failed with EAGAIN (audit 102). exec.Cmd makes the
// descriptors it passes blocking, so the server is started with
// syscall.StartProcess.
func TestNonBlockingStdio(t *testing.T) {
	for _, tc := range []struct {
		name  string
		procs string
		one   bool
	}{
		{"one socket", "1", true}, {"one socket", "4", true}, {"two sockets", "1", false}, {"two sockets", "4", false},
	} {
		t.Run(tc.name+", GOMAXPROCS="+tc.procs, func(t *testing.T) {
			pair := func() (mine *os.File, theirs int) {
				fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
				if err != nil {
					t.Fatal(err)
				}
				if err := syscall.SetNonblock(fds[1], true); err != nil {
					t.Fatal(err)
				}
				return os.NewFile(uintptr(fds[0]), "client"), fds[1]
			}
			in, theirsIn := pair()
			out, theirsOut := in, theirsIn
			if !tc.one {
				out, theirsOut = pair()
				defer out.Close()
			}
			defer in.Close()
			shm := t.TempDir()
			env := append(os.Environ(), serveEnv+"=1", "SLUICE_SHM_DIR="+shm, "GOMAXPROCS="+tc.procs)
			pid, err := syscall.ForkExec(os.Args[0], []string{os.Args[0]}, &syscall.ProcAttr{Env: env, Files: []uintptr{uintptr(theirsIn), uintptr(theirsOut), 2}})
			syscall.Close(theirsIn)
			if !tc.one {
				syscall.Close(theirsOut)
			}
			if err != nil {
				t.Fatal(err)
			}
			proc, err := os.FindProcess(pid)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { proc.Kill() })
			time.Sleep(100 * time.Millisecond) // the server reads an empty socket first
			if err := pyserve.WriteMessage(in, map[string]string{"op": "next"}); err != nil {
				t.Fatal(err)
			}
			if _, err := pyserve.ReadMessage(out); err != nil {
				t.Fatalf("the reply to a next before an open: %v", err)
			}
			if err := pyserve.WriteMessage(in, map[string]string{"op": "close"}); err != nil {
				t.Fatal(err)
			}
			if r := readReply(t, out); !r.OK {
				t.Fatalf("close: %+v, want ok", r)
			}
			done := make(chan *os.ProcessState, 1)
			go func() { st, _ := proc.Wait(); done <- st }()
			select {
			case st := <-done:
				if st == nil || st.ExitCode() != 0 {
					t.Fatalf("the server ended with %v, want exit status 0", st)
				}
			case <-time.After(30 * time.Second):
				t.Fatal("the server is still running 30 s after a close")
			}
		})
	}
}

// startOverSocket starts cmd with one end of a socket pair as its stdout,
// and as its stdin too if both, and returns the other end, closed at the
// end of the test; the server is killed then if it still runs.
func startOverSocket(t *testing.T, cmd *exec.Cmd, both bool) *os.File {
	t.Helper()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	mine, theirs := os.NewFile(uintptr(fds[0]), "client"), os.NewFile(uintptr(fds[1]), "server")
	t.Cleanup(func() { mine.Close() })
	cmd.Stdout = theirs
	if both {
		cmd.Stdin = theirs
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	theirs.Close()
	t.Cleanup(func() { cmd.Process.Kill() })
	return mine
}
