package storage_test

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/sluiceml/sluice/storage"
)

// EntryName gives one name to every spelling of a directory entry, and
// different names to different entries, a link among them.
func TestEntryName(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	os.Mkdir(filepath.Join(dir, "d"), 0o755)
	if err := os.Symlink(filepath.Join(dir, "d"), filepath.Join(dir, "ld")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "d", "f"), filepath.Join(dir, "d", "lf")); err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(dir, "d", "f")
	for _, tt := range []struct {
		a, b string
		same bool
	}{
		{f, f, true},
		{f, "file://" + f, true},
		{f, filepath.Join(dir, "ld", "f"), true},
		{f, filepath.Join(dir, "ld", "missing", "..", "f"), true},
		{filepath.Join(dir, "d", "new", "x"), filepath.Join(dir, "ld", "new", "x"), true}, // a folder not made yet
		{f, filepath.Join(dir, "d", "lf"), false},                                         // renaming onto a link replaces it
		{"s3://b/k", "s3://b/k", true},
		{"s3://b/k", "s3://b/./k", false},
	} {
		if got := storage.EntryName(tt.a) == storage.EntryName(tt.b); got != tt.same {
			t.Errorf("EntryName(%s) == EntryName(%s) is %v, want %v (%s, %s)", tt.a, tt.b, got, tt.same, storage.EntryName(tt.a), storage.EntryName(tt.b))
		}
	}
}

// A ".." after a link to a folder leads to the parent of the link's
// target, not back to the folder that holds the link: so the system
// takes it, and so EntryName must, or two names of one entry would pass
// for two entries.
func TestEntryNameDotDotAfterLink(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip(`Windows takes out a ".." before it follows links`)
	}
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	os.MkdirAll(filepath.Join(dir, "other", "sub"), 0o755)
	os.Mkdir(filepath.Join(dir, "work"), 0o755)
	if err := os.Symlink(filepath.Join(dir, "other", "sub"), filepath.Join(dir, "work", "link")); err != nil {
		t.Fatal(err)
	}
	// Spelt out: filepath.Join would clean the ".." away.
	through := dir + "/work/link/../a"
	t.Chdir(filepath.Join(dir, "work"))
	for _, tt := range []struct {
		a, b string
		same bool
	}{
		{through, filepath.Join(dir, "other", "a"), true},
		{through, filepath.Join(dir, "work", "a"), false},
		{"link/../a", filepath.Join(dir, "other", "a"), true},
		{"file://" + through, filepath.Join(dir, "other", "a"), true},
		{dir + "/work/link/../new/x", filepath.Join(dir, "other", "new", "x"), true}, // a folder not made yet
		{dir + "/work/link/../sub/../a", filepath.Join(dir, "other", "a"), true},
	} {
		if got := storage.EntryName(tt.a) == storage.EntryName(tt.b); got != tt.same {
			t.Errorf("EntryName(%s) == EntryName(%s) is %v, want %v (%s, %s)", tt.a, tt.b, got, tt.same, storage.EntryName(tt.a), storage.EntryName(tt.b))
		}
	}
}
