package sluice

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sluiceml/sluice/tfrecord"
	"google.golang.org/protobuf/encoding/protowire"
)

// A checkpoint whose TFRecord position is inside a record (a checkpoint
// edited, or taken of a file since rewritten with its size kept) is
// refused when the reader seeks to it, naming the record that runs across
// it; it used to fail as damage to the file, with salvage advice. Damage
// at the position itself, where a record does start, stays a data error.
func TestResumeTFRecordPositionInsideRecord(t *testing.T) {
	dir := t.TempDir()
	name := writeExamples(t, dir, 1, 3000)[0]
	ds := Examples(name, testSpec, Deterministic(), Readers(1))
	ck := checkpointAfter(t, ds, 2, 1)
	var off uint64
	withReaderPos(t, ck, func(pos []byte) []byte {
		off, _ = protowire.ConsumeVarint(pos)
		return pos
	})
	if off == 0 {
		t.Fatal("the checkpoint's position is the file's start")
	}
	resume := func(shift uint64) error {
		t.Helper()
		edited := withReaderPos(t, ck, func([]byte) []byte { return protowire.AppendVarint(nil, off+shift) })
		for _, err := range ds.Batches(t.Context(), 2, Resume(edited)) {
			if err != nil {
				return err
			}
		}
		return nil
	}
	if err := resume(0); err != nil {
		t.Fatalf("resumed at the saved position: %v", err)
	}
	for _, shift := range []uint64{1, 3, 12} {
		err := resume(shift)
		if err == nil || !errors.Is(err, ErrCheckpoint) || !strings.Contains(err.Error(), "has no record at offset") || errors.Is(err, tfrecord.ErrDataLoss) {
			t.Errorf("resumed %d bytes into a record: %v; want a checkpoint error naming the record across the position", shift, err)
		}
	}
	// Damage where the position is: a data error, as ever.
	f, err := os.OpenFile(name, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte{0xff}, int64(off)+9); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := resume(0); !errors.Is(err, tfrecord.ErrDataLoss) || errors.Is(err, ErrCheckpoint) {
		t.Errorf("damage at the saved position: %v; want a data error", err)
	}
}

// The records a checkpoint holds are read again at their offsets: one
// that a file rewritten with its size kept no longer has a record at is
// the checkpoint's fault too (audit 59: the error wrapped no
// ErrCheckpoint).
func TestResumeHeldRecordOfRewrittenFile(t *testing.T) {
	name := filepath.Join(t.TempDir(), "a.tfrecord")
	write := func(n, size int) {
		var recs [][]byte
		for i := range n {
			recs = append(recs, bytes.Repeat([]byte{byte(i)}, size))
		}
		writeTFRecords(t, name, recs...)
	}
	ds := Records(name, Deterministic(), Shuffle(5), Readers(1))
	for batches := 1; batches <= 9; batches++ {
		write(100, 20) // 100 × (16 + 20) bytes
		ck := checkpointAfter(t, ds, 4, batches)
		write(50, 56) // as many bytes, its records elsewhere
		_, err := ds.Iterator(t.Context(), 4, Resume(ck))
		if err != nil && !errors.Is(err, ErrCheckpoint) {
			t.Errorf("resume after %d batches, the file rewritten with its size kept: %v; want ErrCheckpoint", batches, err)
		}
	}
}

// A checkpoint that names a record in two places (a run holds one in one
// place) is refused: the two would share one buffer, which the first
// decoded hands back for reuse while the other still reads it (audit 59:
// a data race, and a sound record reported as damaged).
func TestResumeRefusesRecordHeldTwice(t *testing.T) {
	name := writeExamples(t, t.TempDir(), 1, 2000)[0]
	ds := Examples(name, testSpec, Deterministic(), Shuffle(64), Seed(1), Readers(1))
	var m map[string]any
	if err := json.Unmarshal(checkpointAfter(t, ds, 8, 1), &m); err != nil {
		t.Fatal(err)
	}
	if m["buffer"] == nil {
		t.Fatal("the checkpoint holds no shuffle buffer")
	}
	m["pending"] = m["buffer"]
	ck := resealed(t, m)
	if _, err := ds.Iterator(t.Context(), 8, Resume(ck)); !errors.Is(err, ErrCheckpoint) || !strings.Contains(err.Error(), "held twice") {
		t.Fatalf("resume from a checkpoint holding its buffer twice: %v; want ErrCheckpoint", err)
	}
}
