package cli

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/sluiceml/sluice/tfrecord"
)

// The demo in a short mode: it runs end to end and its classifier learns
// (chance is 10%; the full demo reaches about 92%).
func TestDemoShort(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a classifier")
	}
	code, out, errOut := run(t, "demo", "--train", "3000", "--test", "600", "--epochs", "2", "--shards", "3",
		"--readers", "2", "--dir", t.TempDir(), "--min-accuracy", "0.25", "--quiet")
	if code != 0 {
		t.Fatalf("demo failed: %q %q", out, errOut)
	}
	m := regexp.MustCompile(`test accuracy\s+([\d.]+)% on 600 images`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no accuracy in %q", out)
	}
	if acc, _ := strconv.ParseFloat(m[1], 64); acc < 25 || acc > 99.9 {
		t.Fatalf("accuracy %.2f%%", acc)
	}
}

func TestBench(t *testing.T) {
	dir := t.TempDir()
	writeExamples(t, dir, "a.tfrecord.gz", 300, tfrecord.Gzip)
	writeExamples(t, dir, "b.tfrecord.gz", 200, tfrecord.Gzip)
	code, out, errOut := run(t, "bench", "--parse", "--epochs", "2", "--batch", "64", filepath.Join(dir, "*.gz"))
	if code != 0 || !strings.HasPrefix(out, "1000 records, ") || !strings.Contains(out, "GZIP") {
		t.Fatalf("bench: %q %q", out, errOut)
	}
}
