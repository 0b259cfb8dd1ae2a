package sluice

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sluiceml/sluice/internal/sealed"
	"github.com/sluiceml/sluice/tfrecord"
)

// resealed returns the checkpoint that m, a checkpoint decoded as a map and
// edited, encodes: sealed again, as a checkpoint crafted to test a check
// past the seal's would be.
func resealed(t *testing.T, m any) []byte {
	t.Helper()
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var ck checkpoint
	if err := json.Unmarshal(b, &ck); err != nil {
		t.Fatal(err)
	}
	if b, err = sealed.Marshal(ck); err != nil {
		t.Fatal(err)
	}
	return b
}

// resumedAll returns the labels and batch sizes of the batches of 4 that ds
// delivers resumed from ck, and the error that ended them, if any.
func resumedAll(t *testing.T, ds *Dataset, ck []byte) (labels []int64, sizes []int, err error) {
	for b, err := range ds.Batches(t.Context(), 4, Resume(ck)) {
		if err != nil {
			return labels, sizes, err
		}
		labels = append(labels, b.Int64("label")...)
		sizes = append(sizes, b.Len())
	}
	return labels, sizes, nil
}

// Every bit of a checkpoint flipped in turn: the resume is refused, or it
// delivers exactly the batches the checkpoint's own resume does. Before
// checkpoints were sealed (version 3) about one flip in twenty resumed
// somewhere else: a digit of a count, a byte of a position or of the
// generator's state.
func TestCheckpointEveryBitFlip(t *testing.T) {
	dir := t.TempDir()
	writeExamples(t, dir, 3, 10, tfrecord.None, tfrecord.Gzip)
	ds := Examples(filepath.Join(dir, "train-*"), testSpec, Deterministic(), Shuffle(7), ShuffleFiles(), Seed(3), Readers(2))
	ck := checkpointAfter(t, ds, 4, 2)
	wantLabels, wantSizes, err := resumedAll(t, ds, ck)
	if err != nil || len(wantLabels) != 30-8 {
		t.Fatalf("resumed %d labels, %v; want 22", len(wantLabels), err)
	}
	step := 1
	if testing.Short() || raceEnabled {
		step = 7 // a prime, so that every bit of a byte is met
	}
	refused := 0
	for i := 0; i < len(ck)*8; i += step {
		c := slices.Clone(ck)
		c[i/8] ^= 1 << (i % 8)
		labels, sizes, err := resumedAll(t, ds, c)
		switch {
		case err != nil && len(labels) == 0:
			refused++
			if !errors.Is(err, ErrCheckpoint) {
				t.Errorf("bit %d: refused with %v, which does not wrap ErrCheckpoint", i, err)
			}
		case err != nil || !slices.Equal(labels, wantLabels) || !slices.Equal(sizes, wantSizes):
			t.Errorf("bit %d (%q for %q): resumed to labels %v in %v, %v; want %v in %v",
				i, c[max(0, i/8-8):min(len(c), i/8+8)], ck[max(0, i/8-8):min(len(c), i/8+8)], labels, sizes, err, wantLabels, wantSizes)
		}
	}
	if refused == 0 {
		t.Fatal("no flip was refused")
	}
}

// A checkpoint of version 3 without its checksum is damaged (a flip in the
// checksum's name); one of version 2 or 1, saved before checkpoints were
// sealed, restores as it did.
func TestCheckpointSealVersions(t *testing.T) {
	dir := t.TempDir()
	writeExamples(t, dir, 2, 10, tfrecord.None)
	ds := Examples(filepath.Join(dir, "train-*"), testSpec, Deterministic(), Shuffle(5), Seed(3))
	ck := checkpointAfter(t, ds, 4, 1)
	want, _, err := resumedAll(t, ds, ck)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(ck, &m); err != nil {
		t.Fatal(err)
	}
	if m["version"] != float64(3) || m["crc32c"] == nil {
		t.Fatalf("a new checkpoint is version %v, crc32c %v: want 3, sealed", m["version"], m["crc32c"])
	}
	delete(m, "crc32c")
	unsealed, _ := json.Marshal(m)
	if _, _, err := resumedAll(t, ds, unsealed); !errors.Is(err, ErrCheckpoint) || !errors.Is(err, sealed.ErrDamaged) || !strings.Contains(err.Error(), "crc32c") {
		t.Errorf("version 3 without its checksum: %v, want ErrCheckpoint and damaged", err)
	}
	for _, v := range []int{1, 2} {
		m["version"] = v
		old, _ := json.Marshal(m)
		if got, _, err := resumedAll(t, ds, old); err != nil || !slices.Equal(got, want) {
			t.Errorf("version %d, unsealed: %v, %v; want %v", v, got, err, want)
		}
	}
	// Two flips, one in the checksum's name and one in the version, would
	// make a version 3 checkpoint one of version 2, read unchecked: its
	// member of another name is damage (audit 97).
	m["version"], m["crc32s"] = 2, 12345
	downgraded, _ := json.Marshal(m)
	if _, _, err := resumedAll(t, ds, downgraded); !errors.Is(err, ErrCheckpoint) || !errors.Is(err, sealed.ErrDamaged) {
		t.Errorf("version 2 with a crc32s member: %v, want ErrCheckpoint and damaged", err)
	}
}
