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
	if code != 0 || !strings.HasPrefix(out, "1000 records, ") || !strings.Contains(out, "compression detected per file") {
		t.Fatalf("bench: %q %q", out, errOut)
	}
}

// bench reads files as the other commands do: each in its own
// compression, and a --compression a file's first bytes deny refused with
// their words, not reported as corrupt records (audit 78: the first file's
// compression served for all, and a healthy file was "corrupted").
func TestBenchFiles(t *testing.T) {
	dir := t.TempDir()
	gz := writeExamples(t, dir, "a.tfrecord.gz", 30, tfrecord.Gzip)
	plain := writeExamples(t, dir, "b.tfrecord", 20, tfrecord.None)
	zst := writeExamples(t, dir, "c.tfrecord.zst", 10, tfrecord.Zstd)
	for _, tc := range []struct {
		args     []string
		code     int
		out, err string
	}{
		{[]string{gz, plain, zst}, 0, "60 records, ", ""},
		{[]string{"--parse", plain, gz}, 0, "50 records, ", ""},
		{[]string{"--compression", "GZIP", gz}, 0, "30 records, ", ""},
		{[]string{"--compression", "GZIP", gz, plain}, 1, "", plain + ": the file starts like uncompressed TFRecord data, not GZIP: try --compression NONE or auto"},
		{[]string{"--compression", "ZLIB", gz}, 1, "", gz + ": the file starts like GZIP data, not ZLIB"},
		{[]string{"-"}, 1, "", "-: bench reads its files by name"},
	} {
		code, out, errOut := run(t, append([]string{"bench"}, tc.args...)...)
		if code != tc.code || !strings.HasPrefix(out, tc.out) || !strings.Contains(errOut, tc.err) {
			t.Errorf("bench %q: exit %d, %q, %q; want exit %d, output starting %q, an error holding %q", tc.args, code, out, errOut, tc.code, tc.out, tc.err)
		}
	}
}
