package cli

import (
	"cmp"
	"math"
	"slices"
	"strconv"
)

// Bounds of the exact counts of distinct values that top values come
// from: past them a feature's counts stop (valueStats.untracked), so that
// a feature of ids or of images costs bounded memory.
const (
	maxDistinct    = 10_000
	maxTrackedSize = 64 // bytes of a bytes value
)

// valueStats summarises the values of one feature (or feature list) over
// the records: for numbers their range, mean, spread, zeros and, for
// floats, NaNs and infinities; for bytes the same of their lengths; and,
// for int64 and short bytes values, how often each distinct value occurs
// while there are few of them.
type valueStats struct {
	n         int64   // values in the mean and spread: floats that are finite
	wmean, m2 float64 // Welford's running mean and sum of squared deviations
	// sum and comp are the values' sum, compensated (Neumaier): Welford's
	// mean loses what is below the precision of its largest partial mean,
	// all of 9.2e18 beside ±3.4e38 (audit 60).
	sum, comp  float64
	minF, maxF float64
	minI, maxI int64 // int64 values and bytes lengths, exact
	zeros      int64
	nans, infs int64
	q          sample // of the values in the mean, for quantiles

	ints      map[int64]int64
	strs      map[string]int64
	untracked string // why the counts stopped, if they did
}

func (v *valueStats) add(f featureValues) {
	switch f.kind {
	case 1:
		for _, x := range f.f32 {
			v.addFloat(float64(x))
		}
	case 2:
		for _, x := range f.i64 {
			v.addInt(x)
			if v.untracked == "" {
				if v.ints == nil {
					v.ints = map[int64]int64{}
				}
				v.ints[x]++
				if len(v.ints) > maxDistinct {
					v.ints, v.untracked = nil, "over "+strconv.Itoa(maxDistinct)+" distinct values"
				}
			}
		}
	case 0:
		for _, b := range f.bs {
			v.addInt(int64(len(b)))
			if v.untracked != "" {
				continue
			}
			if len(b) > maxTrackedSize {
				v.strs, v.untracked = nil, "values over "+strconv.Itoa(maxTrackedSize)+" bytes"
				continue
			}
			if v.strs == nil {
				v.strs = map[string]int64{}
			}
			v.strs[string(b)]++
			if len(v.strs) > maxDistinct {
				v.strs, v.untracked = nil, "over "+strconv.Itoa(maxDistinct)+" distinct values"
			}
		}
	}
}

func (v *valueStats) addFloat(x float64) {
	switch {
	case math.IsNaN(x):
		v.nans++
		return
	case math.IsInf(x, 0):
		v.infs++
		return
	case x == 0:
		v.zeros++
	}
	if v.n == 0 || x < v.minF {
		v.minF = x
	}
	if v.n == 0 || x > v.maxF {
		v.maxF = x
	}
	v.welford(x)
	v.q.add(x)
}

// addInt takes an int64 value, or a bytes value's length.
func (v *valueStats) addInt(x int64) {
	if x == 0 {
		v.zeros++
	}
	if v.n == 0 || x < v.minI {
		v.minI = x
	}
	if v.n == 0 || x > v.maxI {
		v.maxI = x
	}
	v.welford(float64(x))
	v.q.add(float64(x))
}

func (v *valueStats) welford(x float64) {
	v.n++
	d := x - v.wmean
	v.wmean += d / float64(v.n)
	v.m2 += d * (x - v.wmean)
	t := v.sum + x
	if math.Abs(v.sum) >= math.Abs(x) {
		v.comp += (v.sum - t) + x
	} else {
		v.comp += (x - t) + v.sum
	}
	v.sum = t
}

// mean is the values' mean.
func (v *valueStats) mean() float64 {
	if v.n == 0 {
		return 0
	}
	return (v.sum + v.comp) / float64(v.n)
}

// stdDev is the values' population standard deviation.
func (v *valueStats) stdDev() float64 {
	if v.n == 0 {
		return 0
	}
	return math.Sqrt(v.m2 / float64(v.n))
}

// A counted value is one distinct value and how many times it occurs.
type counted[T cmp.Ordered] struct {
	value T
	count int64
}

// top returns the k values of m that occur most, the most first, ties in
// the values' order.
func top[T cmp.Ordered](m map[T]int64, k int) []counted[T] {
	all := make([]counted[T], 0, len(m))
	for x, n := range m {
		all = append(all, counted[T]{x, n})
	}
	slices.SortFunc(all, func(a, b counted[T]) int {
		if c := cmp.Compare(b.count, a.count); c != 0 {
			return c
		}
		return cmp.Compare(a.value, b.value)
	})
	return all[:min(k, len(all))]
}
