package sample

import (
	"encoding/json"
	"math"
	"os"
	"testing"
)

// RE-05, RE-08: WeightedResampler's running mean against TensorFlow's
// zero-debiased assign_moving_average, the mean weighted_resample keeps
// (sample/testdata/moving_average_tf.json, from tools/tfref/sample.py).
// TensorFlow computes decay^k in float32, hence the relative tolerance.
func TestWeightedResamplerMeanTF(t *testing.T) {
	data, err := os.ReadFile("testdata/moving_average_tf.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Cases []struct {
			Decay        float64   `json:"decay"`
			BatchMeans   []float64 `json:"batch_means"`
			RunningMeans []float64 `json:"running_means"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(data, &ref); err != nil {
		t.Fatal(err)
	}
	if len(ref.Cases) == 0 {
		t.Fatal("no cases")
	}
	for _, c := range ref.Cases {
		w, err := NewWeightedResampler(1, c.Decay, nil)
		if err != nil {
			t.Fatal(err)
		}
		for k, m := range c.BatchMeans {
			// A batch of two weights whose mean is m.
			if _, err := w.Rates([]float64{m / 2, 3 * m / 2}); err != nil {
				t.Fatal(err)
			}
			if want := c.RunningMeans[k]; math.Abs(w.Mean()-want) > 1e-7*want {
				t.Errorf("decay %v, call %d: mean %v, TensorFlow %v", c.Decay, k+1, w.Mean(), want)
			}
		}
	}
}
