package storage_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/sluiceml/sluice/storage"
)

func TestPendingLocal(t *testing.T) {
	ctx := context.Background()
	// Glob characters in the name must not stop Leftovers from finding
	// its temporaries.
	name := filepath.Join(t.TempDir(), "weird [v1]*.tfrecord")
	if err := os.WriteFile(name, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := storage.CreatePending(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	if !storage.IsTemp(p.TempName()) || storage.IsTemp(name) {
		t.Errorf("IsTemp(%q), IsTemp(%q): want true, false", p.TempName(), name)
	}
	if filepath.Dir(p.TempName()) != filepath.Dir(name) {
		t.Errorf("temporary %s is not beside %s", p.TempName(), name)
	}
	// Hidden: a pattern that finds the finished files does not find it.
	if m, _ := filepath.Glob(filepath.Join(filepath.Dir(name), "weird*")); len(m) != 1 || m[0] != name {
		t.Errorf("the pattern weird* matches %q, want only %s", m, name)
	}
	io.WriteString(p, "new")
	if got, _ := os.ReadFile(name); string(got) != "old" {
		t.Errorf("before Commit the file reads %q, want old", got)
	}
	left, err := storage.Leftovers(ctx, name)
	if err != nil || len(left) != 1 || left[0] != p.TempName() {
		t.Fatalf("Leftovers = %q, %v; want [%s]", left, err, p.TempName())
	}
	if err := p.Commit(); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(name); string(got) != "new" {
		t.Errorf("after Commit the file reads %q, want new", got)
	}
	if left, _ := storage.Leftovers(ctx, name); len(left) != 0 {
		t.Errorf("after Commit, leftovers %q", left)
	}
	if err := p.Abort(); err != nil {
		t.Errorf("Abort after Commit: %v", err)
	}
	if got, _ := os.ReadFile(name); string(got) != "new" {
		t.Errorf("Abort after Commit changed the file: %q", got)
	}
}

// A cancelled context makes Commit fail and clean up: a cancelled writer
// must not publish what it wrote.
func TestPendingCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	name := filepath.Join(t.TempDir(), "x")
	p, err := storage.CreatePending(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(p, "partial")
	cancel()
	if err := p.Commit(); !errors.Is(err, context.Canceled) {
		t.Errorf("Commit after cancel: %v, want context.Canceled", err)
	}
	entries, _ := os.ReadDir(filepath.Dir(name))
	if len(entries) != 0 {
		t.Errorf("files left: %v", entries)
	}
}

// An FS that cannot rename cannot promise a whole file: CreatePending
// says so rather than write the final name directly.
func TestPendingNeedsRename(t *testing.T) {
	storage.Register("norename", struct{ storage.FS }{storage.Local{}})
	defer storage.Unregister("norename")
	_, err := storage.CreatePending(context.Background(), "norename://x")
	if !errors.Is(err, errors.ErrUnsupported) {
		t.Errorf("CreatePending on an FS without Rename: %v, want errors.ErrUnsupported", err)
	}
}
