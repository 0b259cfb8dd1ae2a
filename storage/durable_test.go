package storage

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// failSync makes syncDir fail, as it does for a directory that can be
// written and searched but not read (mode 0333), until the test ends.
func failSync(t *testing.T) {
	t.Helper()
	prev := syncDir
	syncDir = func(dir string) error { return fmt.Errorf("storage: open %s: %w", dir, os.ErrPermission) }
	t.Cleanup(func() { syncDir = prev })
}

// A rename that happened is not a failed rename because the directory
// could not be synced afterwards: the file is under its new name, and
// Commit and CommitAll say it was written, with the durability problem,
// rather than aborting and calling it not written.
func TestRenameNotDurable(t *testing.T) {
	ctx := context.Background()
	t.Run("Rename", func(t *testing.T) {
		failSync(t)
		dir := t.TempDir()
		old, new := filepath.Join(dir, "old"), filepath.Join(dir, "new")
		os.WriteFile(old, []byte("x"), 0o644)
		err := Local{}.Rename(ctx, old, new)
		if !errors.Is(err, ErrNotDurable) || !errors.Is(err, os.ErrPermission) {
			t.Errorf("Rename with a failing directory sync: %v, want ErrNotDurable wrapping the cause", err)
		}
		if _, err := os.Stat(new); err != nil {
			t.Errorf("the new name: %v", err)
		}
	})
	t.Run("Commit", func(t *testing.T) {
		failSync(t)
		name := filepath.Join(t.TempDir(), "out")
		p, err := CreatePending(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(p, "new")
		err = p.Commit()
		if !errors.Is(err, ErrNotDurable) || strings.Contains(err.Error(), "not written") {
			t.Errorf("Commit: %v, want ErrNotDurable and written", err)
		}
		if b, _ := os.ReadFile(name); string(b) != "new" {
			t.Errorf("the file reads %q, want new", b)
		}
		if again := p.Commit(); again == nil || again.Error() != err.Error() {
			t.Errorf("Commit again: %v, want the first call's %v", again, err)
		}
	})
	t.Run("CommitAll", func(t *testing.T) {
		dir := t.TempDir()
		var files []*Pending
		for i := range 3 {
			name := filepath.Join(dir, fmt.Sprintf("part-%d", i))
			os.WriteFile(name, []byte("old"), 0o644)
			p, err := CreatePending(ctx, name)
			if err != nil {
				t.Fatal(err)
			}
			io.WriteString(p, "new")
			files = append(files, p)
		}
		failSync(t)
		err := CommitAll(files)
		if !errors.Is(err, ErrNotDurable) || strings.Contains(err.Error(), "not written") {
			t.Errorf("CommitAll: %v, want ErrNotDurable and every part written", err)
		}
		entries, _ := os.ReadDir(dir)
		if len(entries) != 3 {
			t.Errorf("files %v, want the three parts alone", entries)
		}
		for i := range 3 {
			name := filepath.Join(dir, fmt.Sprintf("part-%d", i))
			if b, _ := os.ReadFile(name); string(b) != "new" {
				t.Errorf("%s reads %q, want new: a mixed data set", name, b)
			}
			if err != nil && !strings.Contains(err.Error(), name) {
				t.Errorf("the error does not name %s: %v", name, err)
			}
		}
	})
}

// The real case: a directory that can be written and searched but not
// read, in which a rename succeeds and the directory's sync cannot open
// it. Root reads any directory, so the test needs another user.
func TestRenameNotDurableUnreadableDir(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root can read a directory of mode 0333; TestRenameNotDurable fakes the failure")
	}
	dir := filepath.Join(t.TempDir(), "wo")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(dir, "out")
	p, err := CreatePending(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(p, "new")
	if err := os.Chmod(dir, 0o333); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(dir, 0o755)
	if _, err := os.Open(dir); err == nil {
		t.Skip("the directory can still be read")
	}
	err = p.Commit()
	os.Chmod(dir, 0o755)
	if !errors.Is(err, ErrNotDurable) {
		t.Errorf("Commit in an unreadable directory: %v, want ErrNotDurable", err)
	}
	if b, _ := os.ReadFile(name); string(b) != "new" {
		t.Errorf("the file reads %q, want new", b)
	}
}

// Commit after a failed Commit does not report success: nothing was
// written.
func TestCommitSticky(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	name := filepath.Join(t.TempDir(), "out")
	p, err := CreatePending(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(p, "data")
	cancel()
	first := p.Commit()
	if !errors.Is(first, context.Canceled) {
		t.Fatalf("Commit after cancel: %v", first)
	}
	if second := p.Commit(); second != first {
		t.Errorf("Commit again: %v, want the first call's %v", second, first)
	}
	if _, err := os.Stat(name); err == nil {
		t.Errorf("%s exists", name)
	}
}

// A CommitAll whose later rename fails after earlier files were renamed
// but not made durable names those, but does not wrap ErrNotDurable:
// callers read that sentinel as "every file is there", and one is not.
func TestCommitAllPartlyWritten(t *testing.T) {
	failSync(t)
	dir := t.TempDir()
	var files []*Pending
	for _, n := range []string{"a", "b", "c"} {
		p, err := CreatePending(t.Context(), filepath.Join(dir, n))
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(p, "data")
		files = append(files, p)
	}
	os.MkdirAll(filepath.Join(dir, "b", "sub"), 0o755) // b's rename fails: a folder with something in it holds the name
	err := CommitAll(files)
	if err == nil || errors.Is(err, ErrNotDurable) || !strings.Contains(err.Error(), filepath.Join(dir, "a")+" written") {
		t.Errorf("CommitAll with b not written: %v; want an error naming a, not wrapping ErrNotDurable", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "c")); err == nil {
		t.Error("c was written after b failed")
	}
}
