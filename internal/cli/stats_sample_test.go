package cli

import (
	"math"
	"testing"
)

// Up to sampleSize values the sample is all of them and its quantiles
// exact; past that it is uniform over the stream: quantiles of 0, 1, ...,
// n-1 within a few standard errors of the true ones, and as many values
// taken from each half of the stream.
func TestSampleQuantiles(t *testing.T) {
	var s sample
	for i := range 1001 {
		s.add(float64(1000 - i))
	}
	q, exact := s.quantiles(0, 0.25, 0.5, 1)
	if !exact || q[0] != 0 || q[1] != 250 || q[2] != 500 || q[3] != 1000 {
		t.Errorf("1001 values: %v exact %v, want [0 250 500 1000] exact", q, exact)
	}
	for _, n := range []int{sampleSize + 1, 100_000, 3_000_000} {
		var s sample
		for i := range n {
			s.add(float64(i))
		}
		if len(s.vals) != sampleSize || s.seen != int64(n) {
			t.Fatalf("%d values: a sample of %d from %d", n, len(s.vals), s.seen)
		}
		q, exact := s.quantiles(0.1, 0.5, 0.9)
		if exact {
			t.Errorf("%d values: quantiles exact", n)
		}
		for i, p := range []float64{0.1, 0.5, 0.9} {
			// A quantile's rank from k samples has a standard error of
			// sqrt(p(1-p)/k): 0.016 at the median; allow four.
			if err := math.Abs(q[i]/float64(n-1) - p); err > 4*math.Sqrt(p*(1-p)/sampleSize) {
				t.Errorf("%d values: quantile %v is %v (rank %.3f)", n, p, q[i], q[i]/float64(n-1))
			}
		}
		late := 0
		for _, v := range s.vals {
			if v >= float64(n)/2 {
				late++
			}
		}
		if math.Abs(float64(late)/sampleSize-0.5) > 4*0.5/math.Sqrt(sampleSize) {
			t.Errorf("%d values: %d of the sample from the second half", n, late)
		}
	}
}
