package tensor_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/sluiceml/sluice/tensor"
)

// TestAllocErrors checks that the batching functions, which return errors,
// return one rather than panic for a result no machine holds or a zero
// Tensor. PaddingFIFOQueue's dequeue_many fails with ResourceExhausted
// (not a crash) for the padded batch of [1<<30,0] and [0,1<<30] (PAD-03).
func TestAllocErrors(t *testing.T) {
	huge := tensor.Shape{1 << 30, 1 << 30}
	tests := []struct {
		name    string
		f       func() (tensor.Tensor, error)
		tooMany bool // the error wraps ErrTooManyElements
	}{
		{"StackPadded crossed empties", func() (tensor.Tensor, error) {
			return tensor.StackPadded([]tensor.Tensor{
				tensor.New([]float32{}, 1<<30, 0),
				tensor.New([]float32{}, 0, 1<<30),
			})
		}, true},
		{"StackPadded above 2^48 bytes", func() (tensor.Tensor, error) {
			// 2^47 elements of 4 bytes: fewer than MaxElements, but
			// more bytes than make allows.
			return tensor.StackPadded([]tensor.Tensor{
				tensor.New([]float32{}, 1<<24, 0),
				tensor.New([]float32{}, 0, 1<<23),
			})
		}, true},
		{"PadTo", func() (tensor.Tensor, error) {
			return tensor.PadTo(tensor.New([]float32{1}, 1, 1), huge)
		}, true},
		{"Stack zero Tensor", func() (tensor.Tensor, error) {
			return tensor.Stack([]tensor.Tensor{{}})
		}, false},
		{"StackPadded zero Tensor", func() (tensor.Tensor, error) {
			return tensor.StackPadded([]tensor.Tensor{{}})
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			func() {
				defer func() {
					if p := recover(); p != nil {
						t.Fatalf("panicked: %v", p)
					}
				}()
				_, err = tt.f()
			}()
			if err == nil {
				t.Fatal("no error")
			}
			if got := errors.Is(err, tensor.ErrTooManyElements); got != tt.tooMany {
				t.Errorf("errors.Is(%v, ErrTooManyElements) = %v, want %v", err, got, tt.tooMany)
			}
		})
	}
}

// TestConcatShapeMessage checks the row shape in Concat's error, written
// as TensorFlow writes a shape with an unknown first dimension.
func TestConcatShapeMessage(t *testing.T) {
	tests := []struct {
		a, b tensor.Tensor
		want string
	}{
		{tensor.New([]float32{1, 2, 3, 4, 5, 6}, 2, 3), tensor.New([]float32{1, 2}, 1, 2), "want [?,3]"},
		{tensor.New([]float32{1, 2, 3, 4}, 1, 2, 2), tensor.New([]float32{1, 2}, 1, 2), "want [?,2,2]"},
		{tensor.New([]float32{1, 2}), tensor.New([]float32{1, 2}, 1, 2), "want [?]"},
	}
	for _, tt := range tests {
		_, err := tensor.Concat([]tensor.Tensor{tt.a, tt.b})
		if err == nil || !strings.HasSuffix(err.Error(), tt.want) {
			t.Errorf("Concat(%v, %v) error %v, want one ending %q", tt.a.Shape(), tt.b.Shape(), err, tt.want)
		}
	}
}

// TestEqualFloat16 checks that Equal compares float16 values with == as
// its doc says and as it does float32 ones: NaN unequal, -0 equal to +0.
func TestEqualFloat16(t *testing.T) {
	half := func(f float64) tensor.Tensor { return tensor.New([]tensor.Half{tensor.NewHalf(float32(f))}) }
	f32 := func(f float64) tensor.Tensor { return tensor.New([]float32{float32(f)}) }
	negZero := math.Copysign(0, -1)
	tests := []struct {
		name string
		a, b float64
		want bool
	}{
		{"NaN", math.NaN(), math.NaN(), false},
		{"zeros", 0, negZero, true},
		{"one", 1, 1, true},
		{"different", 1, 2, false},
	}
	for _, tt := range tests {
		if got := tensor.Equal(half(tt.a), half(tt.b)); got != tt.want {
			t.Errorf("%s: Equal(float16 %v, %v) = %v, want %v", tt.name, tt.a, tt.b, got, tt.want)
		}
		if got := tensor.Equal(f32(tt.a), f32(tt.b)); got != tt.want {
			t.Errorf("%s: Equal(float32 %v, %v) = %v, want %v", tt.name, tt.a, tt.b, got, tt.want)
		}
	}
}

// TestSparseValidateDenseShape checks Validate against TensorFlow's
// AddSparseToTensorsMap, which refuses a negative dimension ("Dimension -3
// must be >= 0") and a shape whose product overflows int64, and accepts a
// dense shape far above MaxElements and an index outside the shape.
func TestSparseValidateDenseShape(t *testing.T) {
	one := func(idx []int64, dense ...int) tensor.Sparse {
		return tensor.Sparse{
			Indices:    tensor.New(idx, 1, len(idx)),
			Values:     tensor.New([]float32{1}),
			DenseShape: dense,
		}
	}
	tests := []struct {
		name string
		s    tensor.Sparse
		want string // "" for no error
	}{
		{"negative", one([]int64{0, 5}, 1, -3), "Dimension -3 must be >= 0"},
		{"overflow", one([]int64{0, 0, 0}, 1<<40, 1<<40, 1<<40), "overflow"},
		{"large", one([]int64{0, 0}, 1<<40, 1<<20), ""},
		{"zero then large", one([]int64{0, 0, 0}, 0, 1<<62, 1<<62), ""},
		{"index out of range", one([]int64{7}, 3), ""},
	}
	for _, tt := range tests {
		err := tt.s.Validate()
		if tt.want == "" {
			if err != nil {
				t.Errorf("%s: Validate: %v", tt.name, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Validate error %v, want one containing %q", tt.name, err, tt.want)
		}
		if _, err := tensor.StackSparse([]tensor.Sparse{tt.s}); err == nil {
			t.Errorf("%s: StackSparse of an invalid tensor: no error", tt.name)
		}
	}
}
