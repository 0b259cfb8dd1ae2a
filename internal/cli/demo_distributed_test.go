package cli

import (
	"strings"
	"testing"
)

// `sluice demo distributed` in a short mode: the workers share the queue,
// one is killed, and every example of each epoch arrives exactly once.
func TestDemoDistributed(t *testing.T) {
	code, out, errOut := run(t, "demo", "distributed", "--images", "900", "--shards", "6", "--kill-after", "20", "--ack-wait", "1s")
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errOut, out)
	}
	for _, want := range []string{
		"epoch 1: 6 files, 900 examples",
		"epoch 2: 6 files, 900 examples",
		"was killed after 20 records of s3://sluice-demo/train-",
		"every example of every epoch delivered exactly once",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if code, _, errOut := run(t, "demo", "distributed", "--workers", "1"); code == 0 || !strings.Contains(errOut, "--workers at least 2") {
		t.Errorf("--workers 1: exit %d, %q", code, errOut)
	}
}
