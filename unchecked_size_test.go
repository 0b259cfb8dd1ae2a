package sluice

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/sluiceml/sluice/example"
	"github.com/sluiceml/sluice/tensor"
)

// A batch of large fixed-length records reserves room for the records
// that arrive, not for batch size × record size before the first is read:
// a file of one 256 MiB record read in batches of 1024 asked for 256 GiB
// and ended the process (audit 112).
func TestFixedLengthReserveBounded(t *testing.T) {
	const recordBytes, batch = 16 << 20, 64
	name := filepath.Join(t.TempDir(), "one.bin")
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(recordBytes); err != nil { // one record, of zeros
		t.Fatal(err)
	}
	f.Close()
	ds := FixedLengthRecords(name, recordBytes, []Field{{Name: "b", Offset: 0, Size: recordBytes, DType: tensor.Uint8}}, Readers(1))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	n := 0
	for b, err := range ds.Batches(context.Background(), batch) {
		if err != nil {
			t.Fatal(err)
		}
		n += b.Len()
	}
	runtime.ReadMemStats(&after)
	if n != 1 {
		t.Fatalf("%d records, want 1", n)
	}
	// The record, its reader's buffer, the batch: a few times 16 MiB, where
	// the whole batch's room is 1 GiB.
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > batch*recordBytes/4 {
		t.Errorf("a batch of one %d-byte record allocated %d bytes", recordBytes, alloc)
	}
}

// A FixedLen shape that no record fills (a mistake in the spec) is the
// first record's error, not an allocation of the batch the shape sizes:
// [2^30] float32s for records of 4 values asked for 256 GiB of a batch
// parsed row by row and ended the process (audit 112).
func TestSpecShapeTooLarge(t *testing.T) {
	name := filepath.Join(t.TempDir(), "small.tfrecord")
	var recs [][]byte
	for range 64 {
		recs = append(recs, example.New().Float("f", 1, 2, 3, 4).Marshal())
	}
	writeTFRecords(t, name, recs...)
	ds := Examples(name, example.Spec{"f": example.FixedLen(tensor.Float32, 1<<30)})
	for _, err := range ds.Batches(context.Background(), 128) {
		if !errors.Is(err, example.ErrValueCount) || !strings.Contains(err.Error(), name+":0") {
			t.Fatalf("%v, want ErrValueCount naming %s:0", err, name)
		}
		return
	}
	t.Fatal("no error")
}
