package example

import (
	"errors"
	"testing"

	"github.com/sluiceml/sluice/tensor"
)

// TestDeviationsFromTensorFlow checks sluice's behaviour on the reference
// cases where it deliberately differs from TensorFlow 2.21 (their notes in
// testdata/tfref.json say how). In most, TensorFlow's fast parser (or its
// SequenceExample parser) departs from protobuf's semantics for the same
// bytes; sluice follows protobuf, which is also what TensorFlow's own
// proto library would decode.
func TestDeviationsFromTensorFlow(t *testing.T) {
	f32 := func(v []float32, dims ...int) tensor.Tensor { return tensor.New(v, dims...) }
	i64 := func(v []int64, dims ...int) tensor.Tensor { return tensor.New(v, dims...) }
	dense := map[string]map[string]tensor.Tensor{
		// DECODERS.md: "The default may be a scalar (broadcast)".
		"default_scalar_broadcast":       {"x": f32([]float32{1.5, 1.5}, 1, 2)},
		"empty_packed_then_unpacked":     {"i": i64([]int64{7}, 1)},
		"mixed_packed_unpacked":          {"f": f32([]float32{1, 2}, 1, 2), "i": i64([]int64{5, 7}, 1, 2)},
		"unknown_field_in_map_entry":     {"f": f32([]float32{1, 2}, 1, 2), "i": i64([]int64{7}, 1)},
		"unknown_field_in_features":      {"f": f32([]float32{1, 2}, 1, 2), "i": i64([]int64{7}, 1)},
		"feature_oneof_last_wins":        {"i": i64([]int64{7}, 1)},
		"feature_oneof_same_kind_merges": {"f": f32([]float32{1, 2}, 1, 2)},
		// Unknown fields inside a Feature or its list (CONFORMANCE.md).
		"unknown_field_before_feature_values":    {"i": i64([]int64{7}, 1)},
		"unknown_field_before_int64_list_values": {"i": i64([]int64{7}, 1)},
		"unknown_field_in_bytes_list":            {"s": tensor.New([][]byte{[]byte("ab")}, 1)},
		"seq_value_before_key":                   {"c": tensor.Scalar(int64(7))},
	}
	// Feature-list outputs of SequenceExample cases.
	lists := map[string]map[string]tensor.Tensor{
		"seq_unknown_field_in_feature_list": {"l": i64([]int64{7}, 1)},
		"seq_mixed_packed_unpacked_list":    {"l": i64([]int64{7, 8}, 1, 2)},
	}
	errs := map[string]error{
		"packed_float_not_multiple_of_4": ErrMalformed,
		"seq_context_missing":            ErrMissing,
		"seq_context_dtype":              ErrDTypeMismatch,
		// CONFORMANCE.md: a SparseFeature's counts are checked per record.
		"sparse_count_mismatch_equal_totals": ErrValueCount,
		"sparse_count_mismatch":              ErrValueCount,
	}
	seen := 0
	for _, c := range loadRef(t).Cases {
		if len(c.Note) < 9 || c.Note[:9] != "deviation" {
			continue
		}
		seen++
		for _, reference := range []bool{false, true} {
			got, gotLists, err := runCase(t, c, reference)
			if want, ok := errs[c.Name]; ok {
				if !errors.Is(err, want) {
					t.Errorf("%s (reference %v): error %v, want %v", c.Name, reference, err, want)
				}
				continue
			}
			want, ok := dense[c.Name]
			if w, isList := lists[c.Name]; isList {
				want, ok, got = w, true, gotLists
			}
			if !ok {
				t.Errorf("%s: deviation case without an expectation here", c.Name)
				continue
			}
			if err != nil {
				t.Errorf("%s (reference %v): %v", c.Name, reference, err)
				continue
			}
			for name, w := range want {
				if d, _ := got.Dense(name); !tensor.Equal(d, w) {
					t.Errorf("%s (reference %v): %s = %v, want %v", c.Name, reference, name, d, w)
				}
			}
		}
	}
	if seen != len(dense)+len(lists)+len(errs) {
		t.Errorf("%d deviation cases in testdata, %d expectations here", seen, len(dense)+len(lists)+len(errs))
	}
}
