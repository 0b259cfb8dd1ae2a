package cli

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/sluiceml/sluice/internal/s3test"
	"github.com/sluiceml/sluice/storage/blobfs"
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

// A read that fails (a store answering 500 for good) is not damage: verify
// says the file was not read through and counts no bad record, where it
// called an intact file "1 bad record" (audit 47).
func TestVerifyUnreadObject(t *testing.T) {
	var failing atomic.Bool
	fsys := s3test.ServeFaulty(t, "verify", nil, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if failing.Load() && r.Method == http.MethodGet && r.Header.Get("Range") != "" {
				w.WriteHeader(http.StatusInternalServerError)
				return
			}
			h.ServeHTTP(w, r)
		})
	}, blobfs.Retries(0))
	dir := t.TempDir()
	data, err := os.ReadFile(writeExamples(t, dir, "in.tfrecord", 10, tfrecord.None))
	if err != nil {
		t.Fatal(err)
	}
	w, err := fsys.Create(t.Context(), "s3://verify/in.tfrecord")
	if err != nil {
		t.Fatal(err)
	}
	w.Write(data)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	failing.Store(true)
	code, out, errOut := run(t, "verify", "s3://verify/in.tfrecord")
	if code == 0 || strings.Contains(out+errOut, "1 bad record") || !strings.Contains(out, "1 file not read through") ||
		!strings.Contains(errOut, "not read through") {
		t.Errorf("verify of an object the store will not read: exit %d\n%s%s", code, out, errOut)
	}
}
