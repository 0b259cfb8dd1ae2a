package sample

import (
	"math"
	"math/rand/v2"
)

// poisson draws a Poisson(lambda) count. Below ptrsMin it inverts the
// distribution function by sequential search (exact, about lambda steps);
// above, where that gets slow and exp(-lambda) heads for underflow, it
// uses Hörmann's transformed rejection with squeeze (PTRS, 1993), which
// needs about 1.1 pairs of uniforms whatever lambda is.
func poisson(rng *rand.Rand, lambda float64) int {
	if lambda <= 0 {
		return 0
	}
	if lambda < ptrsMin {
		u := rng.Float64()
		p := math.Exp(-lambda)
		cdf := p
		k := 0
		for u > cdf {
			k++
			p *= lambda / float64(k)
			cdf += p
			if p == 0 { // the tail is below float64's resolution
				break
			}
		}
		return k
	}
	slam := math.Sqrt(lambda)
	loglam := math.Log(lambda)
	b := 0.931 + 2.53*slam
	a := -0.059 + 0.02483*b
	invAlpha := 1.1239 + 1.1328/(b-3.4)
	vr := 0.9277 - 3.6224/(b-2)
	for {
		u := rng.Float64() - 0.5
		v := rng.Float64()
		us := 0.5 - math.Abs(u)
		k := math.Floor((2*a/us+b)*u + lambda + 0.43)
		if us >= 0.07 && v <= vr {
			return int(k)
		}
		if k < 0 || us < 0.013 && v > us {
			continue
		}
		lg, _ := math.Lgamma(k + 1)
		if math.Log(v)+math.Log(invAlpha)-math.Log(a/(us*us)+b) <= -lambda+k*loglam-lg {
			return int(k)
		}
	}
}

// ptrsMin is the rate from which poisson uses PTRS.
const ptrsMin = 12
