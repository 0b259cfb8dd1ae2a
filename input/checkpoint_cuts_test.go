package input

import (
	"context"
	"testing"

	"github.com/sluiceml/sluice/internal/checkpointtest"
	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tensor"
)

// More batcher configurations resume exactly at every cut (checkpointtest.Cuts).
func TestCheckpointCutsMoreBatchers(t *testing.T) {
	files := writeCheckpointFiles(t, 5)
	seqStep := func(s Step) Step { // variable-length vectors for DynamicPad
		return func(ctx context.Context) (queue.Element, error) {
			e, err := s(ctx)
			if err != nil {
				return nil, err
			}
			v := e[0].Int64s()[0]
			n := int(v%4) + 1
			xs := make([]int64, n)
			for i := range xs {
				xs[i] = v
			}
			return queue.Element{tensor.New(xs, n), e[1]}, nil
		}
	}
	manyStep := func(s Step) Step { // batches of 2 for EnqueueMany
		return func(ctx context.Context) (queue.Element, error) {
			e, err := s(ctx)
			if err != nil {
				return nil, err
			}
			v := e[0].Int64s()[0]
			return queue.Element{tensor.New([]int64{v, -v}, 2)}, nil
		}
	}
	keepVec := func(s Step) KeepStep {
		return func(ctx context.Context) (queue.Element, tensor.Tensor, error) {
			e, err := s(ctx)
			if err != nil {
				return nil, tensor.Tensor{}, err
			}
			v := e[0].Int64s()[0]
			return queue.Element{tensor.New([]int64{v, -v, v + 1}, 3)}, tensor.New([]bool{v%2 == 0, true, v%3 == 0}, 3), nil
		}
	}
	for _, tc := range []struct {
		name  string
		batch func(p *Pipeline, steps []Step) *Batches
	}{
		{"Batch DynamicPad Threads3", func(p *Pipeline, steps []Step) *Batches {
			return p.Batch(seqStep(steps[0]), 3, Threads(3), DynamicPad(), AllowSmallerFinalBatch())
		}},
		{"BatchJoin DynamicPad no smaller", func(p *Pipeline, steps []Step) *Batches {
			return p.BatchJoin([]Step{seqStep(steps[0]), seqStep(steps[1]), seqStep(steps[2])}, 4, DynamicPad(), Capacity(5))
		}},
		{"ShuffleBatch EnqueueMany", func(p *Pipeline, steps []Step) *Batches {
			return p.ShuffleBatch(manyStep(steps[0]), 3, EnqueueMany(), Threads(2), Capacity(9), MinAfterDequeue(3), AllowSmallerFinalBatch())
		}},
		{"ShuffleBatchJoin seed small cap", func(p *Pipeline, steps []Step) *Batches {
			return p.ShuffleBatchJoin(steps, 2, Capacity(3), MinAfterDequeue(1), Seed(99))
		}},
		{"MaybeBatch vector keep", func(p *Pipeline, steps []Step) *Batches {
			return p.MaybeBatch(keepVec(steps[0]), 4, EnqueueMany(), Threads(2), AllowSmallerFinalBatch())
		}},
		{"MaybeShuffleBatchJoin vector keep", func(p *Pipeline, steps []Step) *Batches {
			return p.MaybeShuffleBatchJoin([]KeepStep{keepVec(steps[0]), keepVec(steps[1])}, 4, EnqueueMany(), Capacity(7), MinAfterDequeue(2), AllowSmallerFinalBatch())
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkpointtest.Cuts(t, checkpointRun(files, tc.batch))
		})
	}
}
