package sample

import (
	"math/rand/v2"

	"github.com/sluiceml/sluice/tensor"
)

// ResampleAtRate emits row i of the inputs Poisson(rates[i]) times
// (TensorFlow's resample_at_rate). Every input is gathered with the same
// index list, returned too, so rows stay aligned across inputs (RE-01);
// copies of a row are adjacent, rows in input order (RE-04). Each input's
// dimension 0 must have len(rates) rows; all-zero rates give inputs of 0
// rows (RE-02). A rate that is not a number from 0 to MaxRate is an
// error naming it.
func ResampleAtRate(rng *rand.Rand, rates []float64, inputs ...tensor.Tensor) (out []tensor.Tensor, indices []int, err error) {
	if err := checkRows("resample_at_rate", len(rates), inputs); err != nil {
		return nil, nil, err
	}
	for i, r := range rates {
		if !isRate(r) {
			return nil, nil, invalidf("sample: resample_at_rate: rate %v of row %d is not a number from 0 to MaxRate (%d)", r, i, MaxRate)
		}
	}
	for i, r := range rates {
		for range poisson(rng, r) {
			indices = append(indices, i)
		}
	}
	out = make([]tensor.Tensor, len(inputs))
	for j, t := range inputs {
		if out[j], err = gather(t, indices); err != nil {
			return nil, nil, err
		}
	}
	return out, indices, nil
}

// checkRows checks that every input has rows rows along dimension 0.
func checkRows(op string, rows int, inputs []tensor.Tensor) error {
	for j, t := range inputs {
		if t.Rank() == 0 {
			return invalidf("sample: %s: input %d is a scalar; inputs need a batch dimension", op, j)
		}
		if n := t.Shape()[0]; n != rows {
			return invalidf("sample: %s: input %d has %d rows, but there are %d rates or weights", op, j, n, rows)
		}
	}
	return nil
}

// gather returns the rows of t at indices, in that order.
func gather(t tensor.Tensor, indices []int) (tensor.Tensor, error) {
	if len(indices) == 0 {
		return tensor.Zeros(t.DType(), t.Shape()[1:].Prepend(0)), nil
	}
	out := tensor.Zeros(t.DType(), t.Shape()[1:].Prepend(len(indices)))
	// Rows are copied a run at a time: indices that follow each other
	// (i, i+1, ...) are one copy, with no tensor made for any row.
	for k := 0; k < len(indices); {
		run := 1
		for k+run < len(indices) && indices[k+run] == indices[k]+run {
			run++
		}
		if err := out.CopyRows(k, t, indices[k], run); err != nil {
			return tensor.Tensor{}, err
		}
		k += run
	}
	return out, nil
}

// A WeightedResampler turns weights into resampling rates (TensorFlow's
// weighted_resample): rate_i = weight_i · overallRate / μ, where μ is a
// zero-debiased exponential running mean of the batches' mean weights,
// μ_k = b_k / (1 − decay^k) with b_k = decay·b_{k−1} + (1−decay)·mean_k,
// so the first batch's μ is its own mean exactly (RE-08). An
// average-weight example is then emitted overallRate times on average, a
// double-weight one twice as often. It is not safe for concurrent use.
type WeightedResampler struct {
	overallRate, decay float64
	rng                *rand.Rand

	biased float64 // b_k
	power  float64 // decay^k
}

// DefaultMeanDecay is TensorFlow's mean_decay for the running mean.
const DefaultMeanDecay = 0.999

// NewWeightedResampler returns a resampler with the given overall rate and
// running-mean decay (DefaultMeanDecay is TensorFlow's), drawing from rng.
func NewWeightedResampler(overallRate, meanDecay float64, rng *rand.Rand) (*WeightedResampler, error) {
	if !isRate(overallRate) {
		return nil, invalidf("sample: weighted_resample: overall rate %v is not a number from 0 to MaxRate (%d)", overallRate, MaxRate)
	}
	if !(meanDecay >= 0 && meanDecay < 1) {
		return nil, invalidf("sample: weighted_resample: mean decay %v is not in [0, 1)", meanDecay)
	}
	return &WeightedResampler{overallRate: overallRate, decay: meanDecay, rng: rng, power: 1}, nil
}

// Mean returns the running mean weight μ after the batches so far (0
// before the first).
func (w *WeightedResampler) Mean() float64 {
	if w.power == 1 {
		return 0
	}
	return w.biased / (1 - w.power)
}

// Rates folds the batch's weights into the running mean and returns each
// row's rate. A weight that is negative, infinite or NaN, or whose rate
// would be above MaxRate (a weight that far above the running mean), is
// an error naming it, and leaves the running mean as it was.
func (w *WeightedResampler) Rates(weights []float64) ([]float64, error) {
	if len(weights) == 0 {
		return nil, nil
	}
	sum := 0.0
	for i, x := range weights {
		if !isWeight(x) {
			return nil, invalidf("sample: weighted_resample: weight %v of row %d is not a finite, non-negative number", x, i)
		}
		sum += x
	}
	next := *w
	next.biased = w.decay*w.biased + (1-w.decay)*sum/float64(len(weights))
	next.power *= w.decay
	mu := next.Mean()
	rates := make([]float64, len(weights))
	for i, x := range weights {
		if mu > 0 {
			rates[i] = x * w.overallRate / mu
		}
		if !isRate(rates[i]) {
			return nil, invalidf("sample: weighted_resample: weight %v of row %d gives rate %v (the mean weight is %v), above MaxRate (%d)", x, i, rates[i], mu, MaxRate)
		}
	}
	*w = next
	return rates, nil
}

// Resample computes the batch's rates (Rates) and resamples the inputs at
// them (ResampleAtRate). It returns the resampled inputs and the rate of
// each output row: their inverses are the weights that make sums over the
// output estimate sums over the input (RE-07).
func (w *WeightedResampler) Resample(weights []float64, inputs ...tensor.Tensor) (out []tensor.Tensor, rates []float64, err error) {
	if err := checkRows("weighted_resample", len(weights), inputs); err != nil {
		return nil, nil, err
	}
	r, err := w.Rates(weights)
	if err != nil {
		return nil, nil, err
	}
	out, idx, err := ResampleAtRate(w.rng, r, inputs...)
	if err != nil {
		return nil, nil, err
	}
	rates = make([]float64, len(idx))
	for j, i := range idx {
		rates[j] = r[i]
	}
	return out, rates, nil
}
