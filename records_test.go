package sluice

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sluiceml/sluice/dataerr"
	"github.com/sluiceml/sluice/tfrecord"
)

// writeRecords writes files of perFile records each, "rec <i>" padded to
// varying lengths (the empty record included), compressed in turn as cs
// says, and returns the records in file order.
func writeRecords(t *testing.T, dir string, files, perFile int, cs ...tfrecord.Compression) []string {
	t.Helper()
	var all []string
	for i := range files {
		var buf bytes.Buffer
		w := tfrecord.NewWriter(&buf, cs[i%len(cs)])
		for range perFile {
			rec := fmt.Sprintf("rec %d%s", len(all), strings.Repeat("x", len(all)%7))
			if len(all) == 3 {
				rec = ""
			}
			if err := w.Write([]byte(rec)); err != nil {
				t.Fatal(err)
			}
			all = append(all, rec)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("r-%02d.tfrecord", i)), buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return all
}

// rawRecords reads ds to its end in batches of n, returning the records;
// with keep, KeepBatches is among opts, and every batch must still hold
// its records at the end.
func rawRecords(t *testing.T, ds *Dataset, n int, keep bool, opts ...BatchOption) []string {
	t.Helper()
	var got []string
	var kept []*Batch
	var copies [][]string
	for b, err := range ds.Batches(t.Context(), n, opts...) {
		if err != nil {
			t.Fatal(err)
		}
		if b.Names()[0] != RecordFeature || len(b.Names()) != 1 {
			t.Fatalf("features %v", b.Names())
		}
		var recs []string
		for _, r := range b.Bytes(RecordFeature) {
			recs = append(recs, string(r))
		}
		got = append(got, recs...)
		kept, copies = append(kept, b), append(copies, recs)
	}
	if keep {
		for i, b := range kept {
			for j, r := range b.Bytes(RecordFeature) {
				if string(r) != copies[i][j] {
					t.Fatalf("kept batch %d record %d is now %q, was %q", i, j, r, copies[i][j])
				}
			}
		}
	}
	return got
}

// Records gives the records of TFRecord files as they are, from files of
// every compression, in order with one reader, each batch's bytes its
// own with KeepBatches.
func TestRecords(t *testing.T) {
	dir := t.TempDir()
	want := writeRecords(t, dir, 4, 25, tfrecord.None, tfrecord.Gzip, tfrecord.Zlib, tfrecord.Zstd)
	for _, tc := range []struct {
		name string
		keep bool
		opts []BatchOption
		want []string
	}{
		{"reused", false, nil, want},
		{"kept", true, []BatchOption{KeepBatches()}, want},
		{"remainder dropped", false, []BatchOption{DropRemainder()}, want[:len(want)/16*16]},
	} {
		got := rawRecords(t, Records(filepath.Join(dir, "r-*"), Readers(1)), 16, tc.keep, tc.opts...)
		if !slices.Equal(got, tc.want) {
			t.Fatalf("%s: %d records, want %d in order", tc.name, len(got), len(tc.want))
		}
	}
	// Shuffled and read by several readers: every record once.
	got := rawRecords(t, Records(filepath.Join(dir, "r-*"), Readers(3), Shuffle(50), Seed(2)), 7, true, KeepBatches())
	slices.Sort(got)
	sorted := slices.Sorted(slices.Values(want))
	if !slices.Equal(got, sorted) {
		t.Fatalf("shuffled: %d records, want each of %d once", len(got), len(want))
	}
}

// A global shuffle reads raw records through the files' indexes: every
// record once an epoch, mixed across files.
func TestRecordsGlobalShuffle(t *testing.T) {
	t.Setenv("SLUICE_INDEX_DIR", t.TempDir())
	dir := t.TempDir()
	want := writeRecords(t, dir, 3, 40, tfrecord.None)
	got := rawRecords(t, Records(filepath.Join(dir, "r-*"), GlobalShuffle(), Seed(9)), 16, false)
	if slices.Equal(got, want) {
		t.Error("a global shuffle kept the files' order")
	}
	slices.Sort(got)
	if !slices.Equal(got, slices.Sorted(slices.Values(want))) {
		t.Fatalf("%d records, want each of %d once", len(got), len(want))
	}
}

// A corrupt record fails the batch with the file and offset; SkipCorrupt
// reads past it.
func TestRecordsCorrupt(t *testing.T) {
	dir := t.TempDir()
	want := writeRecords(t, dir, 1, 10, tfrecord.None)
	name := filepath.Join(dir, "r-00.tfrecord")
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	// Record 2 starts after records 0 and 1, each framed in 16 bytes.
	off := 2*16 + len(want[0]) + len(want[1])
	data[off+12] ^= 0xff // its first data byte
	if err := os.WriteFile(name, data, 0o644); err != nil {
		t.Fatal(err)
	}
	var got error
	for _, err := range Records(name).Batches(t.Context(), 4) {
		if err != nil {
			got = err
			break
		}
	}
	var de *dataerr.Error
	if !errors.Is(got, tfrecord.ErrDataLoss) || !errors.As(got, &de) || de.File != name || de.Offset != int64(off) {
		t.Fatalf("error %v (%+v), want data loss in %s at %d", got, de, name, off)
	}
	rest := rawRecords(t, Records(name, SkipCorrupt()), 4, false)
	if !slices.Equal(rest, slices.Delete(slices.Clone(want), 2, 3)) {
		t.Fatalf("skipping the corrupt record: %q", rest)
	}
}
