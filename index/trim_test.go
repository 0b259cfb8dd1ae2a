package index

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/sluiceml/sluice/tfrecord"
)

// The cache removes the indexes not used for trimUnused, and the
// temporaries killed saves left as long ago, and nothing else; at most
// once every trimEvery.
func TestTrim(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	old, recent := now.Add(-trimUnused-time.Hour), now.Add(-trimUnused+time.Hour)
	const (
		oldHash    = "0123456789abcdef0123456789abcdef.idx"
		recentHash = "fedcba9876543210fedcba9876543210.idx"
	)
	for name, at := range map[string]time.Time{
		oldHash:                               old,
		recentHash:                            recent,
		"." + oldHash + ".sluice-tmp-1234":    old,
		"not-an-index.txt":                    old,
		"." + recentHash + ".sluice-tmp-5678": now,
		// Not the cache's: a data set's index beside its file, and a
		// user's file, in a directory that is also the cache (audit
		// 93), and the temporary of another file's save.
		"a.tfrecord.idx":                       old,
		"labels.idx":                           old,
		"0123456789ABCDEF0123456789ABCDEF.idx": old,
		// A data set's file named by its hash, and its index beside it
		// (audit 94).
		"d41d8cd98f00b204e9800998ecf8427e":     old,
		"d41d8cd98f00b204e9800998ecf8427e.idx": old,
		".labels.idx.sluice-tmp-9999":          old,
	} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, at, at); err != nil {
			t.Fatal(err)
		}
	}
	trim(t.Context(), dir, now)
	others := []string{".labels.idx.sluice-tmp-9999", "0123456789ABCDEF0123456789ABCDEF.idx", "a.tfrecord.idx",
		"d41d8cd98f00b204e9800998ecf8427e", "d41d8cd98f00b204e9800998ecf8427e.idx", "labels.idx"}
	want := append(slices.Clone(others), "."+recentHash+".sluice-tmp-5678", "fedcba9876543210fedcba9876543210.idx", "not-an-index.txt", trimStamp)
	slices.Sort(want)
	if got := names(t, dir); !slices.Equal(got, want) {
		t.Errorf("after a trim: %q, want %q", got, want)
	}
	// Within trimEvery of the last trim, nothing is removed.
	later := now.Add(trimEvery - time.Minute)
	os.Chtimes(filepath.Join(dir, recentHash), old, old)
	trim(t.Context(), dir, later)
	if got := names(t, dir); !slices.Equal(got, want) {
		t.Errorf("a second trim %v after the first removed files: %q, want %q", trimEvery-time.Minute, got, want)
	}
	trim(t.Context(), dir, now.Add(trimEvery+time.Minute))
	want = append(slices.Clone(others), "."+recentHash+".sluice-tmp-5678", "not-an-index.txt", trimStamp)
	slices.Sort(want)
	if got := names(t, dir); !slices.Equal(got, want) {
		t.Errorf("a trim a day later: %q, want %q", got, want)
	}
}

// Loading an index from the cache marks it used, so that a trim keeps it;
// a cached index no one loads goes.
func TestTrimKeepsUsed(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("SLUICE_INDEX_DIR", cache)
	dir := t.TempDir()
	a, _ := writeFile(t, dir, "a.tfrecord", 3, tfrecord.None)
	b, _ := writeFile(t, dir, "b.tfrecord", 3, tfrecord.None)
	for _, name := range []string{a, b} {
		if _, err := LoadOrBuild(t.Context(), name); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-trimUnused - time.Hour)
	for _, name := range []string{a, b} {
		p, _ := cached(name)
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	os.Chtimes(filepath.Join(cache, trimStamp), old, old)
	if _, err := Load(t.Context(), a); err != nil {
		t.Fatal(err)
	}
	trim(t.Context(), cache, time.Now())
	pa, _ := cached(a)
	pb, _ := cached(b)
	if _, err := os.Stat(pa); err != nil {
		t.Errorf("the index of a, loaded, was trimmed: %v", err)
	}
	if _, err := os.Stat(pb); err == nil {
		t.Errorf("the index of b, unused for %v, was kept", trimUnused)
	}
}

func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	return got
}
