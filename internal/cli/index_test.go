package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sluiceml/sluice/index"
	"github.com/sluiceml/sluice/tfrecord"
)

// index builds each file's index once, in the cache or beside the file,
// and refuses a compressed file.
func TestIndexCommand(t *testing.T) {
	t.Setenv("SLUICE_INDEX_DIR", filepath.Join(t.TempDir(), "cache"))
	dir := t.TempDir()
	a := writeRecords(t, dir, "a.tfrecord", tfrecord.None, []byte("one"), []byte("two"), []byte("three"))
	b := writeRecords(t, dir, "b.tfrecord", tfrecord.None, []byte("four"))
	code, out, errOut := run(t, "index", filepath.Join(dir, "*.tfrecord"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "3\t"+a+"\t") || !strings.HasPrefix(lines[1], "1\t"+b+"\t") {
		t.Fatalf("output:\n%s", out)
	}
	if x, err := index.Load(t.Context(), a); err != nil || x.Len() != 3 {
		t.Fatalf("index of %s: %v, %v", a, x, err)
	}
	// Current indexes are not built again.
	if _, out, _ = run(t, "index", a); !strings.Contains(out, "index current") {
		t.Errorf("second run: %q", out)
	}
	if code, _, errOut := run(t, "index", "--beside", b); code != 0 {
		t.Fatalf("--beside: exit %d: %s", code, errOut)
	}
	if _, err := os.Stat(index.Beside(b)); err != nil {
		t.Errorf("--beside: %v", err)
	}
	gz := writeRecords(t, dir, "c.tfrecord.gz", tfrecord.Gzip, []byte("x"))
	code, _, errOut = run(t, "index", gz)
	if code == 0 || !strings.Contains(errOut, "compressed") {
		t.Errorf("compressed file: exit %d, %q", code, errOut)
	}
}
