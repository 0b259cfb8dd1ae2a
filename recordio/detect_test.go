package recordio

import (
	"fmt"
	"os"
	"slices"
	"testing"

	"github.com/sluiceml/sluice/tfrecord"
)

// DetectCompression: one reader reads files of every compression, each
// as its first bytes say, whatever compression it was given; without it
// the given one applies to all, and the others fail.
func TestDetectCompression(t *testing.T) {
	dir := t.TempDir()
	kinds := []tfrecord.Compression{tfrecord.Gzip, tfrecord.None, tfrecord.Zstd, tfrecord.Zlib}
	var names []string
	var want []kv
	for i, c := range kinds {
		data, err := os.ReadFile(writeTFRecords(t, t.TempDir(), c, 1, 3)[0])
		if err != nil {
			t.Fatal(err)
		}
		name := writeFile(t, dir, fmt.Sprintf("f%d", i), data)
		names = append(names, name)
		for j := range 3 {
			want = append(want, kv{fmt.Sprintf("%s:%d", name, 34*j), fmt.Sprintf("Record %d of file 0", j)})
		}
	}
	q := workQueue(t, names...)
	q.Close(bg)
	if got := readAll(t, NewTFRecordReader(q, tfrecord.None, DetectCompression())); !slices.Equal(got, want) {
		t.Errorf("read %v, want %v", got, want)
	}

	q = workQueue(t, names...)
	q.Close(bg)
	if _, _, err := NewTFRecordReader(q, tfrecord.None).Read(bg); err == nil {
		t.Error("without DetectCompression a GZIP file read as uncompressed gave a record")
	}
}
