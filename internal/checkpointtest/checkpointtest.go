// Package checkpointtest checks that a pipeline stage resumes exactly: a
// run restored from a checkpoint taken after any batch delivers the
// batches an uninterrupted run delivers after it, bit for bit. The stage
// packages' tests share it.
package checkpointtest

import (
	"context"
	"errors"
	"io"
	"slices"
	"testing"
)

// A Pipeline is what Take runs: an *input.Pipeline. (The interface keeps
// this package from importing input, whose own tests use it.)
type Pipeline interface {
	Start(ctx context.Context) error
	Join(ctx context.Context) error
	Stop(ctx context.Context) error
	Checkpoint(ctx context.Context) ([]byte, error)
}

// A Run builds and starts a fresh pipeline, restored from resume when it
// is not nil, and takes its batches, each rendered as a string that
// holds every value of the batch. With take < 0 it takes every batch to
// end of input and returns no checkpoint; otherwise it takes take batches,
// returns them with a checkpoint saved after the last, and stops the
// pipeline.
type Run func(t *testing.T, resume []byte, take int) (batches []string, checkpoint []byte)

// Cuts checks every cut point of the run: for each k from 0 to the number
// of batches, a run stopped after k batches and a second run restored
// from its checkpoint together deliver the uninterrupted run's batches.
// It returns the uninterrupted run's batches.
func Cuts(t *testing.T, run Run) []string {
	t.Helper()
	want, _ := run(t, nil, -1)
	if len(want) < 3 {
		t.Fatalf("the run delivers %d batches; a test of cut points needs more", len(want))
	}
	if again, _ := run(t, nil, -1); !slices.Equal(again, want) {
		t.Fatalf("two uninterrupted runs differ: the pipeline is not deterministic\n%q\n%q", again, want)
	}
	for k := 0; k <= len(want); k++ {
		head, ck := run(t, nil, k)
		if !slices.Equal(head, want[:k]) {
			t.Fatalf("cut after %d: the run delivered %q before its checkpoint, want %q", k, head, want[:k])
		}
		tail, _ := run(t, ck, -1)
		if !slices.Equal(tail, want[k:]) {
			t.Fatalf("cut after %d: the restored run delivered\n%q\nwant\n%q", k, tail, want[k:])
		}
		// A checkpoint of a restored run before its first batch is the
		// checkpoint it was restored from, in effect: a second restore
		// continues at the same place. (Once: it costs two more runs.)
		if k == len(want)/2 {
			_, ck2 := run(t, ck, 0)
			tail2, _ := run(t, ck2, -1)
			if !slices.Equal(tail2, want[k:]) {
				t.Fatalf("cut after %d, saved again before the first batch: the run delivered\n%q\nwant\n%q", k, tail2, want[k:])
			}
		}
	}
	return want
}

// Take is the body of most Runs: it starts p and takes its batches with
// next, which renders each; with take < 0 it takes them all, joins p and
// returns no checkpoint, otherwise it takes take batches, saves a
// checkpoint and stops p.
func Take(t *testing.T, p Pipeline, take int, next func(ctx context.Context) (string, error)) ([]string, []byte) {
	t.Helper()
	ctx := t.Context()
	if err := p.Start(ctx); err != nil {
		t.Fatal(err)
	}
	var got []string
	for take < 0 || len(got) < take {
		b, err := next(ctx)
		if errors.Is(err, io.EOF) && take < 0 {
			break
		}
		if err != nil {
			p.Stop(ctx)
			t.Fatalf("batch %d: %v", len(got), err)
		}
		got = append(got, b)
	}
	if take < 0 {
		if err := p.Join(ctx); err != nil {
			t.Fatal(err)
		}
		return got, nil
	}
	ck, err := p.Checkpoint(ctx)
	if err != nil {
		p.Stop(ctx)
		t.Fatal(err)
	}
	if err := p.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	return got, ck
}
