package recordio

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/sluiceml/sluice/storage"
	"github.com/sluiceml/sluice/tfrecord"
)

// existing returns which of names exist as files.
func existing(t *testing.T, names []string) []string {
	t.Helper()
	var got []string
	for _, n := range names {
		if _, err := os.Stat(n); err == nil {
			got = append(got, n)
		}
	}
	return got
}

// temporaries returns the leftovers beside every name.
func temporaries(t *testing.T, names []string) []string {
	t.Helper()
	var got []string
	for _, n := range names {
		l, err := storage.Leftovers(bg, n)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, l...)
	}
	return got
}

// The files appear under their names only when Close succeeds; until then
// they are temporaries beside them.
func TestShardedWriterAppearsOnClose(t *testing.T) {
	names := ShardNames(filepath.Join(t.TempDir(), "d"), 3, ".tfrecord.gz")
	w, err := NewShardedWriter(bg, names, tfrecord.Gzip)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		if err := w.Write(fmt.Appendf(nil, "r%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	if got := existing(t, names); len(got) != 0 {
		t.Fatalf("before Close, files under their final names: %q", got)
	}
	if got := temporaries(t, names); len(got) != 3 {
		t.Fatalf("before Close, temporaries %q, want 3", got)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got := existing(t, names); !slices.Equal(got, names) {
		t.Fatalf("after Close, files %q, want %q", got, names)
	}
	if got := temporaries(t, names); len(got) != 0 {
		t.Fatalf("after Close, temporaries left: %q", got)
	}
	if n := countRecords(t, names, tfrecord.Gzip); n != 10 {
		t.Errorf("read back %d records, want 10", n)
	}
}

// Every way of not finishing leaves the final names as they were (absent,
// or an older file) and no temporaries.
func TestShardedWriterNothingOnFailure(t *testing.T) {
	for _, tc := range []struct {
		name string
		fail func(w *ShardedWriter, cancel context.CancelFunc) error
	}{
		{"Abort", func(w *ShardedWriter, _ context.CancelFunc) error {
			if err := w.Abort(); err != nil {
				return fmt.Errorf("Abort: %w", err)
			}
			if err := w.Close(); err != nil {
				return fmt.Errorf("Close after Abort: %w", err)
			}
			return errors.New("aborted")
		}},
		{"cancelled context", func(w *ShardedWriter, cancel context.CancelFunc) error {
			cancel()
			return w.Close()
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			names := ShardNames(filepath.Join(dir, "d"), 2, ".tfrecord")
			old := []byte("the previous data set")
			if err := os.WriteFile(names[0], old, 0o644); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(bg)
			defer cancel()
			w, err := NewShardedWriter(ctx, names)
			if err != nil {
				t.Fatal(err)
			}
			for range 5 {
				if err := w.Write([]byte("new")); err != nil {
					t.Fatal(err)
				}
			}
			if err := tc.fail(w, cancel); err == nil {
				t.Fatal("the write succeeded")
			}
			if got, _ := os.ReadFile(names[0]); string(got) != string(old) {
				t.Errorf("%s = %q, want the previous file untouched", names[0], got)
			}
			if got := existing(t, names[1:]); len(got) != 0 {
				t.Errorf("files appeared: %q", got)
			}
			if got := temporaries(t, names); len(got) != 0 {
				t.Errorf("temporaries left: %q", got)
			}
		})
	}
}

// A failed Write dooms the data set: Close returns the Write's error and
// writes nothing.
func TestShardedWriterFailedWrite(t *testing.T) {
	names := ShardNames(filepath.Join(t.TempDir(), "d"), 2, ".tfrecord")
	w, err := NewShardedWriter(bg, names, tfrecord.Compression(99))
	if err != nil {
		t.Fatal(err)
	}
	werr := w.Write([]byte("x"))
	if werr == nil {
		t.Fatal("Write with a bad compression succeeded")
	}
	if err := w.Close(); !errors.Is(err, tfrecord.ErrUnknownCompression) {
		t.Errorf("Close after a failed Write: %v, want the Write's error", err)
	}
	if got := append(existing(t, names), temporaries(t, names)...); len(got) != 0 {
		t.Errorf("files left: %q", got)
	}
}

// A process killed with SIGKILL while writing leaves nothing under the
// final names, and its temporaries are found as leftovers. The child is
// this test binary, run again as killedWriterChild.
func TestShardedWriterKilled(t *testing.T) {
	if os.Getenv("SLUICE_KILLED_WRITER") != "" {
		t.Skip("in the child")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	cmd := exec.Command(exe, "-test.run=^TestKilledWriterChild$")
	cmd.Env = append(os.Environ(), "SLUICE_KILLED_WRITER="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The child says "ready" once it has written and is blocked before
	// Close: killing it then is killing it mid-write.
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != "ready\n" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("child said %q, %v", line, err)
	}
	cmd.Process.Kill()
	cmd.Wait()

	names := ShardNames(filepath.Join(dir, "d"), 2, ".tfrecord")
	if got := existing(t, names); len(got) != 0 {
		t.Errorf("a killed writer left files under their final names: %q", got)
	}
	left := temporaries(t, names)
	if len(left) != 2 {
		t.Fatalf("leftovers %q, want the 2 temporaries", left)
	}
	for _, l := range left {
		if !storage.IsTemp(l) {
			t.Errorf("IsTemp(%q) = false", l)
		}
	}
}

func TestKilledWriterChild(t *testing.T) {
	dir := os.Getenv("SLUICE_KILLED_WRITER")
	if dir == "" {
		t.Skip("run by TestShardedWriterKilled")
	}
	w, err := NewShardedWriter(bg, ShardNames(filepath.Join(dir, "d"), 2, ".tfrecord"))
	if err != nil {
		t.Fatal(err)
	}
	for range 100 {
		if err := w.Write([]byte("record")); err != nil {
			t.Fatal(err)
		}
	}
	fmt.Println("ready")
	select {} // until killed
}

func countRecords(t *testing.T, names []string, c tfrecord.Compression) int {
	t.Helper()
	n := 0
	for _, name := range names {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		r := tfrecord.NewReader(f, c)
		for _, err := range r.All() {
			if err != nil {
				t.Fatal(err)
			}
			n++
		}
		f.Close()
	}
	return n
}
