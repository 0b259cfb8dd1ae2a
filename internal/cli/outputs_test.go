package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sluiceml/sluice/tfrecord"
)

// convert refuses, before it reads anything, an --out it cannot write
// as asked: a folder (which would get a hidden dir/.tfrecord, or files
// beside it), an output name a folder holds (found only at the final
// rename, after all the work), a name too long for its temporary name.
func TestConvertRefusesOutputNames(t *testing.T) {
	dir := t.TempDir()
	in := writeExamples(t, dir, "in.tfrecord", 2, tfrecord.None)
	folder := filepath.Join(dir, "dd")
	os.Mkdir(folder, 0o755)
	for _, name := range []string{"e.tfrecord", "e.parquet", "s-00001-of-00002.tfrecord", "s-00001-of-00002.parquet"} {
		os.Mkdir(filepath.Join(dir, name), 0o755)
	}
	long := filepath.Join(dir, strings.Repeat("a", 235))
	for _, to := range []string{"tfrecord", "parquet"} {
		for _, tt := range []struct {
			args []string
			want string
		}{
			{[]string{"--out", folder + "/"}, "is a folder"},
			{[]string{"--out", folder}, "is a folder"},
			{[]string{"--out", "file://" + folder + "/"}, "is a folder"},
			{[]string{"--out", filepath.Join(dir, "e")}, "is a folder"},
			{[]string{"--out", filepath.Join(dir, "s"), "--shards", "2"}, "is a folder"},
			{[]string{"--out", long}, "file name too long"},
			{[]string{"--out", ""}, "--out is empty"},
		} {
			args := append([]string{"convert", in, "--to", to}, tt.args...)
			code, _, errOut := run(t, args...)
			if code == 0 || !strings.Contains(errOut, tt.want) {
				t.Errorf("%q: exit %d, %q; want an error saying %q", args[1:], code, errOut, tt.want)
			}
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") || strings.HasPrefix(e.Name(), "a") {
			t.Errorf("refused converts left %s", e.Name())
		}
	}
	if left, _ := os.ReadDir(folder); len(left) != 0 {
		t.Errorf("refused converts wrote into %s: %v", folder, left)
	}
	// The longest name that fits is written.
	ok := filepath.Join(dir, strings.Repeat("b", 255-26-len(".tfrecord")))
	if code, _, errOut := run(t, "convert", in, "--out", ok); code != 0 {
		t.Errorf("--out of the longest name that fits: exit %d, %q", code, errOut)
	}
}

// outputStem removes one TFRecord extension, the longest, whatever the
// order of a map.
func TestOutputStem(t *testing.T) {
	for out, want := range map[string]string{
		"x":                      "x",
		"x.tfrecord":             "x",
		"x.tfrecord.gz":          "x",
		"x.tfrecord.zlib":        "x",
		"x.tfrecord.zst":         "x",
		"x.tfrecord.gz.tfrecord": "x.tfrecord.gz",
		"x.tfrecord.tfrecord.gz": "x.tfrecord",
		"x.gz":                   "x",
		"x.tfrecord.zz":          "x",
		"x.zst.tfrecord":         "x.zst",
		".gz":                    ".gz",
		"x.parquet":              "x.parquet",
	} {
		for range 20 {
			if got := outputStem(out); got != want {
				t.Fatalf("outputStem(%q) = %q, want %q", out, got, want)
			}
		}
	}
}
