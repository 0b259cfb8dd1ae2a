package sample

import (
	"errors"
	"math"
	"testing"

	"github.com/sluiceml/sluice/queue"
)

// SAMPLING.md §1's worked examples.
func TestAcceptanceProbs(t *testing.T) {
	for _, tc := range []struct {
		init, target, want []float64
		rejected           float64
	}{
		{[]float64{.7, 0, 0, .3, 0}, []float64{.8, 0, 0, .2, 0}, []float64{1, 0, 0, 7.0 / 12, 0}, 0.125},
		{[]float64{0, .3, 0, .7, 0}, []float64{0, .2, 0, .8, 0}, []float64{0, 7.0 / 12, 0, 1, 0}, 0.125},
		{[]float64{.999, .001}, []float64{.5, .5}, []float64{.001 / .999, 1}, .999 * (1 - .001/.999)},
		{[]float64{.25, .75}, []float64{.25, .75}, []float64{1, 1}, 0},
		// A ratio past float64's range: a[0] = 1 and no NaN (audit 82:
		// NaN, and a nil error).
		{[]float64{5e-324, 1}, []float64{1, 0}, []float64{1, 0}, 1},
		{[]float64{5e-324, 1}, []float64{.5, .5}, []float64{1, 5e-324}, 1},
	} {
		a, f, err := AcceptanceProbs(tc.init, tc.target)
		if err != nil {
			t.Fatal(err)
		}
		for i := range a {
			if !(math.Abs(a[i]-tc.want[i]) <= 1e-12) { // NaN fails too
				t.Errorf("init %v target %v: a = %v, want %v", tc.init, tc.target, a, tc.want)
				break
			}
		}
		if !(math.Abs(f-tc.rejected) <= 1e-12) {
			t.Errorf("init %v target %v: rejected %v, want %v", tc.init, tc.target, f, tc.rejected)
		}
	}
}

// ST-02, ST-03: the probability checks and their messages.
func TestAcceptanceProbsErrors(t *testing.T) {
	for _, tc := range []struct {
		init, target []float64
		want         string
	}{
		{[]float64{.1, .1, .1, .1, .1, .1, .1, .1, .1, .1}, []float64{.2, .2, .2, .2, .2}, "Probability parameters must have the same length."},
		{[]float64{0, .5, .5}, []float64{.2, .4, .4}, "All classes with zero initial probability must also have zero target probability"},
		{[]float64{.5, .5}, []float64{.1, .1, .1, .1, .1}, "target_probs sum to 0.5"},
		{[]float64{.5, .5}, []float64{-.5, .5, .5, .4, .1}, "target_probs[0] = -0.5 is not a probability"},
		{[]float64{math.NaN(), 1}, []float64{.5, .5}, "init_probs[0] = NaN"},
		{nil, []float64{1}, "init_probs is empty"},
	} {
		_, _, err := AcceptanceProbs(tc.init, tc.target)
		if !errors.Is(err, queue.ErrInvalidArgument) || !contains(err, tc.want) {
			t.Errorf("init %v target %v: %v, want %q", tc.init, tc.target, err, tc.want)
		}
	}
}
