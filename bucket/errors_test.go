package bucket_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/sluiceml/sluice/bucket"
	"github.com/sluiceml/sluice/input"
	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tensor"
)

func scalarStep(id int) bucket.Step {
	return counter(10, func(v int) (int, queue.Element) { return id, queue.Element{tensor.Scalar(int64(v))} })
}

// BK-02, BSL-04 and Go's own argument checks: build errors, with
// TensorFlow's messages where it has them, returned by Start (which then
// starts nothing) and by Next.
func TestBuildErrors(t *testing.T) {
	lengthStep := lengthCounter(10, func(v int) (int, queue.Element) { return v, queue.Element{tensor.Scalar(int64(v))} })
	for _, tc := range []struct {
		name  string
		build func(p *input.Pipeline) func(context.Context) error
		want  string
	}{
		{"BK-02 batch sizes", bucketBuild(scalarStep(0), []int{1, 2}, 3),
			"If batch_size is a list it must have num_buckets elements"},
		{"BK-02 no batch sizes", bucketBuild(scalarStep(0), nil, 2),
			"If batch_size is a list it must have num_buckets elements"},
		{"BK-02 bucket capacities", bucketBuild(scalarStep(0), []int{1}, 3, bucket.BucketCapacities(4, 5)),
			"The list bucket_capacities ([4, 5]) must have exactly num_buckets (3) elements."},
		{"no buckets", bucketBuild(scalarStep(0), []int{1}, 0), "num_buckets must be positive, not 0"},
		// A count no use needs is refused before anything is sized by it
		// (2^40 ended the process, audit 114).
		{"2^40 buckets", bucketBuild(scalarStep(0), []int{1}, 1<<40), "num_buckets 1099511627776 is more than 1048576"},
		{"batch size", bucketBuild(scalarStep(0), []int{4, 0}, 2), "batch_size must be positive, not 0"},
		{"capacity", bucketBuild(scalarStep(0), []int{1}, 1, bucket.Capacity(0)), "capacity must be positive, not 0"},
		{"bucket capacity", bucketBuild(scalarStep(0), []int{1}, 2, bucket.BucketCapacities(1, -1)),
			"bucket capacities must be positive, not -1"},
		{"threads", bucketBuild(scalarStep(0), []int{1}, 1, bucket.Threads(0)), "num_threads must be positive, not 0"},
		{"no step", bucketBuild(nil, []int{1}, 1), `bucket: stage "bucket": no step`},
		{"BSL-04 empty", lengthBuild(lengthStep, nil, []int{1}), "bucket_boundaries must not be empty"},
		{"BSL-04 equal", lengthBuild(lengthStep, []int{1, 5, 5}, []int{1}),
			"Buckets must contain sequential increasing lengths, but saw: 5 before 5"},
		{"BSL-04 decreasing", lengthBuild(lengthStep, []int{3, 2}, []int{1}),
			"Buckets must contain sequential increasing lengths, but saw: 3 before 2"},
		// TensorFlow checks the boundaries before bucket's arguments.
		{"BSL-04 first", lengthBuild(lengthStep, []int{3, 2}, []int{1, 2}),
			"Buckets must contain sequential increasing lengths, but saw: 3 before 2"},
		{"BSL batch sizes", lengthBuild(lengthStep, []int{3, 4}, []int{1, 2}),
			"If batch_size is a list it must have num_buckets elements"},
		{"BSL bucket capacities", lengthBuild(lengthStep, []int{3}, []int{1}, bucket.BucketCapacities(1, 2, 3)),
			"The list bucket_capacities ([1, 2, 3]) must have exactly num_buckets (2) elements."},
		{"BSL no step", lengthBuild(nil, []int{3}, []int{1}), `bucket: stage "bucket_by_sequence_length/bucket": no step`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := input.NewPipeline()
			next := tc.build(p)
			err := p.Start(t.Context())
			if err == nil {
				p.Stop(t.Context())
				t.Fatalf("Start succeeded, want %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) || !errors.Is(err, queue.ErrInvalidArgument) {
				t.Errorf("Start: %v, want %q wrapping queue.ErrInvalidArgument", err, tc.want)
			}
			if nerr := next(t.Context()); !errors.Is(nerr, queue.ErrInvalidArgument) {
				t.Errorf("Next: %v, want the build error", nerr)
			}
		})
	}
}

func bucketBuild(step bucket.Step, sizes []int, n int, opts ...bucket.Option) func(*input.Pipeline) func(context.Context) error {
	return func(p *input.Pipeline) func(context.Context) error {
		b := bucket.Bucket(p, step, sizes, n, opts...)
		return func(ctx context.Context) error { _, _, err := b.Next(ctx); return err }
	}
}

func lengthBuild(step bucket.LengthStep, bounds, sizes []int, opts ...bucket.Option) func(*input.Pipeline) func(context.Context) error {
	return func(p *input.Pipeline) func(context.Context) error {
		b := bucket.BySequenceLength(p, step, bounds, sizes, opts...)
		return func(ctx context.Context) error { _, _, err := b.Next(ctx); return err }
	}
}

// BSL-04: the checks are pairwise, so one boundary is always valid.
func TestBSL04SingleBoundary(t *testing.T) {
	p := input.NewPipeline()
	b := bucket.BySequenceLength(p, lengthCounter(4, func(v int) (int, queue.Element) {
		return v * 10, queue.Element{tensor.Scalar(int64(v))}
	}), []int{-7}, []int{4})
	got := drain(t, p, nextLen(b))
	if len(got) != 1 || len(got[0].lengths) != 4 {
		t.Errorf("got %v, want one batch of 4", got)
	}
}

// Errors found while the pipeline runs stop it; Next and Join return them.
func TestRuntimeErrors(t *testing.T) {
	boom := errors.New("boom")
	for _, tc := range []struct {
		name   string
		step   bucket.Step
		opts   []bucket.Option
		is     error
		wantIn string
	}{
		{"bucket id too large", scalarStep(3), nil, bucket.ErrBucketRange,
			`bucket: stage "bucket": bucket id 3 is not in [0, 3) (3 buckets)`},
		{"negative bucket id", scalarStep(-1), nil, bucket.ErrBucketRange,
			"bucket id -1 is not in [0, 3)"},
		{"step error", func(context.Context) (int, queue.Element, error) { return 0, nil, boom }, nil, boom, "boom"},
		{"empty example", counter(5, func(int) (int, queue.Element) { return 0, queue.Element{} }), nil,
			queue.ErrInvalidArgument, "Expected at least one tensor in bucket()."},
		{"names", scalarStep(0), []bucket.Option{bucket.Names("a", "b")}, queue.ErrInvalidArgument,
			"2 names for 1 components"},
		{"shape changes", counter(5, func(v int) (int, queue.Element) {
			return 0, queue.Element{fill(1, 1+v)}
		}), nil, queue.ErrInvalidArgument, ""},
		{"rank changes with dynamic pad", counter(5, func(v int) (int, queue.Element) {
			if v == 3 {
				return 0, queue.Element{tensor.Scalar(int64(v))}
			}
			return 0, queue.Element{fill(1, 1+v)}
		}), []bucket.Option{bucket.DynamicPad()}, queue.ErrInvalidArgument, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := input.NewPipeline()
			b := bucket.Bucket(p, tc.step, []int{2}, 3, tc.opts...)
			if err := p.Start(t.Context()); err != nil {
				t.Fatal(err)
			}
			var err error
			for err == nil {
				_, _, err = b.Next(t.Context())
			}
			if !errors.Is(err, tc.is) || !strings.Contains(err.Error(), tc.wantIn) {
				t.Errorf("Next: %v, want %v containing %q", err, tc.is, tc.wantIn)
			}
			if jerr := p.Join(t.Context()); !errors.Is(jerr, tc.is) {
				t.Errorf("Join: %v, want %v", jerr, tc.is)
			}
		})
	}
}
