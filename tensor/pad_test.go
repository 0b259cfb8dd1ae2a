package tensor

import (
	"slices"
	"testing"
)

// poisoned returns a tensor of shape whose every value is 9 (or "x"), as
// a reused batch holds the values of the batch before.
func poisoned(d DType, shape Shape) Tensor {
	t := Zeros(d, shape)
	switch v := t.data.(type) {
	case []int32:
		for i := range v {
			v[i] = 9
		}
	case [][]byte:
		for i := range v {
			v[i] = []byte("x")
		}
	}
	return t
}

func TestReuse(t *testing.T) {
	big := poisoned(Int32, Shape{4, 5})
	bigData := &big.Int32s()[0]
	shrunk := Reuse(big, Int32, Shape{2, 3})
	tests := []struct {
		name  string
		t     Tensor
		dtype DType
		shape Shape
		same  bool // the result is t itself
		reuse bool // the result is over t's storage
	}{
		{"same shape", big, Int32, Shape{4, 5}, true, true},
		{"smaller", big, Int32, Shape{3, 2}, false, true},
		{"other rank", big, Int32, Shape{20}, false, true},
		{"regrown within capacity", shrunk, Int32, Shape{5, 4}, false, true},
		{"larger", big, Int32, Shape{4, 6}, false, false},
		{"other type", big, Int64, Shape{4, 5}, false, false},
		{"zero tensor", Tensor{}, Int32, Shape{2}, false, false},
		{"empty", big, Int32, Shape{0, 5}, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			shape := tt.shape.Clone()
			got := Reuse(tt.t, tt.dtype, shape)
			shape[0] = 99 // the result keeps no reference to the caller's shape
			if got.DType() != tt.dtype || !got.Shape().Equal(tt.shape) || got.Len() != tt.shape[0] {
				t.Fatalf("Reuse = %v %v, want %v %v", got.DType(), got.Shape(), tt.dtype, tt.shape)
			}
			if n := dataLen(got.data); n != tt.shape.NumElements() {
				t.Fatalf("%d values for shape %v", n, tt.shape)
			}
			if same := got.dtype == tt.t.dtype && got.Shape().Equal(tt.t.shape) && sameData(got, tt.t); same != tt.same {
				t.Errorf("result is t: %v, want %v", same, tt.same)
			}
			if tt.dtype == Int32 && tt.shape.NumElements() > 0 {
				if reused := &got.Int32s()[0] == bigData; reused != tt.reuse {
					t.Errorf("result over t's storage: %v, want %v", reused, tt.reuse)
				}
			}
			if !tt.reuse && tt.dtype == Int32 && slices.ContainsFunc(got.Int32s(), func(v int32) bool { return v != 0 }) {
				t.Errorf("new tensor not zero: %v", got)
			}
		})
	}
}

func dataLen(data any) int { _, n := dataInfo(data); return n }

func sameData(a, b Tensor) bool {
	if a.NumElements() == 0 || b.NumElements() == 0 || a.dtype != Int32 {
		return a.NumElements() == b.NumElements()
	}
	return &a.Int32s()[0] == &b.Int32s()[0]
}

// SetRowPadded and CopyRowsPadded write the whole row, padding included,
// over what it held.
func TestSetRowPadded(t *testing.T) {
	ints := New([]int32{1, 2, 3, 4, 5, 6}, 2, 3)
	tests := []struct {
		name      string
		dst       Tensor
		set       func(dst Tensor) error
		want      any
		wantError bool
	}{
		{"vector", poisoned(Int32, Shape{2, 4}),
			func(dst Tensor) error { return dst.SetRowPadded(1, New([]int32{1, 2})) },
			[]int32{9, 9, 9, 9, 1, 2, 0, 0}, false},
		{"full row", poisoned(Int32, Shape{1, 2}),
			func(dst Tensor) error { return dst.SetRowPadded(0, New([]int32{1, 2})) },
			[]int32{1, 2}, false},
		{"matrix", poisoned(Int32, Shape{1, 3, 4}),
			func(dst Tensor) error { return dst.SetRowPadded(0, ints) },
			[]int32{1, 2, 3, 0, 4, 5, 6, 0, 0, 0, 0, 0}, false},
		{"scalar rows", poisoned(Int32, Shape{2}),
			func(dst Tensor) error { return dst.SetRowPadded(1, Scalar[int32](5)) },
			[]int32{9, 5}, false},
		{"empty source", poisoned(Int32, Shape{1, 3}),
			func(dst Tensor) error { return dst.SetRowPadded(0, Zeros(Int32, Shape{0})) },
			[]int32{0, 0, 0}, false},
		{"strings", poisoned(String, Shape{2, 3}),
			func(dst Tensor) error { return dst.SetRowPadded(0, Strings("a")) },
			[]string{"a", "", "", "x", "x", "x"}, false},
		{"rows of a batch", poisoned(Int32, Shape{3, 3, 4}),
			func(dst Tensor) error { return dst.CopyRowsPadded(1, New([]int32{1, 2, 3, 4}, 2, 1, 2), 0, 2) },
			[]int32{9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 1, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, false},
		{"one row of a batch", poisoned(Int32, Shape{1, 4}),
			func(dst Tensor) error { return dst.CopyRowsPadded(0, ints, 1, 1) },
			[]int32{4, 5, 6, 0}, false},
		{"too large", poisoned(Int32, Shape{1, 2}),
			func(dst Tensor) error { return dst.SetRowPadded(0, New([]int32{1, 2, 3})) }, nil, true},
		{"other rank", poisoned(Int32, Shape{1, 6}),
			func(dst Tensor) error { return dst.SetRowPadded(0, ints) }, nil, true},
		{"other type", poisoned(Int32, Shape{1, 6}),
			func(dst Tensor) error { return dst.SetRowPadded(0, New([]int64{1})) }, nil, true},
		{"row out of range", poisoned(Int32, Shape{1, 6}),
			func(dst Tensor) error { return dst.SetRowPadded(1, New([]int32{1})) }, nil, true},
		{"rows out of range", poisoned(Int32, Shape{2, 6}),
			func(dst Tensor) error { return dst.CopyRowsPadded(1, ints, 0, 2) }, nil, true},
		{"batch row too large", poisoned(Int32, Shape{2, 2}),
			func(dst Tensor) error { return dst.CopyRowsPadded(0, ints, 0, 1) }, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.set(tt.dst)
			if (err != nil) != tt.wantError {
				t.Fatalf("error %v, want error %v", err, tt.wantError)
			}
			if err != nil {
				return
			}
			switch want := tt.want.(type) {
			case []int32:
				if !slices.Equal(tt.dst.Int32s(), want) {
					t.Errorf("values %v, want %v", tt.dst.Int32s(), want)
				}
			case []string:
				var got []string
				for _, s := range tt.dst.Strings() {
					got = append(got, string(s))
				}
				if !slices.Equal(got, want) {
					t.Errorf("values %q, want %q", got, want)
				}
			}
		})
	}
	dst := Zeros(Int32, Shape{2, 4})
	if n := testing.AllocsPerRun(10, func() {
		dst.SetRowPadded(0, ints.Row(0))
		dst.CopyRowsPadded(0, ints, 0, 2)
	}); n != 2 { // ints.Row's shape and values
		t.Errorf("%v allocations, want 2 (Row's)", n)
	}
}

// Reused for batch after batch of the same shapes, Reuse allocates
// nothing; for a new shape, its shape and values' header.
func TestReuseAllocs(t *testing.T) {
	tests := []struct {
		name   string
		shapes []Shape
		want   float64
	}{
		{"same shape", []Shape{{32, 50}}, 0},
		{"alternating shapes", []Shape{{32, 50}, {32, 40}}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := Zeros(Int32, tt.shapes[0])
			i := 0
			n := testing.AllocsPerRun(20, func() {
				i++
				b = Reuse(b, Int32, tt.shapes[i%len(tt.shapes)])
			})
			if n != tt.want {
				t.Errorf("%v allocations a batch, want %v", n, tt.want)
			}
		})
	}
}
