package input

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tensor"
)

// runDeterministic builds the seed guide's shape of pipeline — a
// shuffled producer of "files", three readers sharing it, each reading a
// few "records" of a file per element — batched by the stage batch
// makes, and returns its batches, rendered. Readers sleep at random, so
// that without turns their order would change from run to run.
func runDeterministic(t *testing.T, batch func(p *Pipeline, steps []Step) *Batches) string {
	t.Helper()
	p := NewPipeline(Seed(11), Deterministic())
	files := p.RangeInputProducer(12, NumEpochs(2))
	steps := make([]Step, 3)
	for i := range steps {
		var file, record int64 = -1, 0
		steps[i] = func(ctx context.Context) (queue.Element, error) {
			time.Sleep(time.Duration(rand.IntN(200)) * time.Microsecond)
			if file < 0 || record == 3+file%4 {
				e, err := files.Dequeue(ctx)
				if err != nil {
					return nil, err
				}
				file, record = int64(e[0].Int32s()[0]), 0
			}
			record++
			return queue.Element{tensor.Scalar(100*file + record), tensor.Scalar(int64(i))}, nil
		}
	}
	out := batch(p, steps)
	if err := p.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	var s strings.Builder
	n := 0
	for b, err := range out.All(t.Context()) {
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintln(&s, b.Element()[0].Int64s(), b.Element()[1].Int64s())
		n += b.Len()
	}
	if err := p.Join(t.Context()); err != nil {
		t.Fatal(err)
	}
	// Files of 3 to 6 records, 12 files, 2 epochs.
	if want := 2 * (3*3 + 3*4 + 3*5 + 3*6); n != want {
		t.Fatalf("%d records, want %d", n, want)
	}
	return s.String()
}

// A Deterministic pipeline delivers the same batches on every run,
// whatever GOMAXPROCS and the timing of its readers, for each kind of
// batcher: readers sharing a filename queue, several threads of one step,
// shuffling or not.
func TestDeterministic(t *testing.T) {
	for _, tc := range []struct {
		name  string
		batch func(p *Pipeline, steps []Step) *Batches
	}{
		{"BatchJoin", func(p *Pipeline, steps []Step) *Batches {
			return p.BatchJoin(steps, 5, AllowSmallerFinalBatch())
		}},
		{"ShuffleBatchJoin", func(p *Pipeline, steps []Step) *Batches {
			return p.ShuffleBatchJoin(steps, 5, Capacity(30), MinAfterDequeue(10), AllowSmallerFinalBatch())
		}},
		{"Batch with threads", func(p *Pipeline, steps []Step) *Batches {
			return p.Batch(steps[0], 5, Threads(3), AllowSmallerFinalBatch())
		}},
		{"ShuffleBatch with threads", func(p *Pipeline, steps []Step) *Batches {
			return p.ShuffleBatch(steps[0], 5, Threads(3), Capacity(20), MinAfterDequeue(8), AllowSmallerFinalBatch())
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var runs []string
			for _, procs := range []int{1, 4, 2} {
				prev := runtime.GOMAXPROCS(procs)
				runs = append(runs, runDeterministic(t, tc.batch))
				runtime.GOMAXPROCS(prev)
			}
			for i, r := range runs[1:] {
				if r != runs[0] {
					t.Fatalf("run %d differs:\n%s\nrun 0:\n%s", i+1, r, runs[0])
				}
			}
		})
	}
}
