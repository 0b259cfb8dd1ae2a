//go:build unix

package storage

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

// hook sets a test hook until the test ends.
func hook(t *testing.T, h *func(string), f func(string)) {
	t.Helper()
	*h = f
	t.Cleanup(func() { *h = nil })
}

// A writer that commits while RemoveLeftover looks at its temporary takes
// the name away under it: RemoveLeftover has removed nothing, and a name
// already gone is no error.
func TestRemoveLeftoverRacesCommit(t *testing.T) {
	name := filepath.Join(t.TempDir(), "out")
	p, err := CreatePending(t.Context(), name)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(p, "data")
	hook(t, &testHookLeftoverOpened, func(string) {
		if err := p.Commit(); err != nil {
			t.Errorf("Commit: %v", err)
		}
	})
	if removed, err := RemoveLeftover(t.Context(), p.TempName()); removed || err != nil {
		t.Errorf("RemoveLeftover of a temporary committed meanwhile = %v, %v; want false, nil", removed, err)
	}
	if b, err := os.ReadFile(name); string(b) != "data" {
		t.Errorf("the committed file reads %q, %v; want data", b, err)
	}
}
