package storage_test

import (
	"os"
	"path/filepath"
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
