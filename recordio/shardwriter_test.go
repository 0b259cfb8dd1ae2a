package recordio

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tfrecord"
)

func TestShardNames(t *testing.T) {
	got := ShardNames("out/train", 3, ".tfrecord.gz")
	want := []string{
		"out/train-00000-of-00003.tfrecord.gz",
		"out/train-00001-of-00003.tfrecord.gz",
		"out/train-00002-of-00003.tfrecord.gz",
	}
	if !slices.Equal(got, want) {
		t.Errorf("ShardNames = %q, want %q", got, want)
	}
	for _, n := range []int{0, -1} { // audit 82: -1 panicked
		if got := ShardNames("p", n, ""); got != nil {
			t.Errorf("ShardNames(%d) = %q, want none", n, got)
		}
	}
}

// Record i lands in shard i mod n, in order, for every compression.
func TestShardedWriterRoundRobin(t *testing.T) {
	for _, tc := range []struct {
		shards, records int
		c               tfrecord.Compression
	}{
		{1, 5, tfrecord.None},
		{3, 10, tfrecord.Gzip},
		{4, 4, tfrecord.Zlib},
		{5, 2, tfrecord.Zstd}, // shards left empty are still valid files
		{2, 0, tfrecord.Gzip},
	} {
		t.Run(fmt.Sprintf("%d-%d-%v", tc.shards, tc.records, tc.c), func(t *testing.T) {
			names := ShardNames(filepath.Join(t.TempDir(), "part"), tc.shards, ".tfrecord")
			w, err := NewShardedWriter(bg, names, tc.c)
			if err != nil {
				t.Fatal(err)
			}
			for i := range tc.records {
				if err := w.Write([]byte(fmt.Sprintf("record %d", i))); err != nil {
					t.Fatal(err)
				}
			}
			if w.Count() != int64(tc.records) || !slices.Equal(w.Names(), names) {
				t.Errorf("Count %d, Names %q; want %d, %q", w.Count(), w.Names(), tc.records, names)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			for s, name := range names {
				var want []string
				for i := s; i < tc.records; i += tc.shards {
					want = append(want, fmt.Sprintf("record %d", i))
				}
				if got := readFileRecords(t, name, tc.c); !slices.Equal(got, want) {
					t.Errorf("%s holds %q, want %q", name, got, want)
				}
			}
		})
	}
}

func readFileRecords(t *testing.T, name string, c tfrecord.Compression) []string {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var recs []string
	for rec, err := range tfrecord.NewReader(f, c, tfrecord.Name(name)).All() {
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, string(rec))
	}
	return recs
}

func TestShardedWriterErrors(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "no-such-folder", "b.tfrecord")
	if _, err := NewShardedWriter(bg, []string{filepath.Join(dir, "a.tfrecord"), missing}); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("creating in a missing folder: %v, want an error naming %s", err, missing)
	}
	if _, err := NewShardedWriter(bg, nil); !errors.Is(err, queue.ErrInvalidArgument) {
		t.Errorf("no files: %v, want queue.ErrInvalidArgument", err)
	}

	w, err := NewShardedWriter(bg, []string{filepath.Join(dir, "c.tfrecord")}, tfrecord.Compression(99))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write([]byte("x")); !errors.Is(err, tfrecord.ErrUnknownCompression) || !strings.Contains(err.Error(), "c.tfrecord: record 0") {
		t.Errorf("Write with a bad compression: %v, want ErrUnknownCompression naming c.tfrecord and record 0", err)
	}
	// The failed Write doomed the data set: everything after says so.
	if err := w.Close(); !errors.Is(err, tfrecord.ErrUnknownCompression) {
		t.Errorf("Close after a failed Write: %v, want its error", err)
	}
	if err := w.Write([]byte("x")); !errors.Is(err, tfrecord.ErrUnknownCompression) {
		t.Errorf("Write after a failed Write: %v, want its error", err)
	}
	if err := w.Close(); !errors.Is(err, tfrecord.ErrUnknownCompression) {
		t.Errorf("second Close: %v, want the first's error", err)
	}

	w, err = NewShardedWriter(bg, []string{filepath.Join(dir, "d.tfrecord")})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Write([]byte("x")); !errors.Is(err, fs.ErrClosed) {
		t.Errorf("Write after Close: %v, want fs.ErrClosed", err)
	}
	if err := w.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// A file named twice, however spelt, is refused before any is created:
// its temporaries would be renamed to it in turn, the last over the
// others' records.
func TestShardedWriterSameFileTwice(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.tfrecord")
	// A link to the folder, made outside it so that the folder stays
	// empty.
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	for _, names := range [][]string{
		{a, a},
		{a, filepath.Join(dir, ".", "a.tfrecord")},
		{filepath.Join(dir, "b"), filepath.Join(dir, "x", "..", "a.tfrecord"), a},
		{a, "file://" + a},
		{"file://" + a, "FILE://" + a},
		{a, filepath.Join(link, "a.tfrecord")},
		{filepath.Join(link, "new", "..", "a.tfrecord"), a},
	} {
		w, err := NewShardedWriter(t.Context(), names)
		if err == nil {
			w.Abort()
		}
		if !errors.Is(err, queue.ErrInvalidArgument) || !strings.Contains(err.Error(), "same file") {
			t.Errorf("NewShardedWriter(%q): %v, want an invalid-argument error", names, err)
		}
		if left, _ := os.ReadDir(dir); len(left) != 0 {
			t.Errorf("files after a refused writer: %v", left)
		}
	}
}

// A ".." after a link leads where the system takes it, to the parent of
// the link's target: that name and the target's parent's own are one
// file, refused as such.
func TestShardedWriterSameFileThroughLinkDotDot(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip(`Windows takes out a ".." before it follows links`)
	}
	root := t.TempDir()
	other := filepath.Join(root, "other")
	if err := os.MkdirAll(filepath.Join(other, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(filepath.Join(other, "sub"), link); err != nil {
		t.Fatal(err)
	}
	// Spelt out: filepath.Join would clean the ".." away.
	names := []string{link + "/../a.tfrecord", filepath.Join(other, "a.tfrecord")}
	w, err := NewShardedWriter(t.Context(), names)
	if err == nil {
		w.Abort()
	}
	if !errors.Is(err, queue.ErrInvalidArgument) || !strings.Contains(err.Error(), "same file") {
		t.Errorf("NewShardedWriter(%q): %v, want an invalid-argument error", names, err)
	}
	if left, _ := os.ReadDir(other); len(left) != 1 {
		t.Errorf("files after a refused writer: %v", left)
	}
}
