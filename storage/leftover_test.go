package storage_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/sluiceml/sluice/storage"
)

// LeftoversOf finds the temporaries of exactly the names a command
// writing to a stem makes, not those of another output whose name begins
// with the stem.
func TestLeftoversOfExact(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	temp := func(final string) string {
		return filepath.Join(dir, "."+final+storage.TempMarker+"0123456789ab")
	}
	mine := []string{"data.tfrecord", "data.tfrecord.gz", "data-00000-of-00002.tfrecord", "data-00001-of-00002.parquet", "data-123456-of-200000.tfrecord.zst"}
	others := []string{"data-val.tfrecord", "data.v2.tfrecord", "data-00000-of-00002.v2.tfrecord", "datax.tfrecord", "data", "data-0-of-2.tfrecord", "data.tfrecord.bak", "data-val-00000-of-00002.tfrecord"}
	var want []string
	for _, f := range append(mine, others...) {
		os.WriteFile(temp(f), nil, 0o644)
	}
	for _, f := range mine {
		want = append(want, temp(f))
	}
	slices.Sort(want)
	got, err := storage.LeftoversOf(ctx, filepath.Join(dir, "data"), ".tfrecord", ".tfrecord.gz", ".tfrecord.zst", ".parquet")
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("LeftoversOf(data) = %q, %v; want %q", got, err, want)
	}
}

// RemoveLeftover removes a temporary only when its writer is gone: a
// locked one when no one holds its lock, one without a lock when it has
// gone unmodified for AbandonedAfter.
func TestRemoveLeftover(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	old := time.Now().Add(-2 * storage.AbandonedAfter)

	live, closed := runningWriters(t, dir)
	os.Chtimes(closed.TempName(), old, old)

	file := func(name string, mod time.Time) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte("x"), 0o644)
		os.Chtimes(p, mod, mod)
		return p
	}
	for _, tt := range []struct {
		name    string
		removed bool
	}{
		{live.TempName(), false},
		{closed.TempName(), false},
		{file(".dead"+storage.TempMarker+storage.LockedTag+"0123456789ab", time.Now()), true}, // locked by no one: its writer died
		{file(".young"+storage.TempMarker+"0123456789ab", time.Now()), false},                 // an earlier version's, maybe running
		{file(".aged"+storage.TempMarker+"0123456789ab", old), true},
		{filepath.Join(dir, ".gone"+storage.TempMarker+storage.LockedTag+"0123456789ab"), false},
	} {
		removed, err := storage.RemoveLeftover(ctx, tt.name)
		if err != nil || removed != tt.removed {
			t.Errorf("RemoveLeftover(%s) = %v, %v; want %v", filepath.Base(tt.name), removed, err, tt.removed)
		}
		if _, err := os.Stat(tt.name); removed && err == nil {
			t.Errorf("RemoveLeftover(%s) reported it removed, but it is there", filepath.Base(tt.name))
		}
	}
	if _, err := storage.RemoveLeftover(ctx, filepath.Join(dir, "live")); err == nil {
		t.Error("RemoveLeftover of a name that is no temporary: no error")
	}
	// The live writers finish as if nothing happened.
	if err := live.Commit(); err != nil {
		t.Errorf("Commit of the live writer: %v", err)
	}
	if err := closed.Commit(); err != nil {
		t.Errorf("Commit of the closed writer: %v", err)
	}
	// Once committed, the lock is gone with the temporary name.
	if left, _ := storage.Leftovers(ctx, filepath.Join(dir, "live")); len(left) != 0 {
		t.Errorf("leftovers after Commit: %q", left)
	}
}

// On a file system other than the local one, a temporary tells only its
// age.
func TestRemoveLeftoverByAge(t *testing.T) {
	storage.Register("hook", hookFS{renamed: func() {}})
	defer storage.Unregister("hook")
	ctx := context.Background()
	dir := t.TempDir()
	young := filepath.Join(dir, ".young"+storage.TempMarker+storage.LockedTag+"0123456789ab")
	aged := filepath.Join(dir, ".aged"+storage.TempMarker+"0123456789ab")
	os.WriteFile(young, nil, 0o644)
	os.WriteFile(aged, nil, 0o644)
	old := time.Now().Add(-2 * storage.AbandonedAfter)
	os.Chtimes(aged, old, old)
	if removed, err := storage.RemoveLeftover(ctx, "hook://"+young); removed || err != nil {
		t.Errorf("a young temporary: removed %v, %v", removed, err)
	}
	if removed, err := storage.RemoveLeftover(ctx, "hook://"+aged); !removed || err != nil {
		t.Errorf("an aged temporary: removed %v, %v", removed, err)
	}
}

// runningWriters starts two writes in dir, aborted when the test ends: one
// writing, and one that has closed its file and not yet committed, which
// holds its temporary's lock all the same.
func runningWriters(t *testing.T, dir string) (live, closed *storage.Pending) {
	t.Helper()
	live, err := storage.CreatePending(t.Context(), filepath.Join(dir, "live"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { live.Abort() })
	closed, err = storage.CreatePending(t.Context(), filepath.Join(dir, "closed"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closed.Abort() })
	closed.Close()
	return live, closed
}

// plant writes a small file name in dir, standing for a temporary that
// some writer left, and returns its path.
func plant(t *testing.T, dir, name string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
