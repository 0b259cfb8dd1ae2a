package main

import (
	"os/exec"
	"strings"
	"testing"
)

// The everyday binary links no test servers and no client only the
// distributed demo uses: building sluice must not download or compile
// them (the demo is cmd/sluice-demo-distributed).
func TestNoTestServersLinked(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not on PATH")
	}
	out, err := exec.Command(goTool, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	forbidden := []string{
		"github.com/nats-io/nats-server/", // embedded NATS server
		"github.com/johannesboyne/gofakes3",
		"github.com/nats-io/nats.go", // the client: only natsqueue, only the demo
		"github.com/sluiceml/sluice/queue/natsqueue",
		"github.com/sluiceml/sluice/internal/distdemo",
	}
	for dep := range strings.Lines(string(out)) {
		dep = strings.TrimSpace(dep)
		for _, f := range forbidden {
			if dep == strings.TrimSuffix(f, "/") || strings.HasPrefix(dep, f) {
				t.Errorf("sluice depends on %s", dep)
			}
		}
	}
}
