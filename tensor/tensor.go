package tensor

import (
	"bytes"
	"fmt"
	"strings"
)

// Elem is the set of Go types that tensors store, one per DType:
// bool, the sized integers, Half (for Float16), float32, float64, complex64,
// complex128, and []byte for String.
type Elem interface {
	bool | int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64 |
		Half | float32 | float64 | complex64 | complex128 | []byte
}

// A Tensor is a dense array of one element type with a fully defined shape.
// Its elements are held in a single flat slice in row-major order.
//
// A Tensor is a small value (type, shape and slice header) that is cheap to
// copy; copies share the element storage. Operations that return a part of
// a tensor (Row, Slice) share storage too; Clone makes an independent copy.
// The zero Tensor has type Invalid and is only a placeholder.
type Tensor struct {
	dtype DType
	shape Shape
	data  any // []T for the Elem T of dtype; never nil in a valid tensor
}

// DTypeOf returns the DType whose elements are Go values of type T.
func DTypeOf[T Elem]() DType {
	var z T
	switch any(z).(type) {
	case bool:
		return Bool
	case int8:
		return Int8
	case int16:
		return Int16
	case int32:
		return Int32
	case int64:
		return Int64
	case uint8:
		return Uint8
	case uint16:
		return Uint16
	case uint32:
		return Uint32
	case uint64:
		return Uint64
	case Half:
		return Float16
	case float32:
		return Float32
	case float64:
		return Float64
	case complex64:
		return Complex64
	case complex128:
		return Complex128
	case []byte:
		return String
	}
	return Invalid
}

// New returns a tensor of the given shape over data, which it keeps (it
// does not copy). With no dims, the tensor is a vector of len(data). New
// panics if the shape's size differs from len(data) or a dimension is
// negative: that is a programming error, as with make.
func New[T Elem](data []T, dims ...int) Tensor {
	shape := Shape(dims)
	if len(dims) == 0 {
		shape = Shape{len(data)}
	} else {
		shape = shape.Clone()
	}
	if n := shape.NumElements(); n != len(data) {
		panic(fmt.Sprintf("tensor.New: shape %v holds %d elements, data has %d", shape, n, len(data)))
	}
	if data == nil {
		data = []T{}
	}
	return Tensor{dtype: DTypeOf[T](), shape: shape, data: data}
}

// Scalar returns a rank-0 tensor holding v.
func Scalar[T Elem](v T) Tensor {
	return Tensor{dtype: DTypeOf[T](), shape: Shape{}, data: []T{v}}
}

// StringScalar returns a rank-0 String tensor holding s.
func StringScalar(s string) Tensor { return Scalar([]byte(s)) }

// Strings returns a String vector holding ss.
func Strings(ss ...string) Tensor {
	data := make([][]byte, len(ss))
	for i, s := range ss {
		data[i] = []byte(s)
	}
	return New(data)
}

// Zeros returns a tensor of the given type and shape filled with zeros
// (false for Bool, empty strings for String). The shape must be fully
// defined.
func Zeros(dtype DType, shape Shape) Tensor {
	n, err := shape.CheckedNumElements()
	if err != nil {
		panic("tensor.Zeros: " + err.Error())
	}
	return Tensor{dtype: dtype, shape: shape.Clone(), data: makeData(dtype, n)}
}

// FromData returns a tensor over data, which must be a []T for an Elem T.
// It is the untyped form of New, for code that handles many dtypes.
func FromData(data any, shape Shape) (Tensor, error) {
	dtype, n := dataInfo(data)
	if dtype == Invalid {
		return Tensor{}, fmt.Errorf("tensor: unsupported data type %T", data)
	}
	if !shape.IsFullyDefined() || shape.NumElements() != n {
		return Tensor{}, fmt.Errorf("tensor: shape %v does not fit %d elements", shape, n)
	}
	return Tensor{dtype: dtype, shape: shape.Clone(), data: data}, nil
}

// DType returns the element type.
func (t Tensor) DType() DType { return t.dtype }

// Shape returns the tensor's shape. The caller must not modify it.
func (t Tensor) Shape() Shape { return t.shape }

// Rank returns the number of dimensions.
func (t Tensor) Rank() int { return len(t.shape) }

// NumElements returns the number of elements.
func (t Tensor) NumElements() int { return t.shape.NumElements() }

// Len returns the size of dimension 0, or 0 for a scalar.
func (t Tensor) Len() int {
	if len(t.shape) == 0 {
		return 0
	}
	return t.shape[0]
}

// Data returns the element slice ([]float32 for Float32, [][]byte for
// String, ...). It shares storage with t.
func (t Tensor) Data() any { return t.data }

// IsValid reports whether t is a tensor rather than the zero Tensor.
func (t Tensor) IsValid() bool { return t.dtype != Invalid }

// Values returns t's elements as a []T sharing t's storage. It panics if T
// does not match t's DType.
func Values[T Elem](t Tensor) []T {
	v, ok := t.data.([]T)
	if !ok {
		var z T
		panic(fmt.Sprintf("tensor: Values[%T] of a %v tensor", z, t.dtype))
	}
	return v
}

// Typed accessors: each returns the elements sharing storage and panics if
// the tensor has another DType.

func (t Tensor) Bools() []bool           { return Values[bool](t) }
func (t Tensor) Int8s() []int8           { return Values[int8](t) }
func (t Tensor) Int16s() []int16         { return Values[int16](t) }
func (t Tensor) Int32s() []int32         { return Values[int32](t) }
func (t Tensor) Int64s() []int64         { return Values[int64](t) }
func (t Tensor) Uint8s() []uint8         { return Values[uint8](t) }
func (t Tensor) Uint16s() []uint16       { return Values[uint16](t) }
func (t Tensor) Uint32s() []uint32       { return Values[uint32](t) }
func (t Tensor) Uint64s() []uint64       { return Values[uint64](t) }
func (t Tensor) Halfs() []Half           { return Values[Half](t) }
func (t Tensor) Float32s() []float32     { return Values[float32](t) }
func (t Tensor) Float64s() []float64     { return Values[float64](t) }
func (t Tensor) Complex64s() []complex64 { return Values[complex64](t) }
func (t Tensor) Complex128s() []complex128 {
	return Values[complex128](t)
}
func (t Tensor) Strings() [][]byte { return Values[[]byte](t) }

// Reshape returns a tensor sharing t's storage with another shape of the
// same number of elements.
func (t Tensor) Reshape(shape Shape) (Tensor, error) {
	if !shape.IsFullyDefined() || shape.NumElements() != t.NumElements() {
		return Tensor{}, fmt.Errorf("tensor: cannot reshape %v to %v", t.shape, shape)
	}
	return Tensor{dtype: t.dtype, shape: shape.Clone(), data: t.data}, nil
}

// rowSize returns the number of elements in one row (one index of dim 0).
func (t Tensor) rowSize() int {
	n := 1
	for _, d := range t.shape[1:] {
		n *= d
	}
	return n
}

// Row returns row i of t (index i of dimension 0), sharing storage. It
// panics if t is a scalar or i is out of range.
func (t Tensor) Row(i int) Tensor {
	if len(t.shape) == 0 || i < 0 || i >= t.shape[0] {
		panic(fmt.Sprintf("tensor: row %d of shape %v", i, t.shape))
	}
	rs := t.rowSize()
	return Tensor{dtype: t.dtype, shape: t.shape[1:].Clone(), data: sliceData(t.data, i*rs, (i+1)*rs)}
}

// Slice returns rows [i, j) of t, sharing storage. It panics if the range
// is out of bounds.
func (t Tensor) Slice(i, j int) Tensor {
	if len(t.shape) == 0 || i < 0 || j < i || j > t.shape[0] {
		panic(fmt.Sprintf("tensor: slice [%d:%d] of shape %v", i, j, t.shape))
	}
	rs := t.rowSize()
	shape := t.shape.Clone()
	shape[0] = j - i
	return Tensor{dtype: t.dtype, shape: shape, data: sliceData(t.data, i*rs, j*rs)}
}

// Clone returns a deep copy of t. String elements are copied too.
func (t Tensor) Clone() Tensor {
	n := t.NumElements()
	data := makeData(t.dtype, n)
	copyData(data, 0, t.data, 0, n)
	if ss, ok := data.([][]byte); ok {
		for i, s := range ss {
			ss[i] = bytes.Clone(s)
		}
	}
	return Tensor{dtype: t.dtype, shape: t.shape.Clone(), data: data}
}

// SetRow copies src into row i of t. src must have t's DType and the shape
// of one row. String elements are shared, not copied.
func (t Tensor) SetRow(i int, src Tensor) error {
	if len(t.shape) == 0 || i < 0 || i >= t.shape[0] {
		return fmt.Errorf("tensor: row %d out of range for shape %v", i, t.shape)
	}
	if src.dtype != t.dtype {
		return fmt.Errorf("tensor: cannot set a %v row from a %v tensor", t.dtype, src.dtype)
	}
	if !src.shape.Equal(t.shape[1:]) {
		return fmt.Errorf("tensor: row shape %v, got %v", t.shape[1:], src.shape)
	}
	rs := t.rowSize()
	copyData(t.data, i*rs, src.data, 0, rs)
	return nil
}

// CopyRows copies n rows of src, from row si on, into t from row i on,
// as SetRow copies one; it makes no tensor for the rows, so copying a run
// of rows allocates nothing. t and src must have the same DType and row
// shape. String elements are shared, not copied.
func (t Tensor) CopyRows(i int, src Tensor, si, n int) error {
	if len(t.shape) == 0 || len(src.shape) == 0 || n < 0 || i < 0 || si < 0 || i+n > t.shape[0] || si+n > src.shape[0] {
		return fmt.Errorf("tensor: rows [%d:%d] of shape %v into rows [%d:%d] of shape %v out of range", si, si+n, src.shape, i, i+n, t.shape)
	}
	if src.dtype != t.dtype {
		return fmt.Errorf("tensor: cannot set %v rows from a %v tensor", t.dtype, src.dtype)
	}
	if !src.shape[1:].Equal(t.shape[1:]) {
		return fmt.Errorf("tensor: row shape %v, got %v", t.shape[1:], src.shape[1:])
	}
	rs := t.rowSize()
	copyData(t.data, i*rs, src.data, si*rs, n*rs)
	return nil
}

// Equal reports whether a and b have the same type, shape and elements.
// Floating-point elements compare with ==, so NaN is never equal.
func Equal(a, b Tensor) bool {
	if a.dtype != b.dtype || !a.shape.Equal(b.shape) {
		return false
	}
	if ss, ok := a.data.([][]byte); ok {
		tt := b.data.([][]byte)
		for i := range ss {
			if !bytes.Equal(ss[i], tt[i]) {
				return false
			}
		}
		return true
	}
	return equalData(a.data, b.data)
}

// String formats t for debugging: dtype, shape and up to 16 values.
func (t Tensor) String() string {
	if !t.IsValid() {
		return "Tensor<invalid>"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Tensor<%v %v>", t.dtype, t.shape)
	n := t.NumElements()
	show := min(n, 16)
	b.WriteString("[")
	for i := 0; i < show; i++ {
		if i > 0 {
			b.WriteByte(' ')
		}
		if ss, ok := t.data.([][]byte); ok {
			fmt.Fprintf(&b, "%q", ss[i])
		} else {
			fmt.Fprint(&b, elemAt(t.data, i))
		}
	}
	if show < n {
		b.WriteString(" ...")
	}
	b.WriteString("]")
	return b.String()
}
