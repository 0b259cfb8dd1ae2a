package sluice

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"

	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tensor"
)

// ackingFIFO is a FIFO filename queue that records the units read to
// their end, as a shared queue (natsqueue) hears them.
type ackingFIFO struct {
	queue.Queue
	mu   sync.Mutex
	done []string
}

func (q *ackingFIFO) WorkDone(_ context.Context, unit string) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.done = append(q.done, unit)
	return nil
}

// Two data sets taking files from one queue read disjoint records, every
// record once between them, and each file is acknowledged once it has
// been read to its end.
func TestFilenameQueueShared(t *testing.T) {
	dir := t.TempDir()
	files := writeExamples(t, dir, 6, 25)
	fifo, err := queue.NewFIFO(len(files), []tensor.DType{tensor.String})
	if err != nil {
		t.Fatal(err)
	}
	q := &ackingFIFO{Queue: fifo}
	ctx := t.Context()
	for _, f := range files {
		if err := q.Enqueue(ctx, queue.Element{tensor.StringScalar(f)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := q.Close(ctx); err != nil {
		t.Fatal(err)
	}
	labels := make([][]int64, 2)
	var wg sync.WaitGroup
	for w := range labels {
		wg.Go(func() {
			ds := Examples("", testSpec, FilenameQueue(q), Readers(2), Shuffle(10), Seed(uint64(w)))
			for b, err := range ds.Batches(ctx, 7) {
				if err != nil {
					t.Error(err)
					return
				}
				labels[w] = append(labels[w], b.Int64("label")...)
			}
		})
	}
	wg.Wait()
	count := make([]int, 6*25)
	for _, ls := range labels {
		for _, l := range ls {
			count[l]++
		}
	}
	for l, c := range count {
		if c != 1 {
			t.Fatalf("label %d read %d times by the two data sets, want once", l, c)
		}
	}
	if len(q.done) != len(files) {
		t.Errorf("%d files acknowledged, want %d: %v", len(q.done), len(files), q.done)
	}
}

// The queue's producer decides the files and the epochs: options that
// would decide them too are errors.
func TestFilenameQueueConflicts(t *testing.T) {
	dir := t.TempDir()
	writeExamples(t, dir, 1, 3)
	q, err := queue.NewFIFO(1, []tensor.DType{tensor.String})
	if err != nil {
		t.Fatal(err)
	}
	ints, err := queue.NewFIFO(1, []tensor.DType{tensor.Int64})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		opts []ExampleOption
	}{
		{"Epochs", []ExampleOption{FilenameQueue(q), Epochs(2)}},
		{"Forever", []ExampleOption{FilenameQueue(q), Forever()}},
		{"ShuffleFiles", []ExampleOption{FilenameQueue(q), ShuffleFiles()}},
		{"Shard", []ExampleOption{FilenameQueue(q), Shard(0, 2)}},
		{"Deterministic", []ExampleOption{FilenameQueue(q), Deterministic()}},
		{"GlobalShuffle", []ExampleOption{FilenameQueue(q), GlobalShuffle()}},
		{"int64 queue", []ExampleOption{FilenameQueue(ints)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Examples(filepath.Join(dir, "*"), testSpec, tc.opts...).Iterator(t.Context(), 2)
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("got %v, want ErrInvalid", err)
			}
		})
	}
}
