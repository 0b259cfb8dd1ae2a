//go:build unix

package index

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/sluiceml/sluice/storage"
	"github.com/sluiceml/sluice/tfrecord"
)

// Save removes the temporaries that killed saves of the same index left
// beside the data, and in the cache its trim removes those of any index;
// a running save's is kept.
func TestSaveRemovesLeftovers(t *testing.T) {
	t.Setenv("SLUICE_INDEX_DIR", filepath.Join(t.TempDir(), "cache"))
	ctx := t.Context()
	dir := t.TempDir()
	for _, beside := range []bool{false, true} {
		t.Run(map[bool]string{false: "cache", true: "beside"}[beside], func(t *testing.T) {
			name, _ := writeFile(t, dir, "data.tfrecord", 20, tfrecord.None)
			x, err := Build(ctx, name)
			if err != nil {
				t.Fatal(err)
			}
			path := Beside(name)
			if !beside {
				if path, err = cached(name); err != nil {
					t.Fatal(err)
				}
				os.MkdirAll(filepath.Dir(path), 0o755)
			}
			dirOf, base := filepath.Split(path)
			dead := filepath.Join(dirOf, "."+base+storage.TempMarker+storage.LockedTag+"0123456789ab")
			// Another index's, named as the cache names its indexes.
			other := filepath.Join(dirOf, ".0123456789abcdef0123456789abcdef.idx"+storage.TempMarker+storage.LockedTag+"0123456789ab")
			for _, p := range []string{dead, other} {
				os.WriteFile(p, []byte("partial"), 0o644)
			}
			running, err := storage.CreatePending(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			defer running.Abort()
			if got, err := x.Save(ctx, beside); err != nil || got != path {
				t.Fatalf("Save = %s, %v; want %s", got, err, path)
			}
			if _, err := os.Stat(dead); err == nil {
				t.Errorf("a killed save's temporary %s is left", dead)
			}
			// A running save's is kept. So is another index's killed
			// save's beside a file (another file's to remove); in the
			// cache, the trim removes every killed save's.
			kept := []string{running.TempName()}
			if beside {
				kept = append(kept, other)
			} else if _, err := os.Stat(other); err == nil {
				t.Errorf("the cache's trim left a killed save's temporary %s", other)
			}
			for _, p := range kept {
				if _, err := os.Stat(p); err != nil {
					t.Errorf("%s: %v", p, err)
				}
			}
			os.Remove(other)
		})
	}
}
