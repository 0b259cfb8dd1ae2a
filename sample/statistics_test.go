package sample

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sluiceml/sluice/input"
	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tensor"
)

// drawn is a LabelStep over n examples whose classes are drawn from probs;
// each example's one component is its class, so the test can check that
// label and data stay together.
func drawn(n int, probs []float64, seed uint64) LabelStep {
	rng := rand.New(rand.NewPCG(seed, 1))
	i := 0
	return func(context.Context) (int, queue.Element, error) {
		if i == n {
			return 0, nil, errEOF
		}
		i++
		u, l := rng.Float64(), 0
		for l < len(probs)-1 && u >= probs[l] {
			u -= probs[l]
			l++
		}
		return l, queue.Element{tensor.Scalar(int64(l))}, nil
	}
}

// SAMPLING.md §1, ST-04: whatever the input's class proportions, the
// batches' proportions are the target's, each class within 4 standard
// errors, with the input's proportions given (InitProbs) and estimated
// online (ST-07).
func TestStratifiedSampleTargetProportions(t *testing.T) {
	for i, tc := range []struct {
		init, target []float64
	}{
		{[]float64{.25, .25, .25, .25}, []float64{.1, .2, .3, .4}},
		{[]float64{.6, .3, .1}, []float64{1. / 3, 1. / 3, 1. / 3}},
		{[]float64{.7, 0, 0, .3, 0}, []float64{.8, 0, 0, .2, 0}},
		{[]float64{.05, .95}, []float64{.5, .5}},
	} {
		for _, online := range []bool{false, true} {
			t.Run(fmt.Sprintf("%d/online=%v", i, online), func(t *testing.T) {
				opts := []Option{Names("class"), Warn(func(string) {})}
				if !online {
					opts = append(opts, InitProbs(tc.init))
				}
				p := input.NewPipeline(input.Seed(uint64(10 + i)))
				b := StratifiedSample(p, drawn(40000, tc.init, uint64(i)), tc.target, 50, opts...)
				batches, err := drain(t, p, b.Next)
				if err != nil {
					t.Fatal(err)
				}
				counts := make([]float64, len(tc.target))
				n := 0.0
				for _, bt := range batches {
					for j, l := range bt.Int64("label") {
						if bt.Int64("class")[j] != l {
							t.Fatalf("label %d with data of class %d", l, bt.Int64("class")[j])
						}
						counts[l]++
						n++
					}
				}
				if n < 1500 {
					t.Fatalf("%v examples", n)
				}
				for l, want := range tc.target {
					got := counts[l] / n
					if se := math.Sqrt(want * (1 - want) / n); math.Abs(got-want) > 4*se {
						t.Errorf("class %d: proportion %.4f of %v, want %.4f ± %.4f", l, got, n, want, 4*se)
					}
				}
			})
		}
	}
}

// RE-04: each row is emitted Poisson(rate) times: over many calls the mean
// count of a row is its rate, within 4 standard errors (sqrt(rate/calls)).
func TestResampleAtRateMeanCount(t *testing.T) {
	rates := []float64{0, 0.1, 1, 2.5, 11.99, 12, 50}
	rows := make([]int64, len(rates))
	for i := range rows {
		rows[i] = int64(i)
	}
	rng := rand.New(rand.NewPCG(21, 22))
	const calls = 5000
	counts := make([]float64, len(rates))
	for range calls {
		_, idx, err := ResampleAtRate(rng, rates, tensor.New(rows))
		if err != nil {
			t.Fatal(err)
		}
		for _, i := range idx {
			counts[i]++
		}
	}
	for i, rate := range rates {
		mean := counts[i] / calls
		if se := math.Sqrt(rate / calls); math.Abs(mean-rate) > 4*se {
			t.Errorf("rate %v: mean count %v, want %v ± %v", rate, mean, rate, 4*se)
		}
	}
}
