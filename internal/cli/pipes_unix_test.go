//go:build linux

package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sluiceml/sluice/internal/interrupt"
	"github.com/sluiceml/sluice/tfrecord"
)

// Named pipes and process substitutions (/dev/fd/N) are read as standard
// input is: their compression found from their first bytes, which a pipe
// cannot be read at an offset for.
func TestPipesAutoCompression(t *testing.T) {
	dir := t.TempDir()
	csv := writeFile(t, filepath.Join(dir, "in.csv"), []byte("a,b\n1,x\n2,y\n3,z\n"))
	for _, tc := range []struct {
		args []string
		in   string // the file written into the pipe
		want string // the start of the output
	}{
		{[]string{"count"}, writeExamples(t, dir, "x.tfrecord", 3, tfrecord.None), "3\t"},
		{[]string{"count"}, writeExamples(t, dir, "x.tfrecord.gz", 3, tfrecord.Gzip), "3\t"},
		{[]string{"count"}, writeExamples(t, dir, "x.tfrecord.zlib", 3, tfrecord.Zlib), "3\t"},
		{[]string{"count", "--compression", "GZIP"}, writeExamples(t, dir, "y.tfrecord.gz", 3, tfrecord.Gzip), "3\t"},
		{[]string{"cat", "--limit", "1"}, writeExamples(t, dir, "z.tfrecord.gz", 3, tfrecord.Gzip), `{"features":`},
		{[]string{"verify"}, writeExamples(t, dir, "v.tfrecord.gz", 3, tfrecord.Gzip), "3 good records in 1 file"},
		{[]string{"schema"}, writeExamples(t, dir, "s.tfrecord.gz", 3, tfrecord.Gzip), "3 records in 1 file"},
		{[]string{"stats", "--from", "csv", "--header"}, csv, "3 records in 1 file"},
		{[]string{"bench"}, writeExamples(t, dir, "b.tfrecord.gz", 3, tfrecord.Gzip), "3 records, "},
		// The spec from the file named after the pipe, which the run
		// reads whole (audit 78: sampling the pipe first lost its start).
		{[]string{"bench", "--parse", writeExamples(t, dir, "p.tfrecord", 2, tfrecord.None)}, writeExamples(t, dir, "b.tfrecord.zlib", 3, tfrecord.Zlib), "5 records, "},
	} {
		data, err := os.ReadFile(tc.in)
		if err != nil {
			t.Fatal(err)
		}
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		go func() { w.Write(data); w.Close() }()
		name := "/proc/self/fd/" + strconv.Itoa(int(r.Fd()))
		code, out, errOut := run(t, append(tc.args, name)...)
		r.Close()
		if code != 0 || !strings.HasPrefix(out, tc.want) {
			t.Errorf("%q of %s: exit %d, %q, %q; want output starting %q", tc.args, filepath.Base(tc.in), code, out, errOut, tc.want)
		}
	}
	// bench reads a pipe for one epoch only: two are refused, not read as
	// one with the second empty (audit 81).
	code, _, errOut := run(t, "bench", "--epochs", "2", "/dev/null")
	if code != 1 || !strings.Contains(errOut, "/dev/null can be read only once, and --epochs 2 reads each file 2 times") {
		t.Errorf("bench --epochs 2 of a device: exit %d, %q", code, errOut)
	}
}

// SIGINT or SIGTERM ends a command reading a named pipe at once, whether
// no writer has opened the pipe yet or its writer is silent, with the
// exit code of the signal.
func TestNamedPipeInterrupted(t *testing.T) {
	for _, writer := range []string{"none", "silent"} {
		for _, args := range [][]string{
			{"count"}, {"count", "--compression", "NONE"}, {"cat"}, {"verify"}, {"stats"}, {"schema"},
			{"convert", "--from", "csv", "--out", "OUT"}, {"convert", "--from", "tfrecord", "--out", "OUT"},
		} {
			t.Run(writer+" "+strings.Join(args, " "), func(t *testing.T) {
				dir := t.TempDir()
				fifo := filepath.Join(dir, "fifo")
				if err := syscall.Mkfifo(fifo, 0o600); err != nil {
					t.Skip(err)
				}
				if writer == "silent" {
					// A writer that wrote the start of a record, and
					// nothing since.
					opened := make(chan *os.File, 1)
					go func() {
						w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
						if err == nil {
							w.Write([]byte("a,b\n\x05\x00"))
						}
						opened <- w
					}()
					defer func() { (<-opened).Close() }()
				}
				ctx, cancel := context.WithCancelCause(context.Background())
				defer cancel(nil)
				cmd := append([]string{}, args...)
				for i, a := range cmd {
					if a == "OUT" {
						cmd[i] = filepath.Join(dir, "out")
					}
				}
				done := make(chan int, 1)
				var out, errOut bytes.Buffer
				go func() { done <- Main(ctx, append(cmd, fifo), &out, &errOut) }()
				time.Sleep(100 * time.Millisecond)
				cancel(interrupt.Error{Signal: syscall.SIGTERM})
				select {
				case code := <-done:
					if code != 143 {
						t.Errorf("exit %d after SIGTERM, want 143", code)
					}
					// No verdict on a file it never read, nor a summary
					// of a run cut short (audit 78: verify said "1 file
					// not read through").
					if strings.Contains(out.String()+errOut.String(), "not read through") {
						t.Errorf("output of an interrupted run: %q, %q", out.String(), errOut.String())
					}
				case <-time.After(10 * time.Second):
					t.Fatal("still running 10 s after SIGTERM")
				}
			})
		}
	}
}

// A temporary listed beside a file and gone by the time verify asks
// about it (its write committed meanwhile) is not reported as a dead
// write's leftover: verify failed a write that ended while it read (audit
// 53). The file is a named pipe, so that the temporary goes while verify
// reads.
func TestVerifyTemporaryGoneWhileReading(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "a.tfrecord")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	temp := filepath.Join(dir, ".a.tfrecord.sluice-tmp-0123456789ab")
	if err := os.WriteFile(temp, []byte("half"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut strings.Builder
	done := make(chan int, 1)
	go func() { done <- Main(context.Background(), []string{"verify", fifo}, &out, &errOut) }()
	w, err := os.OpenFile(fifo, os.O_WRONLY, 0) // once verify reads it
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(temp)
	tw := tfrecord.NewWriter(w)
	tw.Write([]byte("a record"))
	tw.Close()
	w.Close()
	if code := <-done; code != 0 || strings.Contains(out.String()+errOut.String(), "incomplete") {
		t.Errorf("exit %d: %q %q; want 0 and no leftover", code, out.String(), errOut.String())
	}
}

// index given a named pipe among its files says the pipe is a stream and
// indexes the others: it hung, opening the pipe again for a hint and
// waiting for a writer that had come and gone (audit 84).
func TestIndexNamedPipe(t *testing.T) {
	t.Setenv("SLUICE_INDEX_DIR", filepath.Join(t.TempDir(), "cache"))
	dir := t.TempDir()
	a := writeExamples(t, dir, "a.tfrecord", 3, tfrecord.None)
	b := writeExamples(t, dir, "b.tfrecord", 3, tfrecord.None)
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	wrote := make(chan struct{})
	go func() {
		defer close(wrote)
		if w, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
			w.Close() // one writer, which writes nothing
		}
	}()
	defer func() {
		// A writer still waiting for a reader (the pipe never opened)
		// is let go.
		if r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
			<-wrote
			r.Close()
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var out, errOut bytes.Buffer
	code := Main(ctx, []string{"index", "--parallel", "1", a, fifo, b}, &out, &errOut)
	if ctx.Err() != nil {
		t.Fatal("index still running after 20 s")
	}
	if code != 1 || !strings.Contains(errOut.String(), fifo) || !strings.Contains(errOut.String(), "stream") ||
		!strings.Contains(out.String(), a) || !strings.Contains(out.String(), b) {
		t.Errorf("exit %d\n%s\n%s", code, out.String(), errOut.String())
	}
}
