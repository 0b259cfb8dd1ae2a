package sluice

import (
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/sluiceml/sluice/tfrecord"
)

// Iterator.Skipped counts the corrupt records SkipCorrupt read past, in
// each engine that takes SkipCorrupt, and every epoch's.
func TestIteratorSkipped(t *testing.T) {
	// Three files of 30 records; the first and the third have a record
	// whose data CRC fails.
	counts, damaged := []int{30, 30, 30}, map[int]int{0: 4, 2: 29}
	for _, c := range []struct {
		name   string
		opts   []ExampleOption
		epochs int
	}{
		{"in order", []ExampleOption{Readers(1)}, 1},
		{"three readers", []ExampleOption{Readers(3)}, 1},
		{"shuffled, two epochs", []ExampleOption{Readers(2), Shuffle(20), Seed(1), Epochs(2)}, 2},
		{"deterministic", []ExampleOption{Deterministic(), Readers(2)}, 1},
		{"deterministic, shuffled, two epochs", []ExampleOption{Deterministic(), Readers(3), Shuffle(20), Epochs(2)}, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, comp := range []tfrecord.Compression{tfrecord.None, tfrecord.Gzip} {
				pattern := writeNamed(t, t.TempDir(), counts, damaged, false, comp)
				it, err := Records(pattern, append(c.opts, SkipCorrupt())...).Iterator(t.Context(), 7)
				if err != nil {
					t.Fatal(err)
				}
				records := countRecords(t, it)
				it.Close()
				skipped := int64(len(damaged) * c.epochs)
				if got := it.Skipped(); got != skipped {
					t.Errorf("%v: Skipped() = %d, want %d", comp, got, skipped)
				}
				if want := 90*c.epochs - int(skipped); records != want {
					t.Errorf("%v: %d records delivered, want %d", comp, records, want)
				}
			}
		})
	}
}

// Without SkipCorrupt a corrupt record is an error, and nothing is
// counted as skipped; with no damage, nothing either.
func TestIteratorSkippedNone(t *testing.T) {
	for _, damaged := range []map[int]int{{1: 3}, nil} {
		for _, engine := range []struct {
			name string
			opt  ExampleOption
		}{{"default", Readers(1)}, {"deterministic", Deterministic()}} {
			opts := []ExampleOption{engine.opt}
			t.Run(fmt.Sprintf("%s/damaged %v", engine.name, damaged != nil), func(t *testing.T) {
				it, err := Records(writeNamed(t, t.TempDir(), []int{10, 10}, damaged, false), opts...).Iterator(t.Context(), 4)
				if err != nil {
					t.Fatal(err)
				}
				defer it.Close()
				var last error
				for last == nil {
					_, last = it.Next()
				}
				if wantErr := damaged != nil; errors.Is(last, tfrecord.ErrDataLoss) != wantErr {
					t.Errorf("end of iteration %v, want data loss %v", last, wantErr)
				}
				if got := it.Skipped(); got != 0 {
					t.Errorf("Skipped() = %d, want 0", got)
				}
			})
		}
	}
}

// A resumed iteration counts the corrupt records after the checkpoint's
// position only, whatever the compression: a compressed file is read from
// its start to reach the position, and the corrupt record it passes on
// the way was the saving run's.
func TestIteratorSkippedResumed(t *testing.T) {
	for _, c := range []tfrecord.Compression{tfrecord.None, tfrecord.Gzip, tfrecord.Zlib, tfrecord.Zstd} {
		t.Run(fmt.Sprint(c), func(t *testing.T) {
			// Record 2 of the first file is corrupt, before the
			// checkpoint; record 5 of the second, after it.
			pattern := writeNamed(t, t.TempDir(), []int{300, 300}, map[int]int{0: 2, 1: 5}, false, c)
			ds := Records(pattern, Deterministic(), Readers(1), SkipCorrupt())
			ck := checkpointAt(t, t.Context(), ds, 7, 1, 0, nil)
			it, err := ds.Iterator(t.Context(), 7, Resume(ck))
			if err != nil {
				t.Fatal(err)
			}
			defer it.Close()
			if n := countRecords(t, it); n != 600-2-7 || it.Skipped() != 1 {
				t.Errorf("resumed run: %d records, Skipped() = %d; want %d and 1", n, it.Skipped(), 600-2-7)
			}
		})
	}
}

// countRecords reads it to its end and returns the records it delivered.
func countRecords(t *testing.T, it *Iterator) int {
	t.Helper()
	n := 0
	for {
		b, err := it.Next()
		if err == io.EOF {
			return n
		}
		if err != nil {
			t.Fatal(err)
		}
		n += b.Len()
	}
}
