package sluice

import (
	"errors"
	"os"
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
