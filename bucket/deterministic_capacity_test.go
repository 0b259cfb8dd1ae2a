package bucket_test

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/sluiceml/sluice/bucket"
	"github.com/sluiceml/sluice/input"
	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tensor"
)

// A bucket whose queue holds fewer examples than its batch size
// (TensorFlow allows it: the mover's dequeue_many absorbs the examples as
// they arrive, Q-23). The same pipeline, deterministic or not, should
// deliver all its batches (before, a deterministic one waited for good:
// it has no mover, and the bucket was made no bigger for it).
func TestBucketCapacityBelowBatchSize(t *testing.T) {
	for _, det := range []bool{false, true} {
		t.Run(map[bool]string{false: "default", true: "Deterministic"}[det], func(t *testing.T) {
			opts := []input.PipelineOption{input.Seed(1)}
			if det {
				opts = append(opts, input.Deterministic())
			}
			p := input.NewPipeline(opts...)
			values := p.RangeInputProducer(16, input.NumEpochs(1), input.Shuffle(false))
			step := func(ctx context.Context) (int, queue.Element, error) {
				e, err := values.Dequeue(ctx)
				if err != nil {
					return 0, nil, err
				}
				v := int64(e[0].Int32s()[0])
				return int(v % 2), queue.Element{tensor.Scalar(v)}, nil
			}
			out := bucket.Bucket(p, step, []int{4}, 2, bucket.BucketCapacities(2, 2))
			ctx, cancel := context.WithTimeout(t.Context(), 3*time.Second)
			defer cancel()
			if err := p.Start(ctx); err != nil {
				t.Fatal(err)
			}
			defer p.Stop(context.Background())
			n := 0
			for {
				_, _, err := out.Next(ctx)
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatalf("after %d batches: %v", n, err)
				}
				n++
			}
			if n != 4 {
				t.Fatalf("%d batches, want 4", n)
			}
		})
	}
}

// A checkpoint saved after the consumer saw end of input resumes
// to end of input at once (not an error).
func TestCheckpointAfterEndOfInput(t *testing.T) {
	build := func(resume []byte) (*input.Pipeline, *bucket.Buckets) {
		opts := []input.PipelineOption{input.Seed(1), input.Deterministic()}
		if resume != nil {
			opts = append(opts, input.Resume(resume))
		}
		p := input.NewPipeline(opts...)
		values := p.RangeInputProducer(17, input.NumEpochs(2))
		step := func(ctx context.Context) (int, queue.Element, error) {
			e, err := values.Dequeue(ctx)
			if err != nil {
				return 0, nil, err
			}
			v := int64(e[0].Int32s()[0])
			return int(v % 3), queue.Element{tensor.Scalar(v)}, nil
		}
		return p, bucket.Bucket(p, step, []int{4}, 3, bucket.AllowSmallerFinalBatch(), bucket.Threads(2))
	}
	ctx := t.Context()
	for range 2 {
		p, out := build(nil)
		if err := p.Start(ctx); err != nil {
			t.Fatal(err)
		}
		n := 0
		for {
			_, _, err := out.Next(ctx)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			n++
		}
		ck, err := p.Checkpoint(ctx)
		if err != nil {
			t.Fatal(err)
		}
		p.Join(ctx)
		p2, out2 := build(ck)
		if err := p2.Start(ctx); err != nil {
			t.Fatal(err)
		}
		_, _, err = out2.Next(ctx)
		p2.Stop(ctx)
		if !errors.Is(err, io.EOF) {
			t.Fatalf("after %d batches and end of input: resumed Next: %v, want end of input", n, err)
		}
	}
}
