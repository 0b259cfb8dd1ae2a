package cli

import (
	"strings"
	"testing"
)

// `sluice demo distributed`, with or without its old flags, points to the
// command that now holds it, in one line, and fails.
func TestDemoDistributedMoved(t *testing.T) {
	for _, args := range [][]string{
		{"demo", "distributed"},
		{"demo", "distributed", "--workers", "5", "--ack-wait", "1s"},
	} {
		code, out, errOut := run(t, args...)
		if code == 0 || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "go run github.com/sluiceml/sluice/cmd/sluice-demo-distributed@latest") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want a one-line pointer and a failure", args, code, out, errOut)
		}
	}
}
