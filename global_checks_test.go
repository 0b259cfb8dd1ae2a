package sluice

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sluiceml/sluice/dataerr"
	"github.com/sluiceml/sluice/recordio"
	"github.com/sluiceml/sluice/tensor"
	"github.com/sluiceml/sluice/tfrecord"
)

// A checkpoint of an endless global shuffle whose position overflows
// (hostile or damaged) is refused, not followed into a permutation walk
// that never ends.
func TestGlobalResumeOverflowingPosition(t *testing.T) {
	t.Setenv("SLUICE_INDEX_DIR", t.TempDir())
	dir := t.TempDir()
	writeExamples(t, dir, 2, 10)
	ds := Examples(filepath.Join(dir, "train-*"), testSpec, GlobalShuffle(), Forever(), Seed(1))
	it, err := ds.Iterator(t.Context(), 4)
	if err != nil {
		t.Fatal(err)
	}
	ck, err := it.Checkpoint()
	it.Close()
	if err != nil {
		t.Fatal(err)
	}
	for _, delivered := range []int64{3 << 61, 1 << 62, 1<<63 - 1} {
		var m map[string]any
		if err := json.Unmarshal(ck, &m); err != nil {
			t.Fatal(err)
		}
		m["delivered"] = delivered
		bad, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		if it, err := ds.Iterator(t.Context(), 4, Resume(bad)); !errors.Is(err, ErrCheckpoint) {
			if err == nil {
				it.Close()
			}
			t.Errorf("Resume at batch %d of 4 records: %v; want ErrCheckpoint", delivered, err)
		}
	}
}

// A file rewritten to the same size with another number of records
// changes every epoch's permutation: a global shuffle's checkpoint is
// refused over it, naming the file.
func TestGlobalResumeRecordsChanged(t *testing.T) {
	t.Setenv("SLUICE_INDEX_DIR", t.TempDir())
	name := filepath.Join(t.TempDir(), "d.tfrecord")
	write := func(sizes ...int) {
		var b bytes.Buffer
		w := tfrecord.NewWriter(&b, tfrecord.None)
		for _, n := range sizes {
			if err := w.Write(make([]byte, n)); err != nil {
				t.Fatal(err)
			}
		}
		w.Close()
		if err := os.WriteFile(name, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(100, 100, 100, 100) // 4 records of 116 framed bytes
	ds := Records(name, GlobalShuffle(), Seed(3), Epochs(2))
	ck := checkpointAfter(t, ds, 1, 1)
	before, _ := os.Stat(name)
	write(77, 77, 77, 77, 76) // 5 records, the same 464 bytes
	after, _ := os.Stat(name)
	if before.Size() != after.Size() {
		t.Fatalf("sizes %d and %d", before.Size(), after.Size())
	}
	// A later modification time makes the index stale, so it is rebuilt.
	os.Chtimes(name, time.Now(), before.ModTime().Add(time.Second))
	_, err := ds.Iterator(t.Context(), 1, Resume(ck))
	if !errors.Is(err, ErrCheckpoint) || !bytes.Contains([]byte(err.Error()), []byte("5 records, 4 when")) {
		t.Fatalf("Resume over a file of 5 records, 4 when saved: %v; want ErrCheckpoint naming the counts", err)
	}
}

// Options that a global shuffle cannot honour, or that would silently
// read every record on every worker, are refused. (Shuffle and
// ShuffleFiles are not: the global shuffle supersedes them.)
func TestGlobalShuffleRefusedOptions(t *testing.T) {
	t.Setenv("SLUICE_INDEX_DIR", t.TempDir())
	dir := t.TempDir()
	writeExamples(t, dir, 2, 10)
	pat := filepath.Join(dir, "train-*")
	for _, tc := range []struct {
		name string
		ds   *Dataset
	}{
		{"Shard(i, 0)", Examples(pat, testSpec, GlobalShuffle(), Shard(3, 0))},
		{"Shard(i, 0) without a global shuffle", Examples(pat, testSpec, Shard(3, 0))},
		{"Shard(2, 2)", Examples(pat, testSpec, Shard(2, 2), Deterministic())},
		{"Shard(-1, 2)", Records(pat, GlobalShuffle(), Shard(-1, 2))},
		{"SkipCorrupt", Examples(pat, testSpec, GlobalShuffle(), SkipCorrupt())},
		{"SkipCorrupt, records", Records(pat, GlobalShuffle(), SkipCorrupt())},
	} {
		it, err := tc.ds.Iterator(t.Context(), 4)
		if !errors.Is(err, ErrInvalid) {
			if err == nil {
				it.Close()
			}
			t.Errorf("%s: %v; want ErrInvalid", tc.name, err)
		}
	}
}

// A global shuffle over files that hold no record ends at once with
// io.EOF and no batch for a finite number of epochs, as the deterministic
// engine does; Forever is refused with ErrInvalid as in every engine,
// naming no shard unless one was asked for and holds no record. Before,
// it failed at its start with "0 records for shard 0 of 1", a shard the
// user never set.
func TestGlobalShuffleNoRecords(t *testing.T) {
	t.Setenv("SLUICE_INDEX_DIR", t.TempDir())
	empty := writeNamed(t, t.TempDir(), []int{0, 0}, nil, false)
	three := writeNamed(t, t.TempDir(), []int{3}, nil, false)
	for _, c := range []struct {
		name    string
		ds      *Dataset
		message string // of the error wrapping ErrInvalid; "": io.EOF at once
	}{
		{"one epoch", Records(empty, GlobalShuffle()), ""},
		{"the deterministic engine", Records(empty, Deterministic()), ""},
		{"three epochs", Records(empty, GlobalShuffle(), Epochs(3)), ""},
		{"a shard", Records(empty, GlobalShuffle(), Shard(1, 2)), ""},
		{"Forever", Records(empty, GlobalShuffle(), Forever()), "Forever over 2 files that hold no records"},
		{"Forever, a shard", Records(empty, GlobalShuffle(), Forever(), Shard(1, 2)), "Forever over 2 files that hold no records"},
		{"a shard of no record", Records(three, GlobalShuffle(), Shard(5, 8)), "3 records for shard 5 of 8"},
	} {
		t.Run(c.name, func(t *testing.T) {
			it, err := c.ds.Iterator(t.Context(), 4)
			if err == nil {
				var b *Batch
				b, err = it.Next()
				if b != nil {
					t.Fatalf("a batch of %d", b.Len())
				}
				if err == io.EOF {
					// A position like any other.
					ck, err := it.Checkpoint()
					if err != nil {
						t.Fatalf("Checkpoint at the end: %v", err)
					}
					if got := resumed(t, t.Context(), c.ds, 4, ck); len(got.batches) > 0 || got.err != nil {
						t.Errorf("resumed at the end: %d batches, %v", len(got.batches), got.err)
					}
				}
				it.Close()
			}
			switch {
			case c.message == "" && err != io.EOF:
				t.Errorf("%v, want io.EOF", err)
			case c.message != "" && (!errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.message)):
				t.Errorf("%v, want ErrInvalid: %s", err, c.message)
			case c.message != "" && !strings.Contains(c.message, "shard") && strings.Contains(err.Error(), "shard"):
				t.Errorf("%v: names a shard", err)
			}
		})
	}
}

// A fixed-length file shorter than its header fails a global shuffle, as
// it fails the other engines and TensorFlow ("reached end of file"); it
// was read as a file of no records (audit 40).
func TestGlobalFixedShortHeader(t *testing.T) {
	dir := t.TempDir()
	good, short := filepath.Join(dir, "a.bin"), filepath.Join(dir, "b.bin")
	os.WriteFile(good, []byte("HDRabcdef"), 0o644)
	os.WriteFile(short, []byte("HD"), 0o644)
	fields := []Field{{Name: "x", Size: 2, DType: tensor.Uint8, Shape: []int{2}}}
	for _, opts := range [][]RecordOption{{GlobalShuffle()}, {}, {Deterministic()}} {
		ds := FixedLengthRecords(filepath.Join(dir, "*.bin"), 2, fields, append(opts, HeaderBytes(3))...)
		err := first(ds.Batches(t.Context(), 2))
		var de *dataerr.Error
		if !errors.Is(err, recordio.ErrShortHeader) || !errors.As(err, &de) || de.File != short {
			t.Errorf("%d options: %v, want ErrShortHeader naming %s", len(opts), err, short)
		}
	}
}

// A checkpoint of a global shuffle resumed by a deterministic run, or the
// other way, is refused naming GlobalShuffle, not the Readers the two
// engines record differently (audit 40).
func TestResumeOtherEngine(t *testing.T) {
	t.Setenv("SLUICE_INDEX_DIR", t.TempDir())
	dir := t.TempDir()
	writeExamples(t, dir, 2, 10, tfrecord.None)
	pattern := filepath.Join(dir, "train-*")
	global := Examples(pattern, testSpec, GlobalShuffle(), Seed(1))
	det := Examples(pattern, testSpec, Deterministic(), Seed(1))
	for _, tc := range []struct{ from, to *Dataset }{{global, det}, {det, global}} {
		ck := checkpointAt(t, t.Context(), tc.from, 4, 1, 0, nil)
		err := first(tc.to.Batches(t.Context(), 4, Resume(ck)))
		if !errors.Is(err, ErrCheckpoint) || !strings.Contains(err.Error(), "GlobalShuffle") {
			t.Errorf("%v", err)
		}
	}
}
