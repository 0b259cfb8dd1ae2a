package example

import (
	"slices"
	"testing"

	"github.com/sluiceml/sluice/tensor"
)

// TestFixedLenSequenceLengths checks the step counts Parser.Parse gives a
// FixedLenSequence feature of Examples, which TensorFlow's parse_example
// does not (its padded dense output, EX-FLS, is unchanged): a record's
// values over the step's size, none when the feature is missing or empty,
// with a fresh parser and with one reusing its outputs; and none from
// ParseSingle, whose steps are its tensor's first dimension.
func TestFixedLenSequenceLengths(t *testing.T) {
	spec := Spec{
		"xy":  FixedLenSequence(tensor.Float32, 2).AllowMissing(),
		"tok": FixedLenSequence(tensor.Int64).AllowMissing().WithDefault(tensor.Scalar(int64(-1))),
		"s":   FixedLenSequence(tensor.String).AllowMissing(),
		"id":  FixedLen(tensor.Int64),
	}
	rec := func(xy []float32, tok []int64, s ...string) []byte {
		b := New().Int64("id", 1)
		if xy != nil {
			b.Floats("xy", xy)
		}
		if tok != nil {
			b.Int64s("tok", tok)
		}
		if s != nil {
			b.Strings("s", s...)
		}
		return b.Marshal()
	}
	tests := []struct {
		name                string
		recs                [][]byte
		wantXY, wantT, want []int64
	}{
		{"varied", [][]byte{rec([]float32{1, 2, 3, 4}, []int64{5}, "a", "b", "c"), rec([]float32{5, 6}, []int64{1, 2, 3}), rec(nil, nil, "d")},
			[]int64{2, 1, 0}, []int64{1, 3, 0}, []int64{3, 0, 1}},
		{"empty lists", [][]byte{rec([]float32{}, []int64{}), rec([]float32{7, 8}, nil)},
			[]int64{0, 1}, []int64{0, 0}, []int64{0, 0}},
		{"one record", [][]byte{rec([]float32{1, 2, 3, 4, 5, 6}, []int64{9, 9})},
			[]int64{3}, []int64{2}, []int64{0}},
		{"all missing", [][]byte{rec(nil, nil), rec(nil, nil)},
			[]int64{0, 0}, []int64{0, 0}, []int64{0, 0}},
	}
	fresh, _ := NewParser(spec)
	reusing, _ := NewParser(spec)
	reusing.ReuseOutputs()
	for _, tt := range tests {
		for _, p := range []struct {
			name string
			p    *Parser
		}{{"fresh", fresh}, {"reusing", reusing}} {
			out, err := p.p.Parse(tt.recs, nil)
			if err != nil {
				t.Fatalf("%s/%s: %v", tt.name, p.name, err)
			}
			for name, want := range map[string][]int64{"xy": tt.wantXY, "tok": tt.wantT, "s": tt.want} {
				got, ok := out.Lengths(name)
				if !ok || !slices.Equal(got.Int64s(), want) {
					t.Errorf("%s/%s: Lengths(%s) = %v, %v, want %v", tt.name, p.name, name, got, ok, want)
				}
				// The dense tensor is padded to the longest record.
				if d, _ := out.Dense(name); d.Shape()[1] != int(slices.Max(want)) {
					t.Errorf("%s/%s: Dense(%s) shape %v, want %d steps", tt.name, p.name, name, d.Shape(), slices.Max(want))
				}
			}
			if _, ok := out.Lengths("id"); ok {
				t.Errorf("%s/%s: a FixedLen feature has Lengths", tt.name, p.name)
			}
		}
	}
	single, err := fresh.ParseSingle(tests[0].recs[0], "k")
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := single.Lengths("xy"); ok {
		t.Errorf("ParseSingle: Lengths(xy) = %v, want none", got)
	}
}
