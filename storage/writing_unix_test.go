//go:build unix

package storage_test

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/sluiceml/sluice/storage"
)

// Writing tells a running writer's temporary from a dead one's by its
// lock, and tells nothing of a temporary that carries none.
func TestWriting(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	live, closed := runningWriters(t, dir)
	file := func(name string) string { return plant(t, dir, name) }
	loop := filepath.Join(dir, ".loop"+storage.TempMarker+storage.LockedTag+"0123456789ab")
	if err := os.Symlink(loop, loop); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, ".fifo"+storage.TempMarker+storage.LockedTag+"0123456789ab")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name    string
		writing bool
	}{
		{live.TempName(), true},
		{closed.TempName(), true}, // closed, not yet committed: still its writer's
		{file(".dead" + storage.TempMarker + storage.LockedTag + "0123456789ab"), false},
		{file(".young" + storage.TempMarker + "0123456789ab"), false}, // no lock: nothing tells
		{filepath.Join(dir, ".gone"+storage.TempMarker+storage.LockedTag+"0123456789ab"), false},
		{fifo, false},
		{loop, false}, // cannot be opened (as another user's unreadable one): nothing tells
	} {
		writing, err := storage.Writing(ctx, tt.name)
		if err != nil || writing != tt.writing {
			t.Errorf("Writing(%s) = %v, %v; want %v", filepath.Base(tt.name), writing, err, tt.writing)
		}
	}
	// Asking took no lock from the writers: they commit, and their
	// temporaries are then gone.
	for _, p := range []*storage.Pending{live, closed} {
		name := p.TempName()
		if err := p.Commit(); err != nil {
			t.Errorf("Commit after Writing: %v", err)
		}
		if writing, err := storage.Writing(ctx, name); writing || err != nil {
			t.Errorf("Writing after Commit = %v, %v", writing, err)
		}
	}
	if _, err := storage.Writing(ctx, filepath.Join(dir, "live")); err == nil {
		t.Error("Writing of a name that is no temporary: no error")
	}
}

// Two questions at once about a dead writer's temporary (two verifies, a
// verify beside a convert) do not take each other for its writer.
func TestWritingConcurrent(t *testing.T) {
	dead := filepath.Join(t.TempDir(), ".data.tfrecord"+storage.TempMarker+storage.LockedTag+"0123456789ab")
	os.WriteFile(dead, []byte("x"), 0o644)
	var wg sync.WaitGroup
	var writing atomic.Int64
	for range 4 {
		wg.Go(func() {
			for range 2000 {
				if w, _ := storage.Writing(t.Context(), dead); w {
					writing.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if n := writing.Load(); n > 0 {
		t.Errorf("a dead writer's temporary was reported being written %d times in 8000", n)
	}
}
