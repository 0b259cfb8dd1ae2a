package input

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sluiceml/sluice/internal/checkpointtest"
	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/recordio"
	"github.com/sluiceml/sluice/storage"
	"github.com/sluiceml/sluice/storage/blobfs"
	"github.com/sluiceml/sluice/tensor"
	"github.com/sluiceml/sluice/tfrecord"
)

// writeCheckpointFiles writes n TFRecord files of 3 to 6 records; record
// i of file f holds the int64 1000f + i.
func writeCheckpointFiles(t *testing.T, n int) []string {
	t.Helper()
	dir := t.TempDir()
	var files []string
	for f := range n {
		name := filepath.Join(dir, fmt.Sprintf("part-%02d.tfrecord", f))
		out, err := os.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w := tfrecord.NewWriter(out)
		for i := range 3 + f%4 {
			if err := w.Write(binary.LittleEndian.AppendUint64(nil, uint64(1000*f+i))); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if err := out.Close(); err != nil {
			t.Fatal(err)
		}
		files = append(files, name)
	}
	return files
}

// fileReaders returns n steps, each a TFRecord reader of the file names
// in names, returning a record's number and the reader's index. One
// call in eight sleeps a while first, so that only the pipeline's
// determinism keeps two runs alike.
func fileReaders(names queue.Queue, n int) []Step {
	steps := make([]Step, n)
	for i := range steps {
		r := recordio.NewTFRecordReader(names, tfrecord.None)
		steps[i] = func(ctx context.Context) (queue.Element, error) {
			if rand.IntN(8) == 0 {
				time.Sleep(time.Duration(rand.IntN(100)) * time.Microsecond)
			}
			_, rec, err := r.Read(ctx)
			if err != nil {
				return nil, err
			}
			return queue.Element{tensor.Scalar(int64(binary.LittleEndian.Uint64(rec))), tensor.Scalar(int64(i))}, nil
		}
	}
	return steps
}

// render returns every value of a batch.
func render(b Batch) string {
	var s strings.Builder
	for i, c := range b.Element() {
		if i > 0 {
			s.WriteByte(' ')
		}
		fmt.Fprint(&s, c.Data())
	}
	return s.String()
}

// checkpointRun returns a checkpointtest.Run over files: a shuffled
// filename queue of two epochs read by three readers, batched by batch.
func checkpointRun(files []string, batch func(p *Pipeline, steps []Step) *Batches) checkpointtest.Run {
	return func(t *testing.T, resume []byte, take int) ([]string, []byte) {
		t.Helper()
		opts := []PipelineOption{Seed(5), Deterministic()}
		if resume != nil {
			opts = append(opts, Resume(resume))
		}
		p := NewPipeline(opts...)
		names := p.StringInputProducer(files, NumEpochs(2))
		out := batch(p, fileReaders(names, 3))
		return checkpointtest.Take(t, p, take, func(ctx context.Context) (string, error) {
			b, err := out.Next(ctx)
			return render(b), err
		})
	}
}

// A pipeline restored from a checkpoint taken after any batch — mid-file,
// mid-epoch, with the shuffle queue partly drawn, with a smaller final
// batch pending — delivers exactly the batches of the uninterrupted run,
// for every kind of batcher.
func TestCheckpointResumesExactly(t *testing.T) {
	files := writeCheckpointFiles(t, 6)
	keepOdd := func(s Step) KeepStep {
		return func(ctx context.Context) (queue.Element, tensor.Tensor, error) {
			e, err := s(ctx)
			if err != nil {
				return nil, tensor.Tensor{}, err
			}
			return e, tensor.Scalar(e[0].Int64s()[0]%2 == 1), nil
		}
	}
	for _, tc := range []struct {
		name  string
		batch func(p *Pipeline, steps []Step) *Batches
	}{
		{"Batch", func(p *Pipeline, steps []Step) *Batches {
			return p.Batch(steps[0], 4, Threads(2), AllowSmallerFinalBatch())
		}},
		{"BatchJoin", func(p *Pipeline, steps []Step) *Batches {
			return p.BatchJoin(steps, 5, AllowSmallerFinalBatch())
		}},
		{"ShuffleBatch", func(p *Pipeline, steps []Step) *Batches {
			return p.ShuffleBatch(steps[0], 4, Threads(2), Capacity(16), MinAfterDequeue(6), AllowSmallerFinalBatch())
		}},
		{"ShuffleBatchJoin", func(p *Pipeline, steps []Step) *Batches {
			return p.ShuffleBatchJoin(steps, 5, Capacity(20), MinAfterDequeue(8), AllowSmallerFinalBatch())
		}},
		{"ShuffleBatchJoin without a smaller final batch", func(p *Pipeline, steps []Step) *Batches {
			return p.ShuffleBatchJoin(steps, 5, Capacity(20), MinAfterDequeue(8))
		}},
		{"MaybeBatchJoin", func(p *Pipeline, steps []Step) *Batches {
			return p.MaybeBatchJoin([]KeepStep{keepOdd(steps[0]), keepOdd(steps[1]), keepOdd(steps[2])}, 3, AllowSmallerFinalBatch())
		}},
		{"MaybeShuffleBatch", func(p *Pipeline, steps []Step) *Batches {
			return p.MaybeShuffleBatch(keepOdd(steps[0]), 3, Capacity(12), MinAfterDequeue(4), AllowSmallerFinalBatch())
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkpointtest.Cuts(t, checkpointRun(files, tc.batch))
		})
	}
}

// A checkpoint records only positions: its size does not grow with the
// data's.
func TestCheckpointSize(t *testing.T) {
	files := writeCheckpointFiles(t, 6)
	run := checkpointRun(files, func(p *Pipeline, steps []Step) *Batches {
		return p.ShuffleBatchJoin(steps, 5, Capacity(20), MinAfterDequeue(8))
	})
	_, ck := run(t, nil, 4)
	if len(ck) > 2048 {
		t.Errorf("checkpoint of %d bytes: %s", len(ck), ck)
	}
	for _, want := range []string{`"batches":4`, `"seed":5`, files[0]} {
		if !strings.Contains(string(ck), want) {
			t.Errorf("checkpoint %s lacks %s", ck, want)
		}
	}
}

// A checkpoint that does not fit the pipeline restoring it is refused by
// Start, with an error naming what differs.
func TestCheckpointRefused(t *testing.T) {
	files := writeCheckpointFiles(t, 4)
	build := func(seed uint64, batchSize int, files []string, opts ...PipelineOption) *Pipeline {
		p := NewPipeline(append([]PipelineOption{Seed(seed), Deterministic()}, opts...)...)
		names := p.StringInputProducer(files, NumEpochs(1))
		p.BatchJoin(fileReaders(names, 2), batchSize)
		return p
	}
	ck, err := build(1, 3, files).Checkpoint(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	renamed := append([]string(nil), files...)
	renamed[2] = files[3]
	for _, tc := range []struct {
		name string
		p    *Pipeline
		err  error
		msg  string
	}{
		{"other seed", build(2, 3, files, Resume(ck)), ErrCheckpoint, "seed is 1, this pipeline's 2"},
		{"other batch size", build(1, 4, files, Resume(ck)), ErrCheckpoint, "batch size 3"},
		{"other files", build(1, 3, renamed, Resume(ck)), ErrCheckpoint, "name 3 was " + files[2]},
		{"not a checkpoint", build(1, 3, files, Resume([]byte(`{"format":"x"}`))), ErrCheckpoint, "not a checkpoint"},
		{"not deterministic", NewPipeline(Seed(1), Resume(ck)), ErrNotDeterministic, "needs Deterministic"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.p.Start(t.Context())
			if err == nil {
				tc.p.Stop(t.Context())
			}
			if !errors.Is(err, tc.err) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("Start: %v; want %v mentioning %q", err, tc.err, tc.msg)
			}
		})
	}
	t.Run("file changed", func(t *testing.T) {
		f, err := os.OpenFile(files[1], os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		w := tfrecord.NewWriter(f)
		w.Write([]byte("one more"))
		w.Close()
		f.Close()
		p := build(1, 3, files, Resume(ck))
		err = p.Start(t.Context())
		if !errors.Is(err, ErrCheckpoint) || !strings.Contains(err.Error(), files[1]) {
			t.Fatalf("Start: %v; want ErrCheckpoint naming %s", err, files[1])
		}
	})
	t.Run("no seed", func(t *testing.T) {
		p := NewPipeline(Deterministic())
		if _, err := p.Checkpoint(t.Context()); !errors.Is(err, ErrNotDeterministic) {
			t.Fatalf("Checkpoint: %v; want ErrNotDeterministic", err)
		}
	})
}

// Checkpoints work for object-store names as for local files: the files'
// sizes come from the store, and a file replaced by another is refused.
func TestCheckpointObjectStore(t *testing.T) {
	fsys := blobfs.New()
	blobfs.Register(fsys, "mem")
	t.Cleanup(func() {
		storage.Unregister("mem")
		fsys.Close()
	})
	var files []string
	for i, local := range writeCheckpointFiles(t, 4) {
		data, err := os.ReadFile(local)
		if err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("mem://checkpoints/part-%d.tfrecord", i)
		writeObject(t, name, data)
		files = append(files, name)
	}
	run := checkpointRun(files, func(p *Pipeline, steps []Step) *Batches {
		return p.ShuffleBatchJoin(steps, 4, Capacity(16), MinAfterDequeue(6), AllowSmallerFinalBatch())
	})
	checkpointtest.Cuts(t, run)

	_, ck := run(t, nil, 3)
	if !strings.Contains(string(ck), `"name":"mem://checkpoints/part-2.tfrecord","size":`) || strings.Contains(string(ck), `"size":-1`) {
		t.Fatalf("checkpoint without the objects' sizes: %s", ck)
	}
	writeObject(t, files[2], []byte("replaced"))
	p := NewPipeline(Seed(5), Deterministic(), Resume(ck))
	names := p.StringInputProducer(files, NumEpochs(2))
	p.ShuffleBatchJoin(fileReaders(names, 3), 4, Capacity(16), MinAfterDequeue(6), AllowSmallerFinalBatch())
	err := p.Start(t.Context())
	if err == nil {
		p.Stop(t.Context())
	}
	if !errors.Is(err, ErrCheckpoint) || !strings.Contains(err.Error(), files[2]) {
		t.Fatalf("Start after an object was replaced: %v, want ErrCheckpoint naming %s", err, files[2])
	}
}

func writeObject(t *testing.T, name string, data []byte) {
	t.Helper()
	w, err := storage.Create(t.Context(), name)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(data)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}
