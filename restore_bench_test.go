package sluice

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/sluiceml/sluice/input"
)

// restoreAfter is where BenchmarkRestore's checkpoints are saved: 200
// batches of 128, half of the first epoch of the MNIST benchmark's files.
const restoreAfter = 200

// BenchmarkRestore measures the time from building a pipeline to its
// first batch, started afresh ("fresh": a shuffle buffer of 10 000 to
// fill) and restored from a checkpoint saved after 200 batches
// ("restore"), for the front door's deterministic engine (which re-reads
// the records its buffer held, by position) and for input's deterministic
// pipeline (the seed guide's graph in its allocation-free idiom, which
// replays the 200 batches). The checkpoint's size is reported as
// ckpt-bytes.
func BenchmarkRestore(b *testing.B) {
	dir, files, _ := writeMNIST(b)
	frontDoor := func() *Dataset {
		return Examples(filepath.Join(dir, "*.tfrecord"), benchMNISTSpec, Deterministic(), Shuffle(10000), Seed(42), Epochs(2))
	}
	firstBatch := func(b *testing.B, opts ...BatchOption) {
		it, err := frontDoor().Iterator(b.Context(), benchBatch, opts...)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := it.Next(); err != nil {
			b.Fatal(err)
		}
		it.Close()
	}
	b.Run("deterministic-shuffle10000/fresh", func(b *testing.B) {
		for b.Loop() {
			firstBatch(b)
		}
	})
	b.Run("deterministic-shuffle10000/restore", func(b *testing.B) {
		it, err := frontDoor().Iterator(b.Context(), benchBatch)
		if err != nil {
			b.Fatal(err)
		}
		for range restoreAfter {
			if _, err := it.Next(); err != nil {
				b.Fatal(err)
			}
		}
		ck, err := it.Checkpoint()
		it.Close()
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			firstBatch(b, Resume(ck))
		}
		b.ReportMetric(float64(len(ck)), "ckpt-bytes")
	})

	seed := func(ctx context.Context, take int, opts ...input.PipelineOption) ([]byte, error) {
		p := input.NewPipeline(append([]input.PipelineOption{input.Seed(42), input.Deterministic()}, opts...)...)
		batches := seedStages(p, files, 2, true)
		if err := p.Start(ctx); err != nil {
			return nil, err
		}
		defer p.Stop(ctx)
		var b input.Batch
		for range take {
			var err error
			if b, err = batches.NextInto(ctx, b); err != nil {
				return nil, err
			}
		}
		return p.Checkpoint(ctx)
	}
	b.Run("seedpipeline-deterministic/fresh", func(b *testing.B) {
		for b.Loop() {
			if _, err := seed(b.Context(), 1); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("seedpipeline-deterministic/restore", func(b *testing.B) {
		ck, err := seed(b.Context(), restoreAfter)
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if _, err := seed(b.Context(), 1, input.Resume(ck)); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(len(ck)), "ckpt-bytes")
	})
}
