package sluice

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sluiceml/sluice/dataerr"
	"github.com/sluiceml/sluice/example"
	"github.com/sluiceml/sluice/tensor"
	"github.com/sluiceml/sluice/tfrecord"
)

// TestSparseFeatureIndexOutOfRange checks a SparseFeature whose index is
// outside its size. TensorFlow 2.21's parse_example passes it through
// (indices [[0,7]], dense shape [2,5]; [[0,-1]] likewise), and its
// tf.sparse.to_dense fails: "indices[0] = [0,7] is out of bounds: need 0
// <= index < [2,5]". sluice fails the batch with that text, naming the
// feature, the file and the record's offset; before, Batch.Dense put the
// value in the next record's row, or panicked with an index out of range
// (found by an audit, 2026-11-27).
func TestSparseFeatureIndexOutOfRange(t *testing.T) {
	tests := []struct {
		name      string
		index     int64
		batchSize int
		want      string
	}{
		{"past the size", 7, 2, `sp.tfrecord:37: feature "sp": record 1: indices[0] = [1,7] is out of bounds: need 0 <= index < [2,5]`},
		{"past the last row", 7, 1, `record 0: indices[0] = [0,7] is out of bounds: need 0 <= index < [1,5]`},
		{"the size", 5, 2, `indices[0] = [1,5] is out of bounds`},
		{"negative", -1, 2, `indices[0] = [1,-1] is out of bounds`},
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
			w.Write(example.New().Int64s("ix", nil).Floats("v", nil).Marshal())
			w.Write(example.New().Int64("ix", tt.index).Float("v", 42).Marshal())
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			f.Close()
			spec := example.Spec{"sp": example.SparseFeature([]string{"ix"}, "v", tensor.Float32, []int{5}, false)}
			var found error
			values := 0
			for b, err := range Examples(name, spec, Readers(1)).Batches(t.Context(), tt.batchSize) {
				if err != nil {
					found = err
					break
				}
				if b.Sparse("sp").NNZ() > 0 {
					values++
					if d := b.Dense("sp"); d.Float32s()[int(b.Sparse("sp").Indices.Int64s()[0])*5+int(tt.index)] != 42 {
						t.Errorf("Dense = %v, want 42 at [%d]", d, tt.index)
					}
				}
			}
			if tt.want == "" {
				if found != nil || values != 1 {
					t.Fatalf("error %v, %d batches with the value; want none and 1", found, values)
				}
				return
			}
			if !errors.Is(found, ErrSparseIndex) || !strings.Contains(found.Error(), tt.want) {
				t.Fatalf("error %v, want ErrSparseIndex with %q", found, tt.want)
			}
			de, ok := errors.AsType[*dataerr.Error](found)
			if !ok || de.File != name || de.Offset <= 0 {
				t.Errorf("error names %+v, want the file %s and the second record's offset", de, name)
			}
		})
	}
}
