package sluice

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sluiceml/sluice/index"
)

// A sluice index beside its file, which a pattern such as 'data/*' finds
// too, is named as one, in every engine and with SkipCorrupt, not read
// as a damaged TFRecord file to salvage (audit 53).
func TestIndexFileInPattern(t *testing.T) {
	t.Setenv("SLUICE_INDEX_DIR", t.TempDir())
	dir := t.TempDir()
	names := writeExamples(t, dir, 1, 10)
	x, err := index.Build(t.Context(), names[0])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := x.Save(t.Context(), true); err != nil {
		t.Fatal(err)
	}
	pattern := filepath.Join(dir, "*")
	for name, ds := range map[string]*Dataset{
		"default":       Records(pattern),
		"SkipCorrupt":   Records(pattern, SkipCorrupt()),
		"Deterministic": Records(pattern, Deterministic()),
		"GlobalShuffle": Records(pattern, GlobalShuffle()),
	} {
		var rerr error
		for _, err := range ds.Batches(t.Context(), 4) {
			if err != nil {
				rerr = err
				break
			}
		}
		if !errors.Is(rerr, index.ErrIndexFile) || !strings.Contains(rerr.Error(), index.Beside(names[0])) {
			t.Errorf("%s: %v; want an error naming %s as a sluice index", name, rerr, index.Beside(names[0]))
		}
	}
}
