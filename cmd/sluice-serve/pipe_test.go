//go:build unix

package main

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/sluiceml/sluice/example"
	"github.com/sluiceml/sluice/internal/pyserve"
	"github.com/sluiceml/sluice/tfrecord"
)

// serveEnv makes the test binary run main instead of the tests, so that
// a test can run the server as a process of its own, signals and all.
const serveEnv = "SLUICE_SERVE_TEST_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(serveEnv) == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestClosedStdout checks that a client that stops reading while replies
// are on their way (it closed, or died with a request outstanding) ends
// the server with its shared-memory files removed, rather than a death by
// SIGPIPE that leaves them behind.
func TestClosedStdout(t *testing.T) {
	shm := t.TempDir()
	data := writeExamples(t, 64, 2)

	cmd, stdin, stdout := startServer(t, shm)
	call := func(req any) pyserve.Reply {
		t.Helper()
		if err := pyserve.WriteMessage(stdin, req); err != nil {
			t.Fatal(err)
		}
		return readReply(t, stdout)
	}
	call(map[string]any{"op": "open", "kind": "examples", "files": []string{data}, "batch_size": 4, "epochs": 100,
		"spec": map[string]any{"label": map[string]any{"kind": "fixed", "dtype": "int64"},
			"image": map[string]any{"kind": "fixed", "dtype": "float32", "shape": []int{2}}}})
	if r := call(map[string]string{"op": "next"}); r.Batch == nil {
		t.Fatalf("next: %+v, want a batch", r)
	}
	if files, _ := filepath.Glob(filepath.Join(shm, "*")); len(files) == 0 {
		t.Fatal("no shared-memory file after a batch: the test would prove nothing")
	}

	stdout.Close() // the client stops reading; its stdin stays open
	if err := pyserve.WriteMessage(stdin, map[string]string{"op": "next"}); err != nil {
		t.Fatal(err)
	}
	exitsClean(t, cmd, shm, "its stdout closed")
}

// TestTrainerDiesHoldingSlots checks that a client that dies holding
// batches in slots lent to the readers (not freed by a later request),
// with a request outstanding, ends the server with every shared-memory
// file gone.
func TestTrainerDiesHoldingSlots(t *testing.T) {
	shm := t.TempDir()
	data := writeExamples(t, 64, 32)

	cmd, stdin, stdout := startServer(t, shm)
	recv := func() pyserve.Reply {
		t.Helper()
		return readReply(t, stdout)
	}
	send := func(req any) {
		t.Helper()
		if err := pyserve.WriteMessage(stdin, req); err != nil {
			t.Fatal(err)
		}
	}
	var maps [][]byte
	mapFile := func(path string, size int) {
		t.Helper()
		f, err := os.OpenFile(path, os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		m, err := syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
		if err != nil {
			t.Fatal(err)
		}
		maps = append(maps, m)
	}
	defer func() {
		for _, m := range maps {
			syscall.Munmap(m)
		}
	}()
	// Float32 images of 128 bytes a record: decoded into lent slots.
	send(map[string]any{"op": "open", "kind": "examples", "files": []string{data}, "batch_size": 4, "epochs": 100, "slots": 9,
		"spec": map[string]any{"label": map[string]any{"kind": "fixed", "dtype": "int64"},
			"image": map[string]any{"kind": "fixed", "dtype": "float32", "shape": []int{32}}}})
	recv()
	// Eight batches asked for and held.
	send(map[string]any{"op": "next", "count": 4})
	send(map[string]any{"op": "next", "keep": 4, "count": 4})
	var files []string
	for range 8 {
		if b := recv().Batch; b == nil {
			t.Fatal("no batch")
		} else if b.File != "" {
			mapFile(b.File, b.FileSize)
			files = append(files, b.File)
		}
	}
	for _, f := range files {
		send(map[string]string{"op": "mapped", "file": f})
		recv()
	}
	// The client dies: the kernel closes its pipes, with a request for
	// more outstanding.
	send(map[string]any{"op": "next", "keep": 7})
	stdin.Close()
	stdout.Close()
	exitsClean(t, cmd, shm, "its client died")
}

// writeExamples writes n Examples, an int64 label and a float image of
// width values each, to a TFRecord file and returns its name.
func writeExamples(t *testing.T, n, width int) string {
	t.Helper()
	data := filepath.Join(t.TempDir(), "train.tfrecord")
	f, err := os.Create(data)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := tfrecord.NewWriter(f, tfrecord.None)
	image := make([]float32, width)
	for i := range n {
		image[0] = float32(i)
		if err := w.Write(example.New().Int64("label", int64(i)).Floats("image", image).Marshal()); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return data
}

// startServer runs the server as a process of its own (the test binary
// running main), its shared-memory files in shm, and kills it at the end
// of the test if it is still running.
func startServer(t *testing.T, shm string) (*exec.Cmd, io.WriteCloser, io.ReadCloser) {
	t.Helper()
	cmd := serverCommand(shm)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	return cmd, stdin, runServer(t, cmd)
}

// serverCommand returns the command that runs the server (the test binary
// running main) with its shared-memory files in shm and env added to its
// environment.
func serverCommand(shm string, env ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(append(os.Environ(), serveEnv+"=1", "SLUICE_SHM_DIR="+shm), env...)
	return cmd
}

// runServer starts cmd, whose stdin is set, and returns its stdout; the
// server is killed at the end of the test if it is still running.
func runServer(t *testing.T, cmd *exec.Cmd) io.ReadCloser {
	t.Helper()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	return stdout
}

// exitsClean checks that the server exits by itself within 30 s after
// what happened (why), not by a signal, and leaves no file in shm.
func exitsClean(t *testing.T, cmd *exec.Cmd, shm, why string) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		t.Fatalf("the server is still running 30 s after %s", why)
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			t.Fatalf("the server died of %v", ws.Signal())
		}
		t.Fatalf("the server exited with %v", err)
	} else if err != nil && !errors.Is(err, io.ErrClosedPipe) && !errors.Is(err, os.ErrClosed) {
		t.Fatal(err)
	}
	if files, _ := filepath.Glob(filepath.Join(shm, "*")); len(files) > 0 {
		t.Errorf("shared-memory files left behind: %v", files)
	}
}

// readReply reads the server's next reply, failing the test on an error
// reply.
func readReply(t *testing.T, stdout io.Reader) pyserve.Reply {
	t.Helper()
	msg, err := pyserve.ReadMessage(stdout)
	if err != nil {
		t.Fatal(err)
	}
	var r pyserve.Reply
	if err := json.Unmarshal(msg, &r); err != nil {
		t.Fatalf("reply %s: %v", msg, err)
	}
	if r.Error != nil {
		t.Fatalf("error reply: %+v", r.Error)
	}
	return r
}

// A server whose parent died before the server looked at its parent, as
// the client gave its pid in SLUICE_PARENT_PID, exits, though something
// else holds its stdin open: it took its successor for its parent and ran
// on (audit 71).
func TestParentGoneBeforeStart(t *testing.T) {
	shm := t.TempDir()
	cmd := serverCommand(shm, parentEnv+"=999999999") // not this test's pid
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close() // held open until the server has exited
	runServer(t, cmd)
	exitsClean(t, cmd, shm, "its parent was found gone")
}

// A server run by a wrapper (its parent) for a client (SLUICE_PARENT_PID)
// exits when the client dies, though the wrapper lives on and something
// else holds its stdin open: only its parent was watched (audit 72).
func TestClientGoneUnderWrapper(t *testing.T) {
	client := exec.Command("sleep", "1")
	if err := client.Start(); err != nil {
		t.Skip("no sleep command:", err)
	}
	shm := t.TempDir()
	cmd := serverCommand(shm, parentEnv+"="+strconv.Itoa(client.Process.Pid))
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close() // held open until the server has exited
	runServer(t, cmd)
	if err := client.Wait(); err != nil { // the client dies, reaped at once
		t.Fatal(err)
	}
	exitsClean(t, cmd, shm, "its client died")
}

// A server given a process to watch besides its client (SLUICE_WATCH_PID:
// the trainer of a DataLoader worker that is the client) exits when that
// process dies, though its parent and client live on and something holds
// its stdin open (audit 90: a forkserver's workers and their servers
// outlived the trainer); and at once if it was gone before the server
// started.
func TestWatchedProcessGone(t *testing.T) {
	trainer := exec.Command("sleep", "1")
	if err := trainer.Start(); err != nil {
		t.Skip("no sleep command:", err)
	}
	shm := t.TempDir()
	cmd := serverCommand(shm, watchEnv+"="+strconv.Itoa(trainer.Process.Pid))
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close() // held open until the server has exited
	runServer(t, cmd)
	if err := trainer.Wait(); err != nil { // the trainer dies, reaped at once
		t.Fatal(err)
	}
	exitsClean(t, cmd, shm, "the watched process died")

	cmd = serverCommand(shm, watchEnv+"=999999999")
	stdin2, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin2.Close()
	runServer(t, cmd)
	exitsClean(t, cmd, shm, "the watched process was gone")
}

// A watched process that was killed and not yet reaped (a zombie, as
// under a launcher that does not wait for its trainer) is gone: kill(pid,
// 0) still finds it, and kept the server running until it was reaped
// (audit 91).
func TestWatchedZombie(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc: a zombie is alive to kill(2)")
	}
	trainer := exec.Command("sleep", "30")
	if err := trainer.Start(); err != nil {
		t.Skip("no sleep command:", err)
	}
	defer trainer.Wait()
	shm := t.TempDir()
	cmd := serverCommand(shm, watchEnv+"="+strconv.Itoa(trainer.Process.Pid))
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	runServer(t, cmd)
	if err := trainer.Process.Kill(); err != nil { // not reaped until the test ends
		t.Fatal(err)
	}
	exitsClean(t, cmd, shm, "the watched process is a zombie")
}

// A pid in SLUICE_PARENT_PID or SLUICE_WATCH_PID is a positive number of
// at most 32 bits: kill(2) cuts a larger one to another pid, or to 0, the
// server's own process group, which is always alive (audit 94).
func TestPidIn(t *testing.T) {
	for _, c := range []struct {
		value string
		pid   int
		ok    bool
	}{
		{"1234", 1234, true},
		{"2147483647", 2147483647, true},
		{"4294967296", 0, false},
		{"4294967297", 0, false},
		{"0", 0, false},
		{"-5", 0, false},
		{"abc", 0, false},
		{"", 0, false},
	} {
		t.Setenv(watchEnv, c.value)
		if pid, ok := pidIn(watchEnv); ok != c.ok || ok && pid != c.pid {
			t.Errorf("%q: %d, %v; want %d, %v", c.value, pid, ok, c.pid, c.ok)
		}
	}
}
