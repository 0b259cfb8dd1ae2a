package input

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/sluiceml/sluice/internal/checkpointtest"
	"github.com/sluiceml/sluice/internal/sealed"
)

// sealRun builds the pipeline of the seal's tests: a shuffled filename
// queue of two epochs read by three readers into a shuffle_batch_join.
func sealRun(files []string, opts ...PipelineOption) (*Pipeline, *Batches) {
	p := NewPipeline(append([]PipelineOption{Seed(5), Deterministic()}, opts...)...)
	names := p.StringInputProducer(files, NumEpochs(2))
	return p, p.ShuffleBatchJoin(fileReaders(names, 3), 5, Capacity(20), MinAfterDequeue(8), AllowSmallerFinalBatch())
}

// resumeAll starts the pipeline resumed from ck and returns every batch
// it delivers, or the error that refused or ended it.
func resumeAll(t *testing.T, files []string, ck []byte) ([]string, error) {
	p, out := sealRun(files, Resume(ck))
	ctx := t.Context()
	if err := p.Start(ctx); err != nil {
		return nil, err
	}
	defer p.Stop(ctx)
	var got []string
	for {
		b, err := out.Next(ctx)
		if errors.Is(err, io.EOF) {
			return got, p.Join(ctx)
		}
		if err != nil {
			return got, err
		}
		got = append(got, render(b))
	}
}

// Every bit of a checkpoint flipped in turn: Start refuses it with
// ErrCheckpoint, or the run delivers exactly the batches of the
// checkpoint's own resume. Before checkpoints were sealed (version 2),
// flips in the letters or digits of "batches" replayed from elsewhere
// (audit 95: 50 of 5568).
func TestCheckpointEveryBitFlip(t *testing.T) {
	files := writeCheckpointFiles(t, 5)
	p, out := sealRun(files)
	_, ck := checkpointtest.Take(t, p, 3, func(ctx context.Context) (string, error) {
		b, err := out.Next(ctx)
		return render(b), err
	})
	want, err := resumeAll(t, files, ck)
	if err != nil || len(want) == 0 {
		t.Fatalf("resumed: %d batches, %v", len(want), err)
	}
	step := 1
	if testing.Short() || raceEnabled {
		step = 7 // a prime, so that every bit of a byte is met
	}
	refused := 0
	for i := 0; i < len(ck)*8; i += step {
		c := slices.Clone(ck)
		c[i/8] ^= 1 << (i % 8)
		got, err := resumeAll(t, files, c)
		switch {
		case err != nil && len(got) == 0:
			refused++
			if !errors.Is(err, ErrCheckpoint) {
				t.Errorf("bit %d: refused with %v, which does not wrap ErrCheckpoint", i, err)
			}
		case err != nil || !slices.Equal(got, want):
			t.Errorf("bit %d (%q for %q): resumed to %q, %v; want %q",
				i, c[max(0, i/8-8):min(len(c), i/8+8)], ck[max(0, i/8-8):min(len(c), i/8+8)], got, err, want)
		}
	}
	if refused == 0 {
		t.Fatal("no flip was refused")
	}
}

// A version 2 checkpoint without its checksum is damaged; one of version
// 1, saved before checkpoints were sealed, restores as it did. A crafted
// one (sealed again after an edit) that lists fewer files than its stage
// hands out is refused: the sizes of the others would go unchecked (audit
// 95).
func TestCheckpointSealVersions(t *testing.T) {
	files := writeCheckpointFiles(t, 4)
	p, out := sealRun(files)
	_, ck := checkpointtest.Take(t, p, 2, func(ctx context.Context) (string, error) {
		b, err := out.Next(ctx)
		return render(b), err
	})
	want, err := resumeAll(t, files, ck)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(ck, &m); err != nil {
		t.Fatal(err)
	}
	if m["version"] != float64(2) || m["crc32c"] == nil {
		t.Fatalf("a new checkpoint is version %v, crc32c %v: want 2, sealed", m["version"], m["crc32c"])
	}
	delete(m, "crc32c")
	unsealed, _ := json.Marshal(m)
	if _, err := resumeAll(t, files, unsealed); !errors.Is(err, ErrCheckpoint) || !errors.Is(err, sealed.ErrDamaged) {
		t.Errorf("version 2 without its checksum: %v, want ErrCheckpoint and damaged", err)
	}
	m["version"] = 1
	old, _ := json.Marshal(m)
	if got, err := resumeAll(t, files, old); err != nil || !slices.Equal(got, want) {
		t.Errorf("version 1, unsealed: %q, %v; want %q", got, err, want)
	}

	var ckv checkpoint
	if err := json.Unmarshal(ck, &ckv); err != nil {
		t.Fatal(err)
	}
	ckv.Stages[0].Files = ckv.Stages[0].Files[:2]
	short, err := sealed.Marshal(ckv)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := resumeAll(t, files, short); !errors.Is(err, ErrCheckpoint) || !strings.Contains(err.Error(), "lists 2 files of its 4") {
		t.Errorf("a checkpoint listing 2 of 4 files: %v, want ErrCheckpoint saying so", err)
	}
}
