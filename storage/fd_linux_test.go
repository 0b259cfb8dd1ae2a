package storage_test

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sluiceml/sluice/storage"
)

// openIn counts the descriptors of this process open on files in dir,
// whatever their names now.
func openIn(t *testing.T, dir string) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd: %v", err)
	}
	n := 0
	for _, fd := range fds {
		if target, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name())); err == nil && strings.HasPrefix(target, dir+string(filepath.Separator)) {
			n++
		}
	}
	return n
}

// A local Pending holds one descriptor, its writer's, which also holds
// the temporary's lock, from its creation until Commit or Abort: a write
// of many shards opens every shard at once, and a process has only so
// many descriptors.
func TestPendingOneDescriptor(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	const n = 8
	var files []*storage.Pending
	for i := range n {
		p, err := storage.CreatePending(t.Context(), filepath.Join(dir, fmt.Sprint(i)))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	if got := openIn(t, dir); got != n {
		t.Errorf("%d files being written hold %d descriptors, want %d", n, got, n)
	}
	for _, p := range files {
		io.WriteString(p, "data")
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if got := openIn(t, dir); got != n {
		t.Errorf("%d files closed, not committed, hold %d descriptors, want %d (one each, for the lock)", n, got, n)
	}
	for _, p := range files[:n/2] {
		if writing, err := storage.Writing(t.Context(), p.TempName()); !writing || err != nil {
			t.Errorf("Writing(%s) of a closed file = %v, %v; want true", p.TempName(), writing, err)
		}
		if err := p.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	files[n/2].Abort()
	if got, want := openIn(t, dir), n/2-1; got != want {
		t.Errorf("after %d commits and an abort, %d descriptors open, want %d", n/2, got, want)
	}
	if err := storage.CommitAll(files[n/2+1:]); err != nil {
		t.Fatal(err)
	}
	if got := openIn(t, dir); got != 0 {
		t.Errorf("after all commits, %d descriptors open", got)
	}
	// An abort before Close too lets the descriptor go.
	p, err := storage.CreatePending(t.Context(), filepath.Join(dir, "x"))
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(p, "data")
	p.Abort()
	if got := openIn(t, dir); got != 0 {
		t.Errorf("after an abort before Close, %d descriptors open", got)
	}
}
