package main

import (
	"os/exec"
	"strings"
	"testing"
)

// The server goes into every wheel of the Python package: by default it
// links no cloud SDK (7 MB, not 47), and with -tags objectstore it does.
func TestObjectStoresOnlyWithTag(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not on PATH")
	}
	for _, tt := range []struct {
		tags string
		want bool
	}{{"", false}, {"objectstore", true}} {
		out, err := exec.Command(goTool, "list", "-tags", tt.tags, "-deps", ".").Output()
		if err != nil {
			t.Fatalf("go list -tags %q -deps: %v", tt.tags, err)
		}
		linked := false
		for dep := range strings.Lines(string(out)) {
			if strings.HasPrefix(dep, "gocloud.dev/") || strings.HasPrefix(dep, "github.com/sluiceml/sluice/storage/blobfs") {
				linked = true
			}
		}
		if linked != tt.want {
			t.Errorf("-tags %q: the object stores linked: %v, want %v", tt.tags, linked, tt.want)
		}
	}
}
