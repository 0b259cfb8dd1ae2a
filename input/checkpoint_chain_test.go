package input

import (
	"context"
	"testing"

	"github.com/sluiceml/sluice/internal/checkpointtest"
	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tensor"
)

// Two batching stages in a chain, the second's step taking the first's
// batches (enqueue_many), as TensorFlow's batch -> shuffle_batch
// (enqueue_many=True) graphs do, resume exactly at every cut: the
// upstream batches the downstream runner took are the replay's to make
// again, not the upstream stage's to drop (before, they were dropped
// twice, and a cut after the first batch lost four).
func TestCheckpointChainedStages(t *testing.T) {
	for _, tc := range []struct {
		name    string
		shuffle bool
	}{{"Batch->Batch", false}, {"Batch->ShuffleBatch", true}} {
		t.Run(tc.name, func(t *testing.T) {
			run := func(t *testing.T, resume []byte, take int) ([]string, []byte) {
				opts := []PipelineOption{Seed(7), Deterministic()}
				if resume != nil {
					opts = append(opts, Resume(resume))
				}
				p := NewPipeline(opts...)
				values := p.RangeInputProducer(40, NumEpochs(1))
				first := p.Batch(func(ctx context.Context) (queue.Element, error) {
					e, err := values.Dequeue(ctx)
					if err != nil {
						return nil, err
					}
					return queue.Element{tensor.Scalar(int64(e[0].Int32s()[0]))}, nil
				}, 4, AllowSmallerFinalBatch())
				up := func(ctx context.Context) (queue.Element, error) {
					b, err := first.Next(ctx)
					if err != nil {
						return nil, err
					}
					return b.Element(), nil
				}
				var out *Batches
				if tc.shuffle {
					out = p.ShuffleBatch(up, 3, EnqueueMany(), Capacity(10), MinAfterDequeue(4), AllowSmallerFinalBatch())
				} else {
					out = p.Batch(up, 3, EnqueueMany(), Capacity(10), AllowSmallerFinalBatch())
				}
				return checkpointtest.Take(t, p, take, func(ctx context.Context) (string, error) {
					b, err := out.Next(ctx)
					return render(b), err
				})
			}
			checkpointtest.Cuts(t, run)
		})
	}
}
