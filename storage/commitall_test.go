package storage

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// CommitAll renames every local file before it flushes a directory, and
// flushes each directory once: a kill between two renames is then
// possible only within microseconds, not within a directory flush per
// file. The directory flushes still make every name durable, and one
// that fails still says which files may not be.
func TestCommitAllSyncsOnceAfterRenames(t *testing.T) {
	cases := []struct {
		name     string
		files    []string // under the test's folder
		failSync string   // the directory whose flush fails, if any
		blocked  string   // the file whose rename fails, if any
		syncs    []string // the directories flushed, in order
		// The error: nil, or one wrapping ErrNotDurable (durable false)
		// naming notDurable, or one naming notWritten and not wrapping
		// it.
		err        bool
		durable    bool
		notDurable []string
		notWritten []string
	}{
		{name: "one directory", files: []string{"a/p0", "a/p1", "a/p2", "a/p3"}, syncs: []string{"a"}, durable: true},
		{name: "two directories", files: []string{"a/p0", "b/p1", "a/p2", "b/p3"}, syncs: []string{"a", "b"}, durable: true},
		{
			name: "a flush fails", files: []string{"a/p0", "b/p1", "a/p2", "b/p3"}, failSync: "b",
			syncs: []string{"a", "b"}, err: true, durable: true, notDurable: []string{"b/p1", "b/p3"},
		},
		{
			name: "a rename fails", files: []string{"a/p0", "b/p1", "a/p2", "b/p3"}, blocked: "a/p2",
			syncs: []string{"a", "b"}, err: true, notWritten: []string{"a/p2", "b/p3"},
		},
		{
			name: "a rename fails, a flush too", files: []string{"a/p0", "b/p1", "a/p2", "b/p3"}, blocked: "a/p2", failSync: "a",
			syncs: []string{"a", "b"}, err: true, notDurable: []string{"a/p0"}, notWritten: []string{"a/p2", "b/p3"},
		},
		{
			name: "the first rename fails", files: []string{"a/p0", "a/p1"}, blocked: "a/p0",
			err: true, notWritten: []string{"a/p0", "a/p1"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			var files []*Pending
			for _, n := range c.files {
				name := filepath.Join(root, n)
				os.MkdirAll(filepath.Dir(name), 0o755)
				os.WriteFile(name, []byte("old"), 0o644)
				p, err := CreatePending(context.Background(), name)
				if err != nil {
					t.Fatal(err)
				}
				io.WriteString(p, "new")
				files = append(files, p)
			}
			if c.blocked != "" {
				// A folder with something in it holds the name, so the
				// rename onto it fails.
				name := filepath.Join(root, c.blocked)
				os.Remove(name)
				os.MkdirAll(filepath.Join(name, "sub"), 0o755)
			}
			prev := syncDir
			t.Cleanup(func() { syncDir = prev })
			var syncs []string
			syncDir = func(dir string) error {
				rel, _ := filepath.Rel(root, dir)
				syncs = append(syncs, rel)
				// Every rename that is going to happen has happened.
				for _, f := range files {
					_, err := os.Stat(f.temp)
					if renamed := errors.Is(err, os.ErrNotExist); !renamed && !f.done {
						t.Errorf("%s flushed before %s was renamed", rel, f.name)
					}
				}
				if rel == c.failSync {
					return fmt.Errorf("storage: open %s: %w", dir, os.ErrPermission)
				}
				return nil
			}
			err := CommitAll(files)
			if !slices.Equal(syncs, c.syncs) {
				t.Errorf("directories flushed: %q, want %q", syncs, c.syncs)
			}
			if (err != nil) != c.err || err != nil && errors.Is(err, ErrNotDurable) != c.durable {
				t.Fatalf("CommitAll: %v; want an error %v, wrapping ErrNotDurable %v", err, c.err, c.durable)
			}
			for _, n := range c.notDurable {
				if name := filepath.Join(root, n); !strings.Contains(err.Error(), name+" written") {
					t.Errorf("the error does not name %s as written but not durable: %v", name, err)
				}
			}
			for _, n := range c.notWritten {
				if name := filepath.Join(root, n); !strings.Contains(err.Error(), name+" not written") {
					t.Errorf("the error does not name %s as not written: %v", name, err)
				}
			}
			for i, f := range files {
				n := c.files[i]
				b, _ := os.ReadFile(f.name)
				written := !slices.Contains(c.notWritten, n)
				if written && string(b) != "new" || !written && n != c.blocked && string(b) != "old" {
					t.Errorf("%s reads %q, want it written %v", n, b, written)
				}
				if _, err := os.Stat(f.temp); err == nil {
					t.Errorf("the temporary of %s is left", n)
				}
				// Commit again says what CommitAll said of the file.
				again := f.Commit()
				if slices.Contains(c.notDurable, n) != errors.Is(again, ErrNotDurable) {
					t.Errorf("%s: Commit after CommitAll: %v", n, again)
				}
			}
		})
	}
}

// Commit of a single file flushes its directory after its rename, as
// before.
func TestCommitSyncsAfterRename(t *testing.T) {
	name := filepath.Join(t.TempDir(), "out")
	p, err := CreatePending(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(p, "new")
	prev := syncDir
	t.Cleanup(func() { syncDir = prev })
	var syncs []string
	syncDir = func(dir string) error {
		if _, err := os.Stat(name); err != nil {
			t.Errorf("%s flushed before the rename: %v", dir, err)
		}
		syncs = append(syncs, dir)
		return nil
	}
	if err := p.Commit(); err != nil {
		t.Fatal(err)
	}
	if want := []string{filepath.Dir(name)}; !slices.Equal(syncs, want) {
		t.Errorf("directories flushed: %q, want %q", syncs, want)
	}
}
