package sample

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tensor"
)

// RE-01, RE-04: every input is gathered with one index list, copies of a
// row adjacent and rows in order.
func TestResampleAtRateAligned(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	foo := tensor.New([]int64{10, 11, 12, 13})
	bar := tensor.New([]float32{0, 1, 2, 3, 4, 5, 6, 7}, 4, 2)
	out, idx, err := ResampleAtRate(rng, []float64{0.5, 2, 0, 6}, foo, bar)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.IsSorted(idx) || slices.Contains(idx, 2) {
		t.Errorf("indices %v: want grouped by row, row 2 (rate 0) absent", idx)
	}
	if out[0].Len() != len(idx) || out[1].Shape()[0] != len(idx) || out[1].Shape()[1] != 2 {
		t.Fatalf("shapes %v %v for %d indices", out[0].Shape(), out[1].Shape(), len(idx))
	}
	for j, i := range idx {
		if out[0].Int64s()[j] != int64(10+i) || out[1].Row(j).Float32s()[0] != float32(2*i) {
			t.Errorf("output row %d is not input row %d in both inputs", j, i)
		}
	}
}

// RE-02: all-zero rates give empty inputs with their row shape, no error.
func TestResampleAtRateZero(t *testing.T) {
	out, idx, err := ResampleAtRate(rand.New(rand.NewPCG(1, 1)), []float64{0, 0, 0},
		tensor.New([]float32{1, 2, 3, 4, 5, 6}, 3, 2), tensor.Strings("a", "b", "c"))
	if err != nil || len(idx) != 0 {
		t.Fatal(err, idx)
	}
	if !out[0].Shape().Equal(tensor.Shape{0, 2}) || !out[1].Shape().Equal(tensor.Shape{0}) || out[1].DType() != tensor.String {
		t.Errorf("shapes %v %v", out[0].Shape(), out[1].Shape())
	}
}

func TestResampleAtRateErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, tc := range []struct {
		name   string
		rates  []float64
		inputs []tensor.Tensor
		want   string
	}{
		{"negative", []float64{1, -0.5}, []tensor.Tensor{tensor.New([]int64{1, 2})}, "rate -0.5 of row 1"},
		{"nan", []float64{math.NaN()}, []tensor.Tensor{tensor.New([]int64{1})}, "rate NaN of row 0"},
		{"inf", []float64{math.Inf(1)}, []tensor.Tensor{tensor.New([]int64{1})}, "rate +Inf of row 0"},
		// Copies are made in memory: 2e9 of them ran the process out of
		// it, and 1e19 overflowed the count drawn to none (audit 32).
		{"above MaxRate", []float64{1, 2e9}, []tensor.Tensor{tensor.New([]int64{1, 2})}, "rate 2e+09 of row 1 is not a number from 0 to MaxRate (1048576)"},
		{"overflowing", []float64{1e19, 1}, []tensor.Tensor{tensor.New([]int64{1, 2})}, "rate 1e+19 of row 0"},
		{"rows", []float64{1, 1}, []tensor.Tensor{tensor.New([]int64{1, 2, 3})}, "input 0 has 3 rows, but there are 2 rates"},
		{"scalar", []float64{1}, []tensor.Tensor{tensor.Scalar[int64](1)}, "input 0 is a scalar"},
	} {
		_, _, err := ResampleAtRate(rng, tc.rates, tc.inputs...)
		if !errors.Is(err, queue.ErrInvalidArgument) || !contains(err, tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

// A weight whose rate would be above MaxRate is refused, naming it, and
// leaves the running mean as it was; so is an overall rate above it.
func TestWeightedResamplerMaxRate(t *testing.T) {
	w, err := NewWeightedResampler(1e6, 0.5, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	// The first batch's mean is its own, about 5e8: rates about 2e-3
	// and 2e6.
	if _, err := w.Rates([]float64{1, 1e9}); !errors.Is(err, queue.ErrInvalidArgument) || !contains(err, "weight 1e+09 of row 1 gives rate 1.99") {
		t.Errorf("Rates: %v, want weight 1e+09 refused", err)
	}
	if m := w.Mean(); m != 0 {
		t.Errorf("Mean after a refused batch = %v, want 0, as before it", m)
	}
	// Still the first batch: its mean, 1, is exact.
	if r, err := w.Rates([]float64{1, 1}); err != nil || !slices.Equal(r, []float64{1e6, 1e6}) || w.Mean() != 1 {
		t.Errorf("Rates = %v, %v; Mean = %v", r, err, w.Mean())
	}
	if _, err := NewWeightedResampler(MaxRate+1, 0.5, nil); !errors.Is(err, queue.ErrInvalidArgument) || !contains(err, "overall rate 1.048577e+06") {
		t.Errorf("overall rate above MaxRate: %v", err)
	}
}

// RE-08: the zero-debiased running mean; the first batch's mean is exact.
func TestWeightedResamplerMean(t *testing.T) {
	w, err := NewWeightedResampler(1, 0.999, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	for i, tc := range []struct{ batch, mean float64 }{{10, 10}, {20, 15.0025}, {30, 20.0067}} {
		rates, err := w.Rates([]float64{tc.batch, tc.batch})
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(w.Mean()-tc.mean) > 1e-4 {
			t.Errorf("call %d: mean %v, want %v", i+1, w.Mean(), tc.mean)
		}
		if want := tc.batch / w.Mean(); math.Abs(rates[0]-want) > 1e-12 {
			t.Errorf("call %d: rate %v, want weight·rate/mean = %v", i+1, rates[0], want)
		}
	}
	for _, tc := range []struct{ rate, decay float64 }{{-1, 0.9}, {1, 1}, {1, -0.1}, {math.NaN(), 0.5}} {
		if _, err := NewWeightedResampler(tc.rate, tc.decay, nil); !errors.Is(err, queue.ErrInvalidArgument) {
			t.Errorf("rate %v decay %v: %v", tc.rate, tc.decay, err)
		}
	}
	if _, err := w.Rates([]float64{1, -2}); !contains(err, "weight -2 of row 1") {
		t.Errorf("negative weight: %v", err)
	}
}

// RE-05, RE-06: 5 values with weights ~N(10, 5) resampled at 0.25 over
// 500 runs: the total count is within 2 standard deviations of 5·500·0.25,
// each value's count is proportional to its weight, and resampling the
// output again at the inverse rates brings each value back about 500 times.
func TestWeightedResampleStatistics(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	weights := make([]float64, 5)
	for i := range weights {
		for weights[i] <= 0 {
			weights[i] = 10 + 5*rng.NormFloat64()
		}
	}
	values := tensor.New([]int64{0, 1, 2, 3, 4})
	w, _ := NewWeightedResampler(0.25, DefaultMeanDecay, rng)
	const runs = 500
	counts := make([]float64, 5)
	again := make([]float64, 5)
	total := 0.0
	for range runs {
		out, rates, err := w.Resample(weights, values)
		if err != nil {
			t.Fatal(err)
		}
		v := out[0].Int64s()
		total += float64(len(v))
		for _, x := range v {
			counts[x]++
		}
		inv := make([]float64, len(rates))
		for j, r := range rates {
			inv[j] = 1 / r
		}
		back, _, err := ResampleAtRate(rng, inv, out[0])
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range back[0].Int64s() {
			again[x]++
		}
	}
	want := 5 * runs * 0.25
	if sd := math.Sqrt(want * 0.75); math.Abs(total-want) > 2*sd {
		t.Errorf("total %v, want %v ± %v", total, want, 2*sd)
	}
	sumW := 0.0
	for _, x := range weights {
		sumW += x
	}
	for i := range counts {
		expect := total * weights[i] / sumW
		if math.Abs(counts[i]-expect) > 4*math.Sqrt(expect) {
			t.Errorf("value %d (weight %.2f): %v copies, want about %.0f", i, weights[i], counts[i], expect)
		}
		if math.Abs(again[i]-runs) > 0.25*runs {
			t.Errorf("value %d: %v after resampling back, want about %d", i, again[i], runs)
		}
	}
}

// RE-07: inverse rates weight the output back: over 500 runs with 10
// values, Σ 1/rate ≈ 10·500 and Σ value/rate ≈ 500·Σ values (10%).
func TestWeightedResampleInverseRates(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	vals := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	weights := make([]float64, len(vals))
	for i := range weights {
		weights[i] = 0.5 + rng.Float64()
	}
	w, _ := NewWeightedResampler(0.5, DefaultMeanDecay, rng)
	const runs = 500
	var sumInv, sumVal float64
	for range runs {
		out, rates, err := w.Resample(weights, tensor.New(vals))
		if err != nil {
			t.Fatal(err)
		}
		for j, r := range rates {
			sumInv += 1 / r
			sumVal += out[0].Float64s()[j] / r
		}
	}
	if math.Abs(sumInv/(10*runs)-1) > 0.1 {
		t.Errorf("Σ 1/rate = %v, want about %v", sumInv, 10*runs)
	}
	if math.Abs(sumVal/(55*runs)-1) > 0.1 {
		t.Errorf("Σ value/rate = %v, want about %v", sumVal, 55*runs)
	}
}
