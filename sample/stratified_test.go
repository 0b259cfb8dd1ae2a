package sample

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/sluiceml/sluice/input"
	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tensor"
)

// classData is ST-04's input: class 0 with data [0, 0] or class 3 with data
// [3, 12], class 3 drawn with probability p3.
func classData(n int, p3 float64, seed uint64) LabelStep {
	rng := rand.New(rand.NewPCG(seed, 0))
	i := 0
	return func(context.Context) (int, queue.Element, error) {
		if i == n {
			return 0, nil, errEOF
		}
		i++
		l := 0
		if rng.Float64() < p3 {
			l = 3
		}
		return l, queue.Element{tensor.New([]int64{int64(l), int64(4 * l)})}, nil
	}
}

// ST-04: batches of 16 whose data rows agree with their labels and whose
// mean label is within 3 standard errors of the target's 0.6, with the
// input's proportions given and estimated online.
func TestStratifiedSampleProportions(t *testing.T) {
	target := []float64{.8, 0, 0, .2, 0}
	for _, tc := range []struct {
		name string
		p3   float64
		opts []Option
	}{
		{"init", .3, []Option{InitProbs([]float64{.7, 0, 0, .3, 0})}},
		{"online", .5, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := input.NewPipeline(input.Seed(42))
			b := StratifiedSample(p, classData(4000, tc.p3, 1), target, 16, append(tc.opts, Names("data"))...)
			batches, err := drain(t, p, b.Next)
			if err != nil {
				t.Fatal(err)
			}
			if len(batches) < 20 {
				t.Fatalf("%d batches", len(batches))
			}
			var sum, n float64
			for _, bt := range batches[:20] {
				labels := bt.Int64("label")
				data := bt.Tensor("data")
				if len(labels) != 16 || !data.Shape().Equal(tensor.Shape{16, 2}) {
					t.Fatalf("batch shapes %d %v", len(labels), data.Shape())
				}
				for i, l := range labels {
					if row := data.Row(i).Int64s(); row[0] != l || row[1] != 4*l {
						t.Fatalf("row %v has label %d", row, l)
					}
					sum += float64(l)
					n++
				}
			}
			// Labels are 3 with probability .2: variance 9·.2·.8.
			if se := math.Sqrt(9 * .2 * .8 / n); math.Abs(sum/n-0.6) > 3*se {
				t.Errorf("mean label %v, want 0.6 ± %v", sum/n, 3*se)
			}
		})
	}
}

// ST-06: a sampler expected to reject half or more of its input warns, at
// most 10 times; one that rejects less does not.
func TestStratifiedSampleWarning(t *testing.T) {
	for _, tc := range []struct {
		opts []Option
		want int
	}{
		{[]Option{InitProbs([]float64{.9, .1})}, maxWarnings},
		{nil, maxWarnings}, // online: the estimate approaches .9/.1
		{[]Option{InitProbs([]float64{.5, .5})}, 0},
	} {
		var got []string
		p := input.NewPipeline(input.Seed(1))
		labels := func(i int) int {
			if i%10 == 0 {
				return 1
			}
			return 0
		}
		b := StratifiedSample(p, source(2000, labels), []float64{.5, .5}, 4,
			append(tc.opts, Warn(func(m string) { got = append(got, m) }))...)
		if _, err := drain(t, p, b.Next); err != nil {
			t.Fatal(err)
		}
		if len(got) != tc.want || len(got) > 0 && got[0] != "Proportion of examples rejected by sampler is high." {
			t.Errorf("%d warnings %q, want %d", len(got), got, tc.want)
		}
	}
}

// ST-02, ST-03, ST-07: build errors come from Start; a bad label stops the
// pipeline with an error naming it and the example.
func TestStratifiedSampleErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		target []float64
		opts   []Option
		want   string
	}{
		{"sum", []float64{.1, .1, .1, .1, .1}, nil, "target_probs sum to 0.5"},
		{"length", []float64{.5, .5}, []Option{InitProbs([]float64{.2, .2, .6})}, "Probability parameters must have the same length."},
		{"zero init", []float64{.2, .4, .4}, []Option{InitProbs([]float64{0, .5, .5})}, "All classes with zero initial probability"},
		{"smoothing", []float64{.5, .5}, []Option{Smoothing(0)}, "smoothing_constant must be nonzero. (Smoothing(0))"},
		{"negative smoothing", []float64{.5, .5}, []Option{Smoothing(-3)}, "smoothing_constant must be nonzero. (Smoothing(-3))"},
	} {
		p := input.NewPipeline()
		StratifiedSample(p, source(10, func(int) int { return 0 }), tc.target, 2, tc.opts...)
		if err := p.Start(t.Context()); !errors.Is(err, queue.ErrInvalidArgument) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Start = %v, want %q", tc.name, err, tc.want)
		}
		p.Stop(t.Context())
	}
	for _, bad := range []int{-1, 5} {
		p := input.NewPipeline()
		b := StratifiedSample(p, source(10, func(i int) int {
			if i == 3 {
				return bad
			}
			return 0
		}), []float64{.2, .2, .2, .2, .2}, 2)
		_, err := drain(t, p, b.Next)
		if want := "example 3: label " + itoa(bad) + " is not in [0, 5)"; !errors.Is(err, queue.ErrInvalidArgument) || !strings.Contains(err.Error(), want) {
			t.Errorf("label %d: %v, want %q", bad, err, want)
		}
	}
}

// A cancelled context ends a Next waiting for input that never comes.
func TestStratifiedSampleCancel(t *testing.T) {
	p := input.NewPipeline()
	block := func(ctx context.Context) (int, queue.Element, error) {
		<-ctx.Done()
		return 0, nil, ctx.Err()
	}
	b := StratifiedSample(p, block, []float64{1}, 2)
	if err := p.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	defer p.Stop(t.Context())
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := b.Next(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Next with a cancelled context: %v", err)
	}
}
