package recordio

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sluiceml/sluice/storage"
)

// errDiskFull is what fullFS's files fail with.
var errDiskFull = errors.New("no space left on device (fake)")

// fullFS is the local file system under full://, whose files take limit
// bytes each and fail every write past that, as on a full disk.
type fullFS struct{ limit int }

func (fullFS) path(name string) string { return strings.TrimPrefix(name, "full://") }

func (f fullFS) Open(ctx context.Context, name string) (storage.File, error) {
	return storage.Local{}.Open(ctx, f.path(name))
}

func (f fullFS) Create(ctx context.Context, name string) (io.WriteCloser, error) {
	w, err := storage.Local{}.Create(ctx, f.path(name))
	if err != nil {
		return nil, err
	}
	return &fullFile{WriteCloser: w, left: f.limit}, nil
}

func (f fullFS) Glob(ctx context.Context, pattern string) ([]string, error) {
	names, err := storage.Local{}.Glob(ctx, f.path(pattern))
	for i := range names {
		names[i] = "full://" + names[i]
	}
	return names, err
}

func (f fullFS) Rename(ctx context.Context, oldname, newname string) error {
	return storage.Local{}.Rename(ctx, f.path(oldname), f.path(newname))
}

func (f fullFS) Remove(ctx context.Context, name string) error {
	return storage.Local{}.Remove(ctx, f.path(name))
}

type fullFile struct {
	io.WriteCloser
	left int
}

func (f *fullFile) Write(b []byte) (int, error) {
	if len(b) > f.left {
		n, _ := f.WriteCloser.Write(b[:f.left])
		f.left = 0
		return n, errDiskFull
	}
	f.left -= len(b)
	return f.WriteCloser.Write(b)
}

// A failed Write removes the temporaries at once, as the type's doc
// promises: a caller that returns on the error, without Close or Abort,
// leaves nothing behind. Later Writes and Close return the error.
func TestShardedWriterFailedWriteRemovesTemporaries(t *testing.T) {
	storage.Register("full", fullFS{limit: 100 << 10})
	defer storage.Unregister("full")
	dir := t.TempDir()
	names := ShardNames("full://"+filepath.Join(dir, "fw"), 2, ".tfrecord")
	w, err := NewShardedWriter(bg, names)
	if err != nil {
		t.Fatal(err)
	}
	rec := make([]byte, 64<<10)
	var werr error
	for i := 0; i < 100 && werr == nil; i++ {
		werr = w.Write(rec)
	}
	if !errors.Is(werr, errDiskFull) {
		t.Fatalf("Write to a full disk: %v, want the disk's error", werr)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("after the failed Write, files %v; want none", left)
	}
	if err := w.Write(rec); !errors.Is(err, errDiskFull) {
		t.Errorf("Write after a failed Write: %v, want its error", err)
	}
	if err := w.Close(); !errors.Is(err, errDiskFull) {
		t.Errorf("Close after a failed Write: %v, want its error", err)
	}
}

// Close after a failed Close returns the failure, not nil: nothing was
// written.
func TestShardedWriterCloseSticky(t *testing.T) {
	names := ShardNames(filepath.Join(t.TempDir(), "d"), 2, ".tfrecord")
	ctx, cancel := context.WithCancel(bg)
	w, err := NewShardedWriter(ctx, names)
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte("r"))
	cancel()
	first := w.Close()
	if !errors.Is(first, context.Canceled) {
		t.Fatalf("Close after cancel: %v", first)
	}
	if second := w.Close(); second != first {
		t.Errorf("second Close: %v, want the first's %v", second, first)
	}
	if got := existing(t, names); len(got) != 0 {
		t.Errorf("files appeared: %q", got)
	}
}

// Names of different directory entries are not duplicates, even when
// one is a link to the other's file: renaming onto the link replaces the
// link, and both files are written.
func TestShardedWriterLinkIsAnotherFile(t *testing.T) {
	dir := t.TempDir()
	a, l := filepath.Join(dir, "a"), filepath.Join(dir, "l")
	if err := os.Symlink(a, l); err != nil {
		t.Fatal(err)
	}
	w, err := NewShardedWriter(bg, []string{a, l})
	if err != nil {
		t.Fatalf("a file and a link to it: %v", err)
	}
	w.Write([]byte("0"))
	w.Write([]byte("1"))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if n := countRecords(t, []string{a, l}, 0); n != 2 {
		t.Errorf("%d records in the two files, want 2", n)
	}
}
