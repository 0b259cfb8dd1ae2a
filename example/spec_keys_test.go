package example

import (
	"errors"
	"strings"
	"testing"

	"github.com/sluiceml/sluice/tensor"
)

// TestSpecKeyConflictNamesFeatures checks that a spec refused for its keys
// (the TensorFlow cases are in testdata/tfref.json) says which features
// read the key, so that the mistake can be found in a large spec.
func TestSpecKeyConflictNamesFeatures(t *testing.T) {
	sp := SparseFeature([]string{"ix"}, "v", tensor.Float32, []int{4}, false)
	for name, c := range map[string]struct {
		spec Spec
		want string
	}{
		"dense and sparse": {Spec{"sp": sp, "v": FixedLen(tensor.Float32)},
			`intersection: ["v"]; "v" is dense in feature "v" and sparse in feature "sp"`},
		"two dtypes": {Spec{"sp": sp, "v": VarLen(tensor.Int64)},
			`Conflicting type float32 vs int64 for feature "v" (read as float32 by feature "sp" and as int64 by feature "v")`},
	} {
		_, err := NewParser(c.spec)
		if !errors.Is(err, ErrInvalidSpec) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: NewParser: %v, want ErrInvalidSpec with %q", name, err, c.want)
		}
		if _, err := ParseSingle(nil, c.spec, "r"); !errors.Is(err, ErrInvalidSpec) {
			t.Errorf("%s: ParseSingle: %v, want ErrInvalidSpec", name, err)
		}
	}
}

// TestSparseCountMismatchNamesRecord covers CONFORMANCE.md's deliberate
// difference: a record whose SparseFeature index and value counts differ
// fails its batch, naming it, where TensorFlow misplaces the value.
func TestSparseCountMismatchNamesRecord(t *testing.T) {
	spec := Spec{"sp": SparseFeature([]string{"ix"}, "v", tensor.Float32, []int{4}, false)}
	recs := [][]byte{New().Floats("v", []float32{1}).Marshal(), New().Int64s("ix", []int64{3}).Marshal()}
	_, err := Parse(recs, spec, []string{"rec0", "rec1"})
	const want = "Name: rec0, Key: sp, Index: 0.  Number of elements in indices (0) and values (1) do not match"
	if !errors.Is(err, ErrValueCount) || !strings.Contains(err.Error(), want) {
		t.Fatalf("error %v, want ErrValueCount with %q", err, want)
	}
}
