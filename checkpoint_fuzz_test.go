package sluice

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/sluiceml/sluice/tfrecord"
)

// A checkpoint is input from outside (a file beside a model): whatever
// its bytes, Resume fails with an error or resumes, and the iteration then
// ends; it never panics or hangs, and allocates no more than its records
// warrant. The files are sound: an error blames the checkpoint, never
// them (audit 59: a record held twice was reported as damaged).
func FuzzResume(f *testing.F) {
	dir := f.TempDir()
	writeExamples(f, dir, 3, 20, tfrecord.None, tfrecord.Gzip)
	ds := Examples(filepath.Join(dir, "train-*"), testSpec, Deterministic(), Shuffle(15), Seed(1), Readers(2))
	addCheckpoints(f, ds)
	f.Add([]byte(`{"format":"sluice.checkpoint","version":1}`))
	f.Fuzz(func(t *testing.T, ck []byte) {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		it, err := ds.Iterator(ctx, 4, Resume(ck))
		if err != nil {
			return
		}
		defer it.Close()
		for range 1000 {
			if _, err := it.Next(); err != nil {
				if errors.Is(err, context.DeadlineExceeded) {
					t.Fatal("a resumed iteration did not end")
				}
				if errors.Is(err, tfrecord.ErrDataLoss) {
					t.Fatalf("a sound file blamed: %v", err)
				}
				return
			}
		}
		if _, err := it.Next(); err != io.EOF {
			t.Fatalf("more than 1000 batches of 4 from 60 records: %v", err)
		}
	})
}

// FuzzResumeGlobal is FuzzResume for an endless global shuffle, whose
// checkpoint is a position in an order computed from it rather than
// records to read again: whatever its bytes, Resume fails, or the
// iteration delivers batches at once.
func FuzzResumeGlobal(f *testing.F) {
	f.Setenv("SLUICE_INDEX_DIR", f.TempDir())
	dir := f.TempDir()
	writeExamples(f, dir, 2, 10, tfrecord.None)
	ds := Examples(filepath.Join(dir, "train-*"), testSpec, GlobalShuffle(), Forever(), Seed(1), Readers(2))
	addCheckpoints(f, ds)
	f.Fuzz(func(t *testing.T, ck []byte) {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		it, err := ds.Iterator(ctx, 4, Resume(ck))
		if err != nil {
			return
		}
		defer it.Close()
		for range 3 {
			if _, err := it.Next(); err != nil {
				t.Fatalf("a resumed endless iteration: %v", err)
			}
		}
	})
}

// addCheckpoints seeds f with checkpoints of ds's iterations of batches
// of 4, at the start and after 3 batches, each also as version 2, not
// sealed: the fuzzer's changes to a sealed one are refused by the seal,
// where those to a version 2 one reach the checks past it.
func addCheckpoints(f *testing.F, ds *Dataset) {
	for _, cut := range []int{0, 3} {
		it, err := ds.Iterator(context.Background(), 4)
		if err != nil {
			f.Fatal(err)
		}
		for range cut {
			it.Next()
		}
		ck, err := it.Checkpoint()
		it.Close()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(ck)
		f.Add(unsealed(f, ck))
	}
}

// unsealed returns checkpoint ck as version 2 wrote it: without its
// checksum.
func unsealed(f *testing.F, ck []byte) []byte {
	var c checkpoint
	if err := json.Unmarshal(ck, &c); err != nil {
		f.Fatal(err)
	}
	c.Version = 2
	b, err := json.Marshal(c)
	if err != nil {
		f.Fatal(err)
	}
	return b
}
