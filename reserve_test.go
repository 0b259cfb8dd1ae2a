package sluice

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"

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
