package seqdemo

// The stateful model estimates an AR(1) series' coefficient by least
// squares, φ̂ = Σ x[t-1]·x[t] / Σ x[t-1]², from sufficient statistics it
// updates one step at a time. Carried across segments, the statistics make
// the segmented estimate identical to the whole-sequence one.

// stats are the model's state for one series.
type stats struct {
	sxy, sxx float64 // Σ x[t-1]·x[t] and Σ x[t-1]² so far
	prev     float64 // the last value seen
	steps    int64   // steps seen
}

// update adds the steps x, which follow the steps s has seen.
func (s *stats) update(x []float32) {
	for _, v := range x {
		cur := float64(v)
		if s.steps > 0 {
			s.sxy += s.prev * cur
			s.sxx += s.prev * s.prev
		}
		s.prev = cur
		s.steps++
	}
}

// phi returns the estimate; 0 when there is nothing to estimate from.
func (s *stats) phi() float64 {
	if s.sxx == 0 {
		return 0
	}
	return s.sxy / s.sxx
}

// directPhi estimates φ from a whole sequence.
func directPhi(x []float32) float64 {
	var s stats
	s.update(x)
	return s.phi()
}
