package seqdemo

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/sluiceml/sluice/example"
	"github.com/sluiceml/sluice/recordio"
	"github.com/sluiceml/sluice/tfrecord"
)

// A Series is one generated AR(1) time series.
type Series struct {
	ID  int64
	Phi float32   // the true coefficient
	X   []float32 // the values, x[0] drawn from the stationary distribution
}

// Generate returns n series with φ uniform in (-0.95, 0.95) and lengths
// between minLen and maxLen, skewed towards short ones as real sequence
// data is (length = minLen + (maxLen-minLen)·u², u uniform), so that
// batching by length saves much padding.
func Generate(n, minLen, maxLen int, seed uint64) []Series {
	rng := rand.New(rand.NewPCG(seed, 0x5e9))
	out := make([]Series, n)
	for i := range out {
		phi := 0.95 * (2*rng.Float64() - 1)
		u := rng.Float64()
		l := minLen + int(float64(maxLen-minLen)*u*u)
		x := make([]float32, l)
		v := rng.NormFloat64() / math.Sqrt(1-phi*phi)
		for t := range x {
			if t > 0 {
				v = phi*v + rng.NormFloat64()
			}
			x[t] = float32(v)
		}
		out[i] = Series{ID: int64(i), Phi: float32(phi), X: x}
	}
	return out
}

// Feature names in the SequenceExamples Write produces.
const (
	featureID     = "id"     // context, int64
	featurePhi    = "phi"    // context, float: the true φ
	featureLength = "length" // context, int64
	featureX      = "x"      // feature list, one float per step
)

// Write writes the series as shards GZIP TFRecord files of
// SequenceExamples in dir, series i in file i mod shards, and returns their
// names.
func Write(ctx context.Context, dir string, series []Series, shards int) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	w, err := recordio.NewShardedWriter(ctx, recordio.ShardNames(filepath.Join(dir, "series"), shards, ".tfrecord.gz"), tfrecord.Gzip)
	if err != nil {
		return nil, err
	}
	b := example.NewSequence()
	var steps []example.Feature
	var buf []byte
	for i := range series {
		sr := &series[i]
		steps = steps[:0]
		for t := range sr.X {
			steps = append(steps, example.FloatList(sr.X[t:t+1]...))
		}
		b.Reset().
			Context(featureID, example.Int64List(sr.ID)).
			Context(featurePhi, example.FloatList(sr.Phi)).
			Context(featureLength, example.Int64List(int64(len(sr.X)))).
			List(featureX, steps...)
		buf = b.AppendMarshal(buf[:0])
		if err := w.Write(buf); err != nil {
			w.Abort()
			return nil, err
		}
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return w.Names(), nil
}
