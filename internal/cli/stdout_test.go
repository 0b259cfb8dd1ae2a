package cli

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sluiceml/sluice/tfrecord"
)

// fullWriter fails every write, as /dev/full does.
type fullWriter struct{}

func (fullWriter) Write([]byte) (int, error) { return 0, syscall.ENOSPC }

// A command whose output is lost fails, with the write's error, whether
// or not its own code looked at it (audit 110: these exited 0).
func TestOutputLost(t *testing.T) {
	dir := t.TempDir()
	p := writeExamples(t, dir, "x.tfrecord", 3, tfrecord.None)
	csv := filepath.Join(dir, "x.csv")
	if err := os.WriteFile(csv, []byte("a,b\n1,2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"count", p},
		{"count", "--json", p},
		{"verify", p},
		{"verify", "--json", p},
		{"index", p},
		{"schema", "-o", "python", p},
		{"schema", "--from", "csv", "--header", "-o", "python", csv},
		{"convert", "--from", "csv", "--header", csv, "--out", filepath.Join(dir, "out")},
		{"cat", p},
		{"cat", "--help"},
		{"help"},
	} {
		var errOut strings.Builder
		code := Main(context.Background(), args, fullWriter{}, &errOut)
		if code != 1 || !strings.Contains(errOut.String(), "no space left on device") {
			t.Errorf("%q: exit %d, stderr %q; want 1 and the write's error", args, code, errOut.String())
		}
	}
}

// A write to a pipe nobody reads ends when the command is interrupted,
// rather than holding it in write(2) past SIGTERM (audit 110).
func TestOutputBlockedInterrupted(t *testing.T) {
	p := writeExamples(t, t.TempDir(), "big.tfrecord", 20000, tfrecord.None)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	code := make(chan int, 1)
	var errOut strings.Builder
	go func() { code <- Main(ctx, []string{"cat", p}, w, &errOut) }()
	// The first bytes arrive, then nothing reads: cat's next writes fill
	// the pipe and wait.
	if _, err := r.Read(make([]byte, 1)); err != nil {
		t.Fatal(err)
	}
	cancel()
	select {
	case c := <-code:
		if c != 1 || !strings.Contains(errOut.String(), context.Canceled.Error()) {
			t.Errorf("exit %d, stderr %q; want 1 and the context's error", c, errOut.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("cat still writing to a pipe nobody reads, 30 s after its context ended")
	}
}

// /dev/null and /dev/full are character devices but not terminals: no
// progress line is drawn into them (audit 110).
func TestIsTTY(t *testing.T) {
	for _, name := range []string{os.DevNull, "/dev/full"} {
		f, err := os.OpenFile(name, os.O_WRONLY, 0)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if isTTY(f) || isTTY(newStdout(context.Background(), f)) {
			t.Errorf("%s taken for a terminal", name)
		}
		f.Close()
	}
}
