package sluice

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sluiceml/sluice/dataerr"
	"github.com/sluiceml/sluice/example"
	"github.com/sluiceml/sluice/tensor"
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
			writeTFRecords(t, name, example.New().Int64s("ix", nil).Floats("v", nil).Marshal(),
				example.New().Int64("ix", tt.index).Float("v", 42).Marshal())
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

// A SparseFeature record that names one index twice fails its batch with
// tf.sparse.to_dense's text, sorted by the parser or not (already_sorted
// true); Batch.Dense kept one of the two values without a word (audit 79).
// Indices given out of order but each once are read, as the parser gives
// them.
func TestSparseFeatureRepeatedIndex(t *testing.T) {
	tests := []struct {
		name   string
		ix     []int64
		sorted bool // already_sorted
		want   string
		dense  []float32 // the second record's row, when there is no error
	}{
		{"repeated", []int64{1, 1}, false, `sp.tfrecord:46: feature "sp": record 1: indices[2] = [1,1] is repeated`, nil},
		{"repeated, sorted by the writer", []int64{1, 1}, true, `indices[2] = [1,1] is repeated`, nil},
		{"repeated apart, sorted by the parser", []int64{1, 3, 1}, false, `is repeated`, nil},
		{"repeated apart, said to be sorted", []int64{1, 3, 1}, true, `indices[3] = [1,1] is repeated`, nil},
		{"out of order, once each", []int64{3, 1, 4}, true, "", []float32{0, 20, 0, 10, 30}},
		{"in order", []int64{0, 2}, false, "", []float32{10, 0, 20, 0, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			values := make([]float32, len(tt.ix))
			for i := range values {
				values[i] = float32(10 * (i + 1))
			}
			name := filepath.Join(t.TempDir(), "sp.tfrecord")
			writeTFRecords(t, name, example.New().Int64s("ix", []int64{2}).Floats("v", []float32{5}).Marshal(),
				example.New().Int64s("ix", tt.ix).Floats("v", values).Marshal())
			spec := example.Spec{"sp": example.SparseFeature([]string{"ix"}, "v", tensor.Float32, []int{5}, tt.sorted)}
			var found error
			var row []float32
			for b, err := range Examples(name, spec, Readers(1)).Batches(t.Context(), 2) {
				if err != nil {
					found = err
					break
				}
				row = b.Dense("sp").Float32s()[5:]
			}
			if tt.want == "" {
				if found != nil || !slices.Equal(row, tt.dense) {
					t.Fatalf("error %v, row %v; want none and %v", found, row, tt.dense)
				}
				return
			}
			if !errors.Is(found, ErrSparseIndex) || !strings.Contains(found.Error(), tt.want) {
				t.Fatalf("error %v (row %v), want ErrSparseIndex with %q", found, row, tt.want)
			}
			if de, ok := errors.AsType[*dataerr.Error](found); !ok || de.File != name || de.Record != 1 {
				t.Errorf("error names %+v, want the file %s and record 1", de, name)
			}
		})
	}
}

// The first bad record is the one named: an unsorted record's repeat
// before the next record's index out of bounds (audit 81: record 1 was
// named, its bounds checked before record 0's repeats).
func TestSparseFeatureFirstBadRecordNamed(t *testing.T) {
	name := filepath.Join(t.TempDir(), "sp.tfrecord")
	writeTFRecords(t, name, example.New().Int64s("ix", []int64{3, 1, 3}).Floats("v", []float32{1, 2, 3}).Marshal(),
		example.New().Int64s("ix", []int64{9}).Floats("v", []float32{4}).Marshal())
	spec := example.Spec{"sp": example.SparseFeature([]string{"ix"}, "v", tensor.Float32, []int{5}, true)}
	var found error
	for _, err := range Examples(name, spec, Readers(1)).Batches(t.Context(), 2) {
		if err != nil {
			found = err
			break
		}
	}
	if !errors.Is(found, ErrSparseIndex) || !strings.Contains(found.Error(), "record 0: indices[2] = [0,3] is repeated") {
		t.Fatalf("error %v, want record 0's repeat", found)
	}
}

// checkSparseBounds on random batches against a plain reference: an error
// exactly when some record has an index out of bounds or twice, naming the
// first such record and an entry of it that is out of bounds or repeats an
// earlier one; rows small and large (the sort by the indices themselves).
func TestCheckSparseBoundsRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 81))
	for trial := range 20000 {
		rank := 2 + rng.IntN(3)
		shape := tensor.Shape{1 + rng.IntN(5)}
		for range rank - 1 {
			d := 1 + rng.IntN(4)
			if rng.IntN(10) == 0 {
				d = 1 << 40 // a row too large for one number an entry
			}
			shape = append(shape, d)
		}
		var idx []int64
		for r := range shape[0] {
			for range rng.IntN(6) {
				idx = append(idx, int64(r))
				for d := 1; d < rank; d++ {
					x := int64(rng.IntN(min(shape[d], 4)))
					if rng.IntN(40) == 0 {
						x = int64(shape[d]) // out of bounds
					}
					idx = append(idx, x)
				}
			}
		}
		nnz := len(idx) / rank
		s := tensor.Sparse{Indices: tensor.New(idx, nnz, rank), Values: tensor.Zeros(tensor.Float32, tensor.Shape{nnz}), DenseShape: shape}
		at := func(i int) []int64 { return idx[i*rank : (i+1)*rank] }
		bad := func(i int) (oob, repeated bool) {
			for d, x := range at(i) {
				oob = oob || x < 0 || x >= int64(shape[d])
			}
			for j := 0; j < i; j++ {
				repeated = repeated || slices.Equal(at(j), at(i))
			}
			return
		}
		firstBad := int64(-1)
		for i := range nnz {
			if oob, rep := bad(i); (oob || rep) && firstBad < 0 {
				firstBad = at(i)[0]
			}
		}
		err := checkSparseBounds("f", s, nil)
		de, _ := errors.AsType[*dataerr.Error](err)
		switch {
		case firstBad < 0 && err != nil:
			t.Fatalf("trial %d: %v for a good batch %v", trial, err, idx)
		case firstBad >= 0 && (de == nil || de.Record != firstBad):
			t.Fatalf("trial %d: %v, want record %d named, of %v in %v", trial, err, firstBad, idx, shape)
		case firstBad >= 0:
			var i int
			fmt.Sscanf(err.Error()[strings.Index(err.Error(), "indices[")+len("indices["):], "%d", &i)
			oob, rep := bad(i)
			if strings.Contains(err.Error(), "out of bounds") && !oob || strings.Contains(err.Error(), "is repeated") && !rep {
				t.Fatalf("trial %d: %v names entry %d, which is not so (%v in %v)", trial, err, i, idx, shape)
			}
		}
	}
}
