package tensor

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

func TestNewShapesAndAccessors(t *testing.T) {
	x := New([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	if x.DType() != Float32 || !x.Shape().Equal(Shape{2, 3}) || x.NumElements() != 6 || x.Len() != 2 {
		t.Fatalf("got %v", x)
	}
	v := New([]int64{7, 8, 9})
	if !v.Shape().Equal(Shape{3}) {
		t.Fatalf("vector shape %v", v.Shape())
	}
	s := Scalar(int32(5))
	if s.Rank() != 0 || s.NumElements() != 1 || s.Int32s()[0] != 5 {
		t.Fatalf("scalar %v", s)
	}
	if got := StringScalar("ab").Strings()[0]; string(got) != "ab" {
		t.Fatalf("string scalar %q", got)
	}
	row := x.Row(1)
	if !Equal(row, New([]float32{4, 5, 6})) {
		t.Fatalf("row = %v", row)
	}
	row.Float32s()[0] = 40 // rows share storage
	if x.Float32s()[3] != 40 {
		t.Fatal("Row does not share storage")
	}
	if sl := x.Slice(0, 1); !sl.Shape().Equal(Shape{1, 3}) {
		t.Fatalf("slice shape %v", sl.Shape())
	}
}

func TestNewPanicsOnSizeMismatch(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("New with a wrong shape did not panic")
		}
	}()
	New([]float32{1, 2, 3}, 2, 2)
}

func TestDTypeOfEveryElem(t *testing.T) {
	cases := []struct {
		got, want DType
	}{
		{DTypeOf[bool](), Bool}, {DTypeOf[int8](), Int8}, {DTypeOf[int16](), Int16},
		{DTypeOf[int32](), Int32}, {DTypeOf[int64](), Int64}, {DTypeOf[uint8](), Uint8},
		{DTypeOf[uint16](), Uint16}, {DTypeOf[uint32](), Uint32}, {DTypeOf[uint64](), Uint64},
		{DTypeOf[Half](), Float16}, {DTypeOf[float32](), Float32}, {DTypeOf[float64](), Float64},
		{DTypeOf[complex64](), Complex64}, {DTypeOf[complex128](), Complex128}, {DTypeOf[[]byte](), String},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("DTypeOf = %v, want %v", c.got, c.want)
		}
		z := Zeros(c.want, Shape{2, 2})
		if z.DType() != c.want || z.NumElements() != 4 {
			t.Errorf("Zeros(%v) = %v", c.want, z)
		}
		if d, n := dataInfo(z.Data()); d != c.want || n != 4 {
			t.Errorf("dataInfo(%v) = %v, %d", c.want, d, n)
		}
		if !Equal(z.Clone(), z) {
			t.Errorf("Clone(%v) differs", c.want)
		}
		p, err := ParseDType(c.want.String())
		if err != nil || p != c.want {
			t.Errorf("ParseDType(%q) = %v, %v", c.want.String(), p, err)
		}
		p, err = ParseDType(c.want.TFName())
		if err != nil || p != c.want {
			t.Errorf("ParseDType(%q) = %v, %v", c.want.TFName(), p, err)
		}
	}
	if _, err := ParseDType("quaternion"); err == nil {
		t.Error("ParseDType accepted an unknown name")
	}
	if Float32.TFName() != "float" || Float64.TFName() != "double" || Float16.TFName() != "half" {
		t.Error("TF names wrong")
	}
}

func TestShapeString(t *testing.T) {
	cases := []struct {
		s    Shape
		want string
	}{
		{Shape{}, "[]"}, {Shape{3}, "[3]"}, {Shape{Unknown, 3}, "[?,3]"}, {Shape{2, Unknown, 3}, "[2,?,3]"},
	}
	for _, c := range cases {
		if got := c.s.String(); got != c.want {
			t.Errorf("%v.String() = %q, want %q", []int(c.s), got, c.want)
		}
	}
	if !(Shape{Unknown, 3}).IsCompatibleWith(Shape{4, 3}) || (Shape{Unknown, 3}).IsCompatibleWith(Shape{3, 4}) {
		t.Error("IsCompatibleWith wrong")
	}
	if (Shape{2, Unknown}).NumElements() != -1 || (Shape{}).NumElements() != 1 {
		t.Error("NumElements wrong")
	}
}

func TestStackConcat(t *testing.T) {
	a := New([]int32{1, 2}, 2)
	b := New([]int32{3, 4}, 2)
	s, err := Stack([]Tensor{a, b})
	if err != nil || !Equal(s, New([]int32{1, 2, 3, 4}, 2, 2)) {
		t.Fatalf("Stack = %v, %v", s, err)
	}
	c, err := Concat([]Tensor{s, New([]int32{5, 6}, 1, 2)})
	if err != nil || !Equal(c, New([]int32{1, 2, 3, 4, 5, 6}, 3, 2)) {
		t.Fatalf("Concat = %v, %v", c, err)
	}
	if _, err := Stack([]Tensor{a, New([]int32{1, 2, 3})}); err == nil {
		t.Error("Stack of different shapes succeeded")
	}
	if _, err := Stack([]Tensor{a, New([]int64{1, 2})}); err == nil {
		t.Error("Stack of different dtypes succeeded")
	}
	if _, err := Concat([]Tensor{Scalar(int32(1))}); err == nil {
		t.Error("Concat of scalars succeeded")
	}
	if _, err := Concat([]Tensor{New([]int32{1, 2}, 1, 2), New([]int32{1, 2, 3}, 1, 3)}); err == nil {
		t.Error("Concat of different row shapes succeeded")
	}
}

// PAD-03: padding to the largest size of each dimension in the batch, with
// zeros and empty strings.
func TestStackPadded(t *testing.T) {
	strs := []Tensor{Strings("a"), Strings("ab"), Strings("abc", "d")}
	got, err := StackPadded(strs)
	if err != nil {
		t.Fatal(err)
	}
	want := New([][]byte{[]byte("a"), {}, []byte("ab"), {}, []byte("abc"), []byte("d")}, 3, 2)
	if !Equal(got, want) {
		t.Fatalf("StackPadded strings = %v", got)
	}
	ints := []Tensor{New([]int32{1}, 1, 1), New([]int32{1, 2, 3}, 1, 3), New([]int32{1, 2}, 1, 2)}
	got, err = StackPadded(ints)
	if err != nil {
		t.Fatal(err)
	}
	if !Equal(got, New([]int32{1, 0, 0, 1, 2, 3, 1, 2, 0}, 3, 1, 3)) {
		t.Fatalf("StackPadded ints = %v", got)
	}
	p, err := PadTo(New([]float32{1, 2, 3, 4}, 2, 2), Shape{3, 3})
	if err != nil || !Equal(p, New([]float32{1, 2, 0, 3, 4, 0, 0, 0, 0}, 3, 3)) {
		t.Fatalf("PadTo = %v, %v", p, err)
	}
	if _, err := PadTo(New([]float32{1, 2}, 2), Shape{1}); err == nil {
		t.Error("PadTo to a smaller shape succeeded")
	}
	if _, err := StackPadded([]Tensor{New([]int32{1}, 1), New([]int32{1}, 1, 1)}); err == nil {
		t.Error("StackPadded of different ranks succeeded")
	}
}

// BAT-03: sparse tensors are batched by prepending the batch index.
func TestStackSparse(t *testing.T) {
	mk := func(x int64) Sparse {
		return Sparse{Indices: New([]int64{0, 1}, 2, 1), Values: New([]int64{x, -x}), DenseShape: Shape{2}}
	}
	got, err := StackSparse([]Sparse{mk(1), mk(2)})
	if err != nil {
		t.Fatal(err)
	}
	if !Equal(got.Indices, New([]int64{0, 0, 0, 1, 1, 0, 1, 1}, 4, 2)) ||
		!Equal(got.Values, New([]int64{1, -1, 2, -2})) || !got.DenseShape.Equal(Shape{2, 2}) {
		t.Fatalf("StackSparse = %+v", got)
	}
	bad := Sparse{Indices: New([]int64{0}, 1, 1), Values: New([]int64{1, 2}), DenseShape: Shape{2}}
	if _, err := StackSparse([]Sparse{bad}); err == nil {
		t.Error("StackSparse accepted mismatched indices and values")
	}
	// Each element's shape is valid, the batch's overflows (audit 82:
	// returned, which its own Validate refused).
	huge := Sparse{Indices: New([]int64{0}, 1, 1), Values: New([]int64{1}), DenseShape: Shape{math.MaxInt64 / 2}}
	if _, err := StackSparse([]Sparse{huge, huge, huge, huge}); err == nil || !strings.Contains(err.Error(), "overflow") {
		t.Errorf("StackSparse of a batch whose dense shape overflows: %v", err)
	}
}

func TestHalfConversion(t *testing.T) {
	cases := []struct {
		f    float32
		bits uint16
	}{
		{0, 0}, {1, 0x3c00}, {-2, 0xc000}, {65504, 0x7bff}, {float32(math.Inf(1)), 0x7c00},
		{6.1035156e-05, 0x0400}, {5.9604645e-08, 0x0001}, {1e6, 0x7c00},
	}
	for _, c := range cases {
		if got := NewHalf(c.f); uint16(got) != c.bits {
			t.Errorf("NewHalf(%v) = %#04x, want %#04x", c.f, uint16(got), c.bits)
		}
		if c.f <= 65504 {
			if got := Half(c.bits).Float32(); got != c.f {
				t.Errorf("Half(%#04x).Float32() = %v, want %v", c.bits, got, c.f)
			}
		}
	}
	if !math.IsNaN(float64(NewHalf(float32(math.NaN())).Float32())) {
		t.Error("NaN not preserved")
	}
	// Every finite half converts to float32 and back unchanged.
	for b := 0; b < 0x10000; b++ {
		h := Half(b)
		if b&0x7c00 == 0x7c00 {
			continue
		}
		if got := NewHalf(h.Float32()); got != h {
			t.Fatalf("round trip %#04x -> %v -> %#04x", b, h.Float32(), uint16(got))
		}
	}
}

func TestFromDataAndReshape(t *testing.T) {
	x, err := FromData([]uint16{1, 2, 3, 4}, Shape{2, 2})
	if err != nil || x.DType() != Uint16 {
		t.Fatalf("FromData = %v, %v", x, err)
	}
	if _, err := FromData([]string{"a"}, Shape{1}); err == nil {
		t.Error("FromData accepted []string")
	}
	if _, err := FromData([]int8{1, 2}, Shape{3}); err == nil {
		t.Error("FromData accepted a wrong shape")
	}
	r, err := x.Reshape(Shape{4})
	if err != nil || !Equal(r, New([]uint16{1, 2, 3, 4})) {
		t.Fatalf("Reshape = %v, %v", r, err)
	}
	if _, err := x.Reshape(Shape{3}); err == nil {
		t.Error("Reshape to a wrong size succeeded")
	}
}

func BenchmarkStackInto128x784(b *testing.B) {
	rows := make([]Tensor, 128)
	for i := range rows {
		rows[i] = Zeros(Float32, Shape{784})
	}
	dst := Zeros(Float32, Shape{128, 784})
	b.SetBytes(128 * 784 * 4)
	b.ReportAllocs()
	for b.Loop() {
		if err := StackInto(dst, rows); err != nil {
			b.Fatal(err)
		}
	}
}

// Shapes from outside (specs, flags, files) can ask for more elements than
// an int holds; the count must say so, not wrap around: [4, 2^62] used to
// count 0 elements, so an empty tensor reshaped to it.
func TestCheckedNumElements(t *testing.T) {
	tests := []struct {
		s    Shape
		want int
		err  error // nil, ErrTooManyElements, or errUnknown
	}{
		{Shape{}, 1, nil},
		{Shape{2, 3}, 6, nil},
		{Shape{1 << 40}, 1 << 40, nil},
		{Shape{1 << 24, 1 << 24}, 1 << 48, nil},
		{Shape{1 << 24, 1 << 25}, 0, ErrTooManyElements},
		{Shape{3, 1 << 62}, 0, ErrTooManyElements},
		{Shape{4, 1 << 62}, 0, ErrTooManyElements},
		{Shape{1 << 62, 1 << 62, 1 << 62}, 0, ErrTooManyElements},
		{Shape{1 << 62, 4, 0}, 0, nil},
		{Shape{0, 1 << 62, 4}, 0, nil},
		{Shape{2, Unknown}, 0, errUnknown},
	}
	for _, tc := range tests {
		n, err := tc.s.CheckedNumElements()
		switch {
		case tc.err == nil && (err != nil || n != tc.want):
			t.Errorf("%v: %d, %v; want %d", tc.s, n, err, tc.want)
		case tc.err == ErrTooManyElements && !errors.Is(err, ErrTooManyElements):
			t.Errorf("%v: %d, %v; want ErrTooManyElements", tc.s, n, err)
		case tc.err == errUnknown && (err == nil || errors.Is(err, ErrTooManyElements)):
			t.Errorf("%v: %d, %v; want an unknown-dimension error", tc.s, n, err)
		}
		if want := map[bool]int{true: tc.want, false: -1}[tc.err == nil]; tc.s.NumElements() != want {
			t.Errorf("%v.NumElements() = %d, want %d", tc.s, tc.s.NumElements(), want)
		}
	}
	if _, err := New([]int64{}, 0).Reshape(Shape{4, 1 << 62}); err == nil {
		t.Error("an empty tensor reshaped to [4, 2^62]")
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "too many elements") {
			t.Errorf("Zeros([3, 2^62]): panic %v, want one saying too many elements", r)
		}
	}()
	Zeros(Float32, Shape{3, 1 << 62})
}

var errUnknown = errors.New("unknown dimension")

func TestCopyRows(t *testing.T) {
	src := New([]int32{0, 1, 2, 3, 4, 5, 6, 7}, 4, 2)
	tests := []struct {
		name      string
		dst       Tensor
		i, si, n  int
		want      []int32
		wantError bool
	}{
		{"all", Zeros(Int32, Shape{4, 2}), 0, 0, 4, []int32{0, 1, 2, 3, 4, 5, 6, 7}, false},
		{"middle", Zeros(Int32, Shape{3, 2}), 1, 2, 2, []int32{0, 0, 4, 5, 6, 7}, false},
		{"none", Zeros(Int32, Shape{1, 2}), 1, 4, 0, []int32{0, 0}, false},
		{"past dst", Zeros(Int32, Shape{2, 2}), 1, 0, 2, nil, true},
		{"past src", Zeros(Int32, Shape{4, 2}), 0, 3, 2, nil, true},
		{"negative", Zeros(Int32, Shape{4, 2}), -1, 0, 1, nil, true},
		{"row shape", Zeros(Int32, Shape{4, 3}), 0, 0, 1, nil, true},
		{"dtype", Zeros(Int64, Shape{4, 2}), 0, 0, 1, nil, true},
		{"scalar", Scalar[int32](1), 0, 0, 0, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.dst.CopyRows(tt.i, src, tt.si, tt.n)
			if (err != nil) != tt.wantError {
				t.Fatalf("CopyRows: error %v, want error %v", err, tt.wantError)
			}
			if err == nil && !slices.Equal(tt.dst.Int32s(), tt.want) {
				t.Errorf("rows %v, want %v", tt.dst.Int32s(), tt.want)
			}
		})
	}
	dst := Zeros(Int32, Shape{4, 2})
	if n := testing.AllocsPerRun(10, func() { dst.CopyRows(0, src, 0, 4) }); n != 0 {
		t.Errorf("CopyRows: %v allocations, want 0", n)
	}
}
