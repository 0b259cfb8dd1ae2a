package sample

import (
	"math"
	"slices"
)

// probTolerance is how far from 1 a probability vector's sum may be
// (TensorFlow's _verify_input).
const probTolerance = 1e-6

// checkProbs checks a probability vector: non-empty, no negative or NaN
// entry, and a sum within probTolerance of 1.
func checkProbs(op, what string, p []float64) error {
	if len(p) == 0 {
		return invalidf("sample: %s: %s is empty", op, what)
	}
	sum := 0.0
	for i, x := range p {
		if !(x >= 0) || math.IsInf(x, 1) {
			return invalidf("sample: %s: %s[%d] = %v is not a probability", op, what, i, x)
		}
		sum += x
	}
	if !(1-probTolerance < sum && sum < 1+probTolerance) {
		return invalidf("sample: %s: %s sum to %v, not 1", op, what, sum)
	}
	return nil
}

// AcceptanceProbs returns the probability a[i] with which a rejection
// sampler keeps an example of class i so that the examples it keeps have
// the class proportions target when the input has proportions init
// (SAMPLING.md §1): a[i] = r[i] / max r, r[i] = target[i] / init[i] (0 for
// 0/0). It also returns the expected fraction of input rejected,
// Σ init[i]·(1 − a[i]). Both vectors must be probability vectors of one
// length, and a class with zero initial probability must have zero
// target probability.
func AcceptanceProbs(init, target []float64) (accept []float64, rejected float64, err error) {
	const op = "stratified_sample"
	if err := checkProbs(op, "init_probs", init); err != nil {
		return nil, 0, err
	}
	if err := checkProbs(op, "target_probs", target); err != nil {
		return nil, 0, err
	}
	if len(init) != len(target) {
		return nil, 0, invalidf("Probability parameters must have the same length.")
	}
	for i := range init {
		if init[i] == 0 && target[i] != 0 {
			return nil, 0, invalidf("All classes with zero initial probability must also have zero target probability: %v %v", init, target)
		}
	}
	a := acceptance(init, target)
	return a, rejection(init, a), nil
}

// acceptance computes a from valid init and target.
func acceptance(init, target []float64) []float64 {
	a := make([]float64, len(init))
	for i := range a {
		if init[i] != 0 {
			a[i] = target[i] / init[i]
		}
	}
	m := slices.Max(a)
	if math.IsInf(m, 1) {
		// A ratio past float64's range (an init probability near the
		// smallest float), which divides into NaN: the ratios compared
		// as logarithms instead.
		logs := make([]float64, len(a))
		top := math.Inf(-1)
		for i := range a {
			logs[i] = math.Inf(-1)
			if init[i] != 0 && target[i] != 0 {
				logs[i] = math.Log2(target[i]) - math.Log2(init[i])
				top = max(top, logs[i])
			}
		}
		for i := range a {
			a[i] = math.Exp2(logs[i] - top)
		}
		return a
	}
	if m > 0 {
		for i := range a {
			a[i] /= m
		}
	}
	return a
}

// rejection is the expected fraction of input a rejects.
func rejection(init, a []float64) float64 {
	f := 0.0
	for i := range init {
		f += init[i] * (1 - a[i])
	}
	return f
}
