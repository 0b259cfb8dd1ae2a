package sluice

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sluiceml/sluice/example"
	"github.com/sluiceml/sluice/tensor"
	"github.com/sluiceml/sluice/tfrecord"
)

// TestSparseFeatureDenseOutOfRange checks a SparseFeature whose index is
// outside its size. TensorFlow 2.21's parse_example passes it through
// (indices [[0,7]], dense shape [2,5]; [[0,-1]] likewise), and its
// tf.sparse.to_dense fails: "indices[0] = [0,7] is out of bounds: need 0
// <= index < [2,5]". The batch is parsed likewise, and Dense, which has no
// error to return, panics with that text, naming the feature and the
// record, where it put the value in the next record's row, or panicked
// with an index out of range (found by an audit, 2026-11-27).
func TestSparseFeatureDenseOutOfRange(t *testing.T) {
	tests := []struct {
		name      string
		index     int64
		batchSize int
		want      string
	}{
		{"past the size", 7, 2, `feature "sp": record 0: indices[0] = [0,7] is out of bounds: need 0 <= index < [2,5]`},
		{"past the last row", 7, 1, `indices[0] = [0,7] is out of bounds: need 0 <= index < [1,5]`},
		{"the size", 5, 2, `indices[0] = [0,5] is out of bounds`},
		{"negative", -1, 2, `indices[0] = [0,-1] is out of bounds`},
		{"in range", 4, 2, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := filepath.Join(t.TempDir(), "sp.tfrecord")
			f, err := os.Create(name)
			if err != nil {
				t.Fatal(err)
			}
			w := tfrecord.NewWriter(f)
			w.Write(example.New().Int64("ix", tt.index).Float("v", 42).Marshal())
			w.Write(example.New().Int64s("ix", nil).Floats("v", nil).Marshal())
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			f.Close()
			spec := example.Spec{"sp": example.SparseFeature([]string{"ix"}, "v", tensor.Float32, []int{5}, false)}
			batches := 0
			for b, err := range Examples(name, spec, Readers(1)).Batches(t.Context(), tt.batchSize) {
				if err != nil {
					t.Fatalf("batch: %v", err)
				}
				batches++
				if b.Sparse("sp").NNZ() == 0 {
					continue
				}
				if got := b.Sparse("sp").Indices.Int64s(); got[1] != tt.index {
					t.Errorf("sparse indices %v, want the data's [0 %d]", got, tt.index)
				}
				var p any
				var d tensor.Tensor
				func() {
					defer func() { p = recover() }()
					d = b.Dense("sp")
				}()
				if tt.want == "" {
					if p != nil || d.Float32s()[tt.index] != 42 {
						t.Errorf("Dense = %v, panic %v", d, p)
					}
					continue
				}
				if msg, _ := p.(string); !strings.Contains(msg, tt.want) {
					t.Errorf("Dense panicked with %v, want a message containing %q", p, tt.want)
				}
			}
			if batches == 0 {
				t.Fatal("no batches")
			}
		})
	}
}
