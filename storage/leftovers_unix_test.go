//go:build unix

package storage_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/sluiceml/sluice/storage"
)

// RemoveLeftovers removes the temporaries of dead writers and keeps a
// young one without a lock; beside a running writer it removes nothing
// and names the running writer's temporary. RefuseWriters does not take
// a writer's own temporaries for another's.
func TestRemoveLeftovers(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	live, closed := runningWriters(t, dir)
	file := func(name string) string { return plant(t, dir, name) }
	dead := file(".out" + storage.TempMarker + storage.LockedTag + "0123456789ab")
	young := file(".out" + storage.TempMarker + "0123456789ab")
	gone := filepath.Join(dir, ".out"+storage.TempMarker+storage.LockedTag+"ba9876543210")

	for _, running := range []*storage.Pending{live, closed} {
		removed, left, err := storage.RemoveLeftovers(ctx, []string{dead, running.TempName(), young})
		var werr *storage.WriterRunningError
		if !errors.As(err, &werr) || werr.Temp != running.TempName() || removed != nil || left != nil {
			t.Errorf("RemoveLeftovers beside the running writer of %s: %q, %q, %v; want a WriterRunningError naming %s, nothing removed",
				running.Name(), removed, left, err, running.TempName())
		}
		if err := storage.RefuseWriters(ctx, []string{dead, running.TempName()}, []string{running.TempName()}); err != nil {
			t.Errorf("RefuseWriters of the writer's own temporary: %v", err)
		}
	}
	if _, err := os.Stat(dead); err != nil {
		t.Errorf("the dead writer's temporary was removed beside a running writer: %v", err)
	}
	removed, left, err := storage.RemoveLeftovers(ctx, []string{dead, young, gone})
	if err != nil || !slices.Equal(removed, []string{dead}) || !slices.Equal(left, []string{young}) {
		t.Errorf("RemoveLeftovers = %q, %q, %v; want %q removed and %q left", removed, left, err, dead, young)
	}
	if _, err := os.Stat(dead); err == nil {
		t.Error("the dead writer's temporary is there")
	}
}

// RemoveDeadLeftovers removes the dead writers' temporaries of a name,
// keeps a running writer's, and touches no other name's.
func TestRemoveDeadLeftovers(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	live, _ := runningWriters(t, dir)
	name := live.Name()
	dead := filepath.Join(dir, ".live"+storage.TempMarker+storage.LockedTag+"0123456789ab")
	aged := filepath.Join(dir, ".live"+storage.TempMarker+"0123456789ab")
	other := filepath.Join(dir, ".other"+storage.TempMarker+storage.LockedTag+"0123456789ab")
	for _, p := range []string{dead, aged, other} {
		os.WriteFile(p, []byte("x"), 0o644)
	}
	old := time.Now().Add(-2 * storage.AbandonedAfter)
	os.Chtimes(aged, old, old)
	removed, err := storage.RemoveDeadLeftovers(ctx, name)
	want := []string{aged, dead}
	slices.Sort(want)
	if err != nil || !slices.Equal(removed, want) {
		t.Errorf("RemoveDeadLeftovers(%s) = %q, %v; want %q", name, removed, err, want)
	}
	for _, p := range []string{live.TempName(), other} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
	if err := live.Commit(); err != nil {
		t.Errorf("the running writer's Commit: %v", err)
	}
}

// RemoveAllDeadLeftovers does what RemoveDeadLeftovers does for each of
// several names, in several folders, a name given twice included.
func TestRemoveAllDeadLeftovers(t *testing.T) {
	ctx := t.Context()
	var names, want, kept []string
	for range 2 {
		dir := t.TempDir()
		live, _ := runningWriters(t, dir)
		dead := plant(t, dir, ".live"+storage.TempMarker+storage.LockedTag+"0123456789ab")
		deadOther := plant(t, dir, ".out"+storage.TempMarker+storage.LockedTag+"0123456789ab")
		unasked := plant(t, dir, ".unasked"+storage.TempMarker+storage.LockedTag+"0123456789ab")
		names = append(names, live.Name(), filepath.Join(dir, "out"), live.Name())
		want = append(want, dead, deadOther)
		kept = append(kept, live.TempName(), unasked)
	}
	removed, err := storage.RemoveAllDeadLeftovers(ctx, names)
	if err != nil || !slices.Equal(removed, want) {
		t.Errorf("RemoveAllDeadLeftovers(%q) = %q, %v; want %q", names, removed, err, want)
	}
	for _, p := range kept {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
}
