package recordio

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sluiceml/sluice/tfrecord"
)

// A file larger than a record's limit is ErrTooLarge, naming it, before
// any of it is read or allocated: a sparse file of 2 GiB and a byte takes
// no disk, and would take its size in memory.
func TestWholeFileTooLarge(t *testing.T) {
	p := filepath.Join(t.TempDir(), "huge.bin")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(tfrecord.DefaultMaxRecordSize + 1); err != nil {
		f.Close()
		t.Skip(err)
	}
	f.Close()
	q := workQueue(t, p)
	q.Close(bg)
	r := NewWholeFileReader(q)
	_, _, err = r.Read(bg)
	if !errors.Is(err, tfrecord.ErrTooLarge) || !strings.Contains(err.Error(), p) {
		t.Fatalf("%v, want ErrTooLarge naming the file", err)
	}
}
