package cli

import (
	"strings"
	"testing"
)

// `sluice demo sequence` in a short mode: every series' carried state
// matches its whole-series estimate.
func TestDemoSequence(t *testing.T) {
	code, out, errOut := run(t, "demo", "sequence", "--series", "400", "--max-len", "120", "--shards", "3",
		"--boundaries", "30,60", "--bucket-batch", "16,8,4", "--dir", t.TempDir(), "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errOut, out)
	}
	for _, want := range []string{"400 of 400 series", "segments/s", "by_length/bucket/top_queue", "state_saver/capacity_queue"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if code, _, errOut := run(t, "demo", "sequence", "--boundaries", "10,20", "--bucket-batch", "4"); code == 0 ||
		!strings.Contains(errOut, "1 bucket batch sizes for 2 boundaries") {
		t.Errorf("mismatched buckets: exit %d, %q", code, errOut)
	}
}
