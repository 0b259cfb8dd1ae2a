package example

import (
	"errors"
	"testing"

	"github.com/sluiceml/sluice/tensor"
)

// TestParseSingleInto: ParseSingleInto returns ParseSingle's Components,
// or its error, whatever dst holds: nothing, a fitting earlier output, or
// tensors of the wrong type or shape.
func TestParseSingleInto(t *testing.T) {
	mnist := Spec{"image": FixedLen(tensor.Float32, 2, 2), "label": FixedLen(tensor.Int64)}
	mixed := Spec{
		"a": FixedLen(tensor.Int64, 2).WithDefault(tensor.New([]int64{7, 8})),
		"b": FixedLen(tensor.String),
		"c": VarLen(tensor.Float32),
		"d": FixedLen(tensor.Float32).WithDefault(tensor.Scalar[float32](1.5)),
		"e": SparseFeature([]string{"ix"}, "ev", tensor.Int64, []int{10}, false),
		"f": FixedLenSequence(tensor.Float32, 2).AllowMissing(),
	}
	tests := []struct {
		name string
		spec Spec
		rec  []byte
		key  string
	}{
		{"dense", mnist, New().Floats("image", []float32{1, 2, 3, 4}).Int64("label", 3).Marshal(), "f:0"},
		{"dense no key", mnist, New().Floats("image", []float32{1, 2, 3, 4}).Int64("label", 3).Marshal(), ""},
		{"missing required", mnist, New().Floats("image", []float32{1, 2, 3, 4}).Marshal(), "f:1"},
		{"wrong count", mnist, New().Floats("image", []float32{1, 2, 3}).Int64("label", 3).Marshal(), "f:2"},
		{"wrong type", mnist, New().Floats("image", []float32{1, 2, 3, 4}).Float("label", 3).Marshal(), "f:3"},
		{"malformed", mnist, []byte{0x80}, "f:4"},
		{"mixed, all present", mixed, New().Int64("a", 1, 2).Strings("b", "x").Float("c", 1, 2, 3).Float("d", 4).
			Int64("ix", 5, 1).Int64("ev", 50, 10).Float("f", 1, 2, 3, 4).Marshal(), "g:0"},
		{"mixed, defaults", mixed, New().Strings("b", "y").Marshal(), "g:1"},
		{"mixed, string missing", mixed, New().Int64("a", 1, 2).Marshal(), "g:2"},
		{"mixed, bad sequence", mixed, New().Strings("b", "y").Float("f", 1, 2, 3).Marshal(), "g:3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := NewParser(tt.spec)
			if err != nil {
				t.Fatal(err)
			}
			want, wantErr := p.ParseSingle(tt.rec, tt.key)
			var wantComps []tensor.Tensor
			if wantErr == nil {
				wantComps = want.Components()
			}
			// A fitting dst: a parse of the same record. Wrong ones: a
			// dst of the wrong length, and one of the wrong dtypes and
			// shapes (every component a 3-vector of bools).
			var fitting []tensor.Tensor
			if wantErr == nil {
				fitting = cloneAll(wantComps)
			}
			wrong := make([]tensor.Tensor, len(wantComps))
			for i := range wrong {
				wrong[i] = tensor.New([]bool{true, false, true})
			}
			for _, dc := range []struct {
				name string
				dst  []tensor.Tensor
			}{{"nil", nil}, {"fitting", fitting}, {"wrong", wrong}, {"short", make([]tensor.Tensor, 1)}} {
				got, err := p.ParseSingleInto(dc.dst, tt.rec, tt.key)
				if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
					t.Fatalf("dst %s: error %v, want %v", dc.name, err, wantErr)
				}
				if err != nil {
					if !errors.Is(err, errors.Unwrap(errors.Unwrap(wantErr))) {
						t.Errorf("dst %s: %v does not match ParseSingle's sentinel", dc.name, err)
					}
					continue
				}
				if len(got) != len(wantComps) {
					t.Fatalf("dst %s: %d components, want %d", dc.name, len(got), len(wantComps))
				}
				for i := range got {
					if !tensor.Equal(got[i], wantComps[i]) {
						t.Errorf("dst %s: component %d = %v, want %v", dc.name, i, got[i], wantComps[i])
					}
				}
			}
		})
	}
}

func cloneAll(ts []tensor.Tensor) []tensor.Tensor {
	out := make([]tensor.Tensor, len(ts))
	for i, t := range ts {
		out[i] = t.Clone()
	}
	return out
}

// TestParseSingleIntoReuses: a fitting dst's numeric FixedLen tensors are
// written in place, and a parse of the MNIST shape then allocates nothing.
func TestParseSingleIntoReuses(t *testing.T) {
	spec := Spec{"image": FixedLen(tensor.Float32, 784), "label": FixedLen(tensor.Int64)}
	p, err := NewParser(spec)
	if err != nil {
		t.Fatal(err)
	}
	pix := make([]float32, 784)
	for i := range pix {
		pix[i] = float32(i)
	}
	rec1 := New().Floats("image", pix).Int64("label", 1).Marshal()
	pix[0] = -1
	rec2 := New().Floats("image", pix).Int64("label", 2).Marshal()
	dst, err := p.ParseSingleInto(nil, rec1, "k1")
	if err != nil {
		t.Fatal(err)
	}
	image, label := dst[0].Float32s(), dst[1].Int64s()
	got, err := p.ParseSingleInto(dst, rec2, "k2")
	if err != nil {
		t.Fatal(err)
	}
	if &got[0] != &dst[0] || &got[0].Float32s()[0] != &image[0] || &got[1].Int64s()[0] != &label[0] {
		t.Fatal("a fitting dst was not reused")
	}
	if image[0] != -1 || label[0] != 2 {
		t.Fatalf("dst holds image[0] %v, label %v; want -1, 2", image[0], label[0])
	}
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := p.ParseSingleInto(dst, rec1, "k1"); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("ParseSingleInto into a fitting dst: %v allocations, want 0", allocs)
	}
}
