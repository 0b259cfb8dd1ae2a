package cli

import (
	"math"
	"math/rand/v2"
	"slices"
)

// sampleSize is how many of a feature's values stats keeps to estimate
// its quantiles from: all of them up to this many (the quantiles are then
// exact), else a uniform sample. 1024 values put a median within about
// 1.6% of the values' ranks of the true one; they take 8 KB a feature.
const sampleSize = 1024

// A sample is a uniform random sample of a stream of values (reservoir
// sampling, Li's Algorithm L: after the first sampleSize values, it draws
// how many to pass over rather than a number for every value, so a
// feature of millions of values costs a few thousand draws). Its random
// numbers are seeded alike for every feature, so that a report is the
// same on every run.
type sample struct {
	vals []float64
	seen int64   // values offered
	next int64   // index of the next value to take, once full
	w    float64 // Algorithm L's running weight
	rng  *rand.Rand
}

func (s *sample) add(x float64) {
	switch {
	case len(s.vals) < sampleSize:
		s.vals = append(s.vals, x)
		if len(s.vals) == sampleSize {
			s.rng = rand.New(rand.NewPCG(1, 2))
			s.w = math.Exp(math.Log(s.uniform()) / sampleSize)
			s.next = s.seen + 1 + s.skip()
		}
	case s.seen == s.next:
		s.vals[s.rng.IntN(sampleSize)] = x
		s.w *= math.Exp(math.Log(s.uniform()) / sampleSize)
		s.next += 1 + s.skip()
	}
	s.seen++
}

// uniform returns a number in (0, 1].
func (s *sample) uniform() float64 { return 1 - s.rng.Float64() }

// skip draws how many values to pass over before the next one taken.
func (s *sample) skip() int64 {
	w := min(s.w, 1-1e-16)
	n := math.Floor(math.Log(s.uniform()) / math.Log1p(-w))
	if n > math.MaxInt64/2 {
		return math.MaxInt64 / 2
	}
	return int64(n)
}

// quantiles returns the values at the given fractions of the sorted
// sample, interpolated between the two nearest as NumPy's quantile does by
// default, and whether they are exact: the sample is every value.
func (s *sample) quantiles(qs ...float64) ([]float64, bool) {
	if len(s.vals) == 0 {
		return nil, true
	}
	sorted := slices.Clone(s.vals)
	slices.Sort(sorted)
	out := make([]float64, len(qs))
	for i, q := range qs {
		pos := q * float64(len(sorted)-1)
		j := int(pos)
		out[i] = sorted[j]
		if j+1 < len(sorted) {
			out[i] += (pos - float64(j)) * (sorted[j+1] - sorted[j])
		}
	}
	return out, s.seen == int64(len(s.vals))
}
