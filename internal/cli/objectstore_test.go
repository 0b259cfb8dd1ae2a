package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/sluiceml/sluice/tfrecord"
)

// Every command takes object-store names: here gocloud's in-memory store
// (mem://), served by the same storage/blobfs code as s3://, gs:// and
// azblob://. The in-process S3 server tests are in storage/blobfs.
func TestObjectStoreNames(t *testing.T) {
	dir := t.TempDir()
	writeExamples(t, dir, "in.tfrecord", 10, tfrecord.None)
	code, out, errOut := run(t, "convert", filepath.Join(dir, "in.tfrecord"), "--out", "mem://clitest/part.tfrecord",
		"--shards", "2", "--compression", "GZIP")
	if code != 0 {
		t.Fatalf("convert to mem://: %s", errOut)
	}
	if !strings.Contains(out, "mem://clitest/part-00000-of-00002.tfrecord.gz") {
		t.Errorf("convert output %q", out)
	}
	code, out, errOut = run(t, "count", "mem://clitest/part-*")
	if code != 0 {
		t.Fatalf("count mem://: %s", errOut)
	}
	for _, want := range []string{"mem://clitest/part-00000-of-00002.tfrecord.gz", "mem://clitest/part-00001-of-00002.tfrecord.gz", "10"} {
		if !strings.Contains(out, want) {
			t.Errorf("count output lacks %q:\n%s", want, out)
		}
	}
	if code, _, errOut := run(t, "verify", "mem://clitest/part-*"); code != 0 {
		t.Errorf("verify mem://: %s", errOut)
	}
	code, out, _ = run(t, "cat", "--limit", "1", "--keys", "mem://clitest/part-00001-of-00002.tfrecord.gz")
	if code != 0 || !strings.HasPrefix(out, `{"key":"mem://clitest/part-00001-of-00002.tfrecord.gz:0"`) {
		t.Errorf("cat mem://: %q", out)
	}
	// A name in a bucket that holds nothing matches nothing.
	if code, _, errOut := run(t, "count", "mem://clitest/none-*"); code == 0 || !strings.Contains(errOut, "mem://clitest/none-*") {
		t.Errorf("empty glob: exit %d, %q", code, errOut)
	}
}
