package bucket_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/sluiceml/sluice/bucket"
	"github.com/sluiceml/sluice/input"
	"github.com/sluiceml/sluice/internal/checkpointtest"
	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tensor"
)

// checkpointRun returns a checkpointtest.Run of a deterministic pipeline:
// a shuffled producer of 0..39 for two epochs, three threads taking from
// it, bucketed by build.
func checkpointRun(build func(p *input.Pipeline, next func(ctx context.Context) (int64, error)) func(ctx context.Context) (string, error)) checkpointtest.Run {
	return func(t *testing.T, resume []byte, take int) ([]string, []byte) {
		t.Helper()
		opts := []input.PipelineOption{input.Seed(3), input.Deterministic()}
		if resume != nil {
			opts = append(opts, input.Resume(resume))
		}
		p := input.NewPipeline(opts...)
		values := p.RangeInputProducer(40, input.NumEpochs(2))
		next := build(p, func(ctx context.Context) (int64, error) {
			if rand.IntN(8) == 0 {
				time.Sleep(time.Duration(rand.IntN(100)) * time.Microsecond)
			}
			e, err := values.Dequeue(ctx)
			if err != nil {
				return 0, err
			}
			return int64(e[0].Int32s()[0]), nil
		})
		return checkpointtest.Take(t, p, take, next)
	}
}

// A pipeline with a bucketing stage restored from a checkpoint taken
// after any batch delivers the batches of the uninterrupted run.
func TestCheckpointResumesExactly(t *testing.T) {
	t.Run("Bucket", func(t *testing.T) {
		checkpointtest.Cuts(t, checkpointRun(func(p *input.Pipeline, value func(ctx context.Context) (int64, error)) func(ctx context.Context) (string, error) {
			step := func(ctx context.Context) (int, queue.Element, error) {
				v, err := value(ctx)
				return int(v % 3), queue.Element{tensor.Scalar(v)}, err
			}
			out := bucket.Bucket(p, step, []int{3, 4, 5}, 3, bucket.Threads(3), bucket.AllowSmallerFinalBatch())
			return func(ctx context.Context) (string, error) {
				id, b, err := out.Next(ctx)
				if err != nil {
					return "", err
				}
				return fmt.Sprint(id, b.Component(0).Int64s()), nil
			}
		}))
	})
	t.Run("BySequenceLength", func(t *testing.T) {
		checkpointtest.Cuts(t, checkpointRun(func(p *input.Pipeline, value func(ctx context.Context) (int64, error)) func(ctx context.Context) (string, error) {
			step := func(ctx context.Context) (int, queue.Element, error) {
				v, err := value(ctx)
				n := int(v%7) + 1
				seq := make([]int64, n)
				for i := range seq {
					seq[i] = v
				}
				return n, queue.Element{tensor.New(seq, n)}, err
			}
			out := bucket.BySequenceLength(p, step, []int{3, 5}, []int{4, 3, 2}, bucket.Threads(2), bucket.DynamicPad(), bucket.AllowSmallerFinalBatch())
			return func(ctx context.Context) (string, error) {
				lengths, b, err := out.Next(ctx)
				if err != nil {
					return "", err
				}
				return fmt.Sprint(lengths, b.Component(0).Shape(), b.Component(0).Int64s()), nil
			}
		}))
	})
}

// A checkpoint of a bucketing stage is refused by a pipeline whose stage
// has other boundaries.
func TestCheckpointRefused(t *testing.T) {
	build := func(boundaries []int, opts ...input.PipelineOption) *input.Pipeline {
		p := input.NewPipeline(append([]input.PipelineOption{input.Seed(1), input.Deterministic()}, opts...)...)
		step := func(context.Context) (int, queue.Element, error) { return 0, nil, io.EOF }
		bucket.BySequenceLength(p, step, boundaries, []int{2})
		return p
	}
	ck, err := build([]int{3, 5}).Checkpoint(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	p := build([]int{3, 6}, input.Resume(ck))
	err = p.Start(t.Context())
	if err == nil {
		p.Stop(t.Context())
	}
	if !errors.Is(err, input.ErrCheckpoint) || !strings.Contains(err.Error(), "boundaries [3 5] in the checkpoint's pipeline, boundaries [3 6] in this one") {
		t.Fatalf("Start: %v, want input.ErrCheckpoint naming the boundaries", err)
	}
}
