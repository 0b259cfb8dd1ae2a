package storage_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
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

// hookFS is the local file system under hook://, calling renamed after
// each rename.
type hookFS struct{ renamed func() }

func (hookFS) path(name string) string {
	_, path, _ := strings.Cut(name, "://")
	return path
}

func (h hookFS) Open(ctx context.Context, name string) (storage.File, error) {
	return storage.Local{}.Open(ctx, h.path(name))
}

func (h hookFS) Create(ctx context.Context, name string) (io.WriteCloser, error) {
	return storage.Local{}.Create(ctx, h.path(name))
}

func (h hookFS) Glob(ctx context.Context, pattern string) ([]string, error) {
	names, err := storage.Local{}.Glob(ctx, h.path(pattern))
	for i := range names {
		names[i] = "hook://" + names[i]
	}
	return names, err
}

func (h hookFS) Rename(ctx context.Context, oldname, newname string) error {
	err := storage.Local{}.Rename(ctx, h.path(oldname), h.path(newname))
	h.renamed()
	return err
}

func (h hookFS) Remove(ctx context.Context, name string) error {
	return storage.Local{}.Remove(ctx, h.path(name))
}

// CommitAll publishes the parts of an output all or none: a context
// ended before it aborts them all, and one that ends during the renames
// (a signal) does not stop them half way.
func TestCommitAll(t *testing.T) {
	for _, when := range []string{"before", "during"} {
		t.Run(when, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			storage.Register("hook", hookFS{renamed: cancel})
			defer storage.Unregister("hook")
			dir := t.TempDir()
			var files []*storage.Pending
			for i := range 3 {
				p, err := storage.CreatePending(ctx, fmt.Sprintf("hook://%s/part-%d", dir, i))
				if err != nil {
					t.Fatal(err)
				}
				io.WriteString(p, "new")
				files = append(files, p)
			}
			if when == "before" {
				cancel()
			}
			err := storage.CommitAll(files)
			entries, _ := os.ReadDir(dir)
			switch {
			case when == "before" && (!errors.Is(err, context.Canceled) || len(entries) != 0):
				t.Errorf("CommitAll after cancel: %v, files %v; want context.Canceled and none", err, entries)
			case when == "during" && (err != nil || len(entries) != 3):
				t.Errorf("CommitAll cancelled after its first rename: %v, files %v; want all three", err, entries)
			}
			for _, e := range entries {
				if storage.IsTemp(e.Name()) {
					t.Errorf("temporary %s left", e.Name())
				}
			}
		})
	}
}

// copyFS is hookFS with an object store's rename: a copy, then a removal
// of the old name that a context ended by then refuses, as a request
// would be.
type copyFS struct{ hookFS }

func (c copyFS) Rename(ctx context.Context, oldname, newname string) error {
	data, err := os.ReadFile(c.path(oldname))
	if err == nil {
		err = os.WriteFile(c.path(newname), data, 0o644)
	}
	if err != nil {
		return err
	}
	c.renamed()
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("deleting %s: %w: %w", oldname, err, storage.ErrOldNameLeft)
	}
	return os.Remove(c.path(oldname))
}

// A signal that comes while Commit renames (on an object store, between
// the copy and the delete) does not stop the rename half way, which would
// leave the file under both names (audit 47: an interrupted `sluice index
// --beside` on S3 left its temporary).
func TestCommitGoesAheadWhenCancelledDuring(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	storage.Register("copy", copyFS{hookFS{renamed: cancel}})
	defer storage.Unregister("copy")
	dir := t.TempDir()
	p, err := storage.CreatePending(ctx, "copy://"+dir+"/out")
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(p, "new")
	err = p.Commit()
	entries, _ := os.ReadDir(dir)
	if err != nil || len(entries) != 1 || entries[0].Name() != "out" {
		t.Errorf("Commit cancelled during its rename: %v, files %v; want out alone", err, entries)
	}
}

// A pattern for a data set's files does not match the temporaries of
// writes beside them (Go's * matches hidden names, a shell's does not);
// one for hidden names does.
func TestGlobLeavesOutTemporaries(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	name := filepath.Join(dir, "part-0")
	if err := os.WriteFile(name, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := storage.CreatePending(ctx, filepath.Join(dir, "part-1"))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Abort()
	for pattern, want := range map[string][]string{
		filepath.Join(dir, "*"):      {name},
		filepath.Join(dir, "part-*"): {name},
		filepath.Join(dir, ".*"):     {p.TempName()},
	} {
		if got, err := storage.Glob(ctx, pattern); err != nil || !slices.Equal(got, want) {
			t.Errorf("Glob(%s) = %q, %v; want %q", pattern, got, err, want)
		}
	}
}

// LeftoversBeside finds for each name what Leftovers finds, with one
// listing a folder.
func TestLeftoversBeside(t *testing.T) {
	ctx := context.Background()
	dirs := []string{t.TempDir(), t.TempDir()}
	var names []string
	for _, dir := range dirs {
		for _, final := range []string{"a", "a.x", "b", "c"} {
			names = append(names, filepath.Join(dir, final))
		}
		for _, final := range []string{"a", "a", "a.x", "c", "other"} {
			p, err := storage.CreatePending(ctx, filepath.Join(dir, final))
			if err != nil {
				t.Fatal(err)
			}
			defer p.Abort()
		}
	}
	got, err := storage.LeftoversBeside(ctx, names)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		want, err := storage.Leftovers(ctx, n)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got[n], want) {
			t.Errorf("LeftoversBeside[%s] = %q, Leftovers = %q", n, got[n], want)
		}
	}
	if len(got[names[0]]) != 2 || len(got[names[2]]) != 0 {
		t.Errorf("a: %q, b: %q; want two and none", got[names[0]], got[names[2]])
	}
}

// LeftoversMatching finds the temporaries of every file a pattern would
// find once written, whether or not the file exists, and no others.
func TestLeftoversMatching(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	var temps []string
	for _, final := range []string{"part-0", "part-1", "other-0", "part-0.gz"} {
		p, err := storage.CreatePending(ctx, filepath.Join(dir, final))
		if err != nil {
			t.Fatal(err)
		}
		defer p.Abort()
		temps = append(temps, p.TempName())
	}
	if err := os.WriteFile(filepath.Join(dir, "part-0"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	sorted := func(names ...string) []string { return slices.Sorted(slices.Values(names)) }
	for _, tt := range []struct {
		pattern string
		want    []string
	}{
		{filepath.Join(dir, "part-*"), sorted(temps[0], temps[1], temps[3])},
		{filepath.Join(dir, "part-?"), sorted(temps[0], temps[1])},
		{filepath.Join(dir, "part-1"), temps[1:2]},
		{filepath.Join(dir, "*"), sorted(temps...)},
		{filepath.Join(dir, "none-*"), nil},
		{filepath.Join(dir, ".*"), nil}, // a pattern for hidden names finds the temporaries themselves
	} {
		got, err := storage.LeftoversMatching(ctx, tt.pattern)
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("LeftoversMatching(%s) = %q, %v; want %q", tt.pattern, got, err, tt.want)
		}
	}
	if _, err := storage.LeftoversMatching(ctx, filepath.Join(dir, "[")); err == nil {
		t.Error("LeftoversMatching of a malformed pattern: no error")
	}
}

// The temporaries Leftovers, LeftoversBeside and LeftoversOf find are
// spelled as the name they were asked about, whose folder the local file
// system's Glob cleans: a writer of ./out took its own temporary, named as
// given, for another writer's, and the listing by folder missed the
// temporaries of another (audit 97).
func TestLeftoversSpelledAsGiven(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	for _, sub := range []string{"sub", "d[1]", "q?x"} {
		if err := os.Mkdir(filepath.Join(dir, sub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	stems := []string{"./out", "sub/../out2", dir + "//out3", dir + "/./out4", "out5",
		// A metacharacter in the folder, then . or .. (audit 99).
		"d[1]/./out6", "q?x/../out7", "d[1]/../sub/out8"}
	if runtime.GOOS != "windows" {
		stems = append(stems, `o\y`, `sub/a\b`) // a backslash is a name's character (audit 99)
	}
	for _, stem := range stems {
		name := stem + ".tfrecord"
		p, err := storage.CreatePending(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		own := p.TempName()
		left, err := storage.Leftovers(ctx, name)
		if err != nil || !slices.Equal(left, []string{own}) {
			t.Errorf("Leftovers(%s) = %q, %v; want its own %q", name, left, err, own)
		}
		beside, err := storage.LeftoversBeside(ctx, []string{name})
		if err != nil || !slices.Equal(beside[name], []string{own}) {
			t.Errorf("LeftoversBeside(%s) = %q, %v; want its own %q", name, beside[name], err, own)
		}
		of, err := storage.LeftoversOf(ctx, stem, ".tfrecord")
		if err != nil || !slices.Equal(of, []string{own}) {
			t.Errorf("LeftoversOf(%s) = %q, %v; want its own %q", stem, of, err, own)
		}
		if err := storage.RefuseWriters(ctx, left, []string{own}); err != nil {
			t.Errorf("%s: its own temporary refused: %v", name, err)
		}
		p.Abort()
	}
}

// A folder that cannot be listed is an error for the temporaries beside a
// name, not a folder holding none: two writers of one file in a folder
// they could write but not list both went through (audit 100). (Root lists
// any folder; a file taken for a folder fails the listing for anyone.) A
// folder that is not there holds none.
func TestLeftoversUnlistableFolder(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "afile"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(dir, "afile", "out")
	if left, err := storage.Leftovers(ctx, name); err == nil {
		t.Errorf("Leftovers(%s) = %q, nil; want an error", name, left)
	}
	if left, err := storage.LeftoversBeside(ctx, []string{name}); err == nil {
		t.Errorf("LeftoversBeside(%s) = %q, nil; want an error", name, left)
	}
	missing := filepath.Join(dir, "none", "out")
	if left, err := storage.Leftovers(ctx, missing); err != nil || len(left) != 0 {
		t.Errorf("Leftovers(%s) = %q, %v; want none", missing, left, err)
	}
}
