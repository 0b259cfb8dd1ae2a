package sluice

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sluiceml/sluice/example"
	"github.com/sluiceml/sluice/tensor"
	"github.com/sluiceml/sluice/tfrecord"
)

// writeRowExamples writes files of Examples whose features are all
// FixedLen numbers of 64 bytes a record or more on average, which reused
// batches parse record by record into their rows: record id has a label
// id, an image [4, 8] of id+j and, for even ids only, a "mask" of 16
// floats -id (odd ones take the spec's default).
func writeRowExamples(t testing.TB, dir string, files, perFile int) string {
	t.Helper()
	id := 0
	for i := range files {
		name := filepath.Join(dir, fmt.Sprintf("rows-%d.tfrecord", i))
		f, err := os.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w := tfrecord.NewWriter(f)
		for range perFile {
			img := make([]float32, 32)
			for j := range img {
				img[j] = float32(id + j)
			}
			b := example.New().Int64("label", int64(id)).Floats("image", img)
			if id%2 == 0 {
				mask := make([]float32, 16)
				for j := range mask {
					mask[j] = float32(-id)
				}
				b.Floats("mask", mask)
			}
			if err := w.Write(b.Marshal()); err != nil {
				t.Fatal(err)
			}
			id++
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "rows-*")
}

var rowSpec = example.Spec{
	"label": example.FixedLen(tensor.Int64),
	"image": example.FixedLen(tensor.Float32, 4, 8),
	"mask":  example.FixedLen(tensor.Float32, 16).WithDefault(tensor.Scalar(float32(0.5))),
}

// checkRowBatch checks every record of b against what writeRowExamples
// wrote for its label, and counts the labels in seen.
func checkRowBatch(t *testing.T, b *Batch, seen map[int64]int) {
	t.Helper()
	if s := b.Dense("image").Shape(); !s.Equal(tensor.Shape{b.Len(), 4, 8}) {
		t.Fatalf("image of shape %v in a batch of %d", s, b.Len())
	}
	img, mask := b.Float32("image"), b.Float32("mask")
	for i, id := range b.Int64("label") {
		seen[id]++
		for j, v := range img[32*i : 32*(i+1)] {
			if v != float32(id)+float32(j) {
				t.Fatalf("record %d: image[%d] = %v, want %v", id, j, v, float32(id)+float32(j))
			}
		}
		want := float32(0.5)
		if id%2 == 0 {
			want = float32(-id)
		}
		for j, v := range mask[16*i : 16*(i+1)] {
			if v != want {
				t.Fatalf("record %d: mask[%d] = %v, want %v", id, j, v, want)
			}
		}
	}
}

// Reused batches of Examples, which a spec of FixedLen numbers parses
// record by record into the batch before, hold what fresh ones
// (KeepBatches, a batch parse) hold, under every engine, short final
// batches and defaults of missing features included.
func TestExamplesReusedBatches(t *testing.T) {
	const files, perFile, epochs = 3, 50, 2
	pattern := writeRowExamples(t, t.TempDir(), files, perFile)
	tests := []struct {
		name string
		opts []ExampleOption
	}{
		{"one reader", []ExampleOption{Readers(1)}},
		{"two readers", []ExampleOption{Readers(2)}},
		{"shuffled", []ExampleOption{Readers(2), Shuffle(40), Seed(3)}},
		{"deterministic", []ExampleOption{Readers(2), Shuffle(40), Seed(3), Deterministic()}},
		{"global shuffle", []ExampleOption{GlobalShuffle(), Seed(3)}},
	}
	for _, tt := range tests {
		for _, keep := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/keep=%v", tt.name, keep), func(t *testing.T) {
				t.Setenv("SLUICE_INDEX_DIR", t.TempDir())
				ds := Examples(pattern, rowSpec, append(tt.opts, Epochs(epochs))...)
				readEachOnce(t, ds, 16, keep, checkRowBatch, files*perFile, epochs)
			})
		}
	}
}

// A malformed record among records parsed into rows fails its batch with
// an error naming the record, as a batch parse's does.
func TestExamplesReusedMalformed(t *testing.T) {
	dir := t.TempDir()
	pattern := writeRowExamples(t, dir, 1, 20)
	name := filepath.Join(dir, "rows-9.tfrecord")
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	w := tfrecord.NewWriter(f)
	// A label of the wrong type.
	if err := w.Write(example.New().Float("label", 1).Floats("image", make([]float32, 32)).Marshal()); err != nil {
		t.Fatal(err)
	}
	w.Close()
	f.Close()
	for _, keep := range []bool{false, true} {
		var bopts []BatchOption
		if keep {
			bopts = append(bopts, KeepBatches())
		}
		var got error
		for _, err := range Examples(pattern, rowSpec, Readers(1)).Batches(t.Context(), 8, bopts...) {
			if err != nil {
				got = err
				break
			}
		}
		if got == nil || !strings.Contains(got.Error(), "rows-9.tfrecord") {
			t.Errorf("keep=%v: error %v, want one naming rows-9.tfrecord", keep, got)
		}
	}
}
