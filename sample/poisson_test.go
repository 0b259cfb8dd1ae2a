package sample

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Poisson counts have mean and variance lambda, on both sides of the
// switch to PTRS (RE-04: only the distribution is contractual).
func TestPoissonMoments(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 40000
	for _, lambda := range []float64{0, 0.01, 0.5, 3, 11.9, 12, 30, 1000, 1e6} {
		var sum, sq float64
		for range n {
			k := float64(poisson(rng, lambda))
			if k < 0 {
				t.Fatalf("lambda %v: negative count %v", lambda, k)
			}
			sum += k
			sq += k * k
		}
		mean := sum / n
		variance := sq/n - mean*mean
		// 4 standard errors: a fixed seed makes this exact, and a correct
		// sampler passes it with any seed almost surely.
		if se := math.Sqrt(lambda / n); math.Abs(mean-lambda) > 4*se+1e-12 {
			t.Errorf("lambda %v: mean %v (standard error %v)", lambda, mean, se)
		}
		if lambda > 0 && math.Abs(variance/lambda-1) > 0.05 {
			t.Errorf("lambda %v: variance %v", lambda, variance)
		}
	}
}

// The probabilities of small counts match the Poisson mass function.
func TestPoissonMass(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const n = 100000
	for _, lambda := range []float64{2.5, 15} {
		counts := map[int]int{}
		for range n {
			counts[poisson(rng, lambda)]++
		}
		for k := int(lambda) - 2; k <= int(lambda)+2; k++ {
			lg, _ := math.Lgamma(float64(k + 1))
			p := math.Exp(float64(k)*math.Log(lambda) - lambda - lg)
			got := float64(counts[k]) / n
			if se := math.Sqrt(p * (1 - p) / n); math.Abs(got-p) > 4*se {
				t.Errorf("lambda %v: P(%d) = %v, want %v", lambda, k, got, p)
			}
		}
	}
}
