package seqdemo

import (
	"math"
	"testing"
)

// Carrying the statistics across segments of any length gives the
// whole-sequence estimate exactly: the same terms added in the same order.
func TestStatsSegmentsEqualWhole(t *testing.T) {
	series := Generate(20, 2, 300, 7)
	for _, unroll := range []int{1, 3, 10, 64, 1000} {
		for _, s := range series {
			var st stats
			for lo := 0; lo < len(s.X); lo += unroll {
				st.update(s.X[lo:min(lo+unroll, len(s.X))])
			}
			if got, want := st.phi(), directPhi(s.X); got != want {
				t.Fatalf("unroll %d, series %d: %v, want %v", unroll, s.ID, got, want)
			}
			if st.steps != int64(len(s.X)) {
				t.Fatalf("unroll %d: %d steps, want %d", unroll, st.steps, len(s.X))
			}
		}
	}
}

func TestDirectPhi(t *testing.T) {
	for _, tc := range []struct {
		x    []float32
		want float64
	}{
		{nil, 0},
		{[]float32{3}, 0},
		{[]float32{1, 0.5, 0.25, 0.125}, 0.5},
		{[]float32{2, -2, 2, -2}, -1},
	} {
		if got := directPhi(tc.x); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("directPhi(%v) = %v, want %v", tc.x, got, tc.want)
		}
	}
}

// Long series estimate φ well: the generator's data is what it says.
func TestGenerateEstimable(t *testing.T) {
	for _, s := range Generate(30, 5000, 5000, 1) {
		if e := math.Abs(directPhi(s.X) - float64(s.Phi)); e > 0.06 {
			t.Errorf("series %d: φ %v estimated as %v", s.ID, s.Phi, directPhi(s.X))
		}
		if len(s.X) != 5000 {
			t.Fatalf("length %d", len(s.X))
		}
	}
	a, b := Generate(5, 10, 50, 3), Generate(5, 10, 50, 3)
	for i := range a {
		if a[i].Phi != b[i].Phi || len(a[i].X) != len(b[i].X) {
			t.Fatal("Generate is not deterministic")
		}
	}
}
