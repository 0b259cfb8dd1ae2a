package batchhook

import (
	"unsafe"

	"github.com/sluiceml/sluice/tensor"
)

// Pointer returns where a numeric or bool tensor's values start, the
// memory an Allocator lends and later knows a batch by, or nil for a
// tensor of bytes.
func Pointer(t tensor.Tensor) unsafe.Pointer {
	switch d := t.Data().(type) {
	case []float32:
		return unsafe.Pointer(unsafe.SliceData(d))
	case []int64:
		return unsafe.Pointer(unsafe.SliceData(d))
	case []uint8:
		return unsafe.Pointer(unsafe.SliceData(d))
	case []float64:
		return unsafe.Pointer(unsafe.SliceData(d))
	case []int32:
		return unsafe.Pointer(unsafe.SliceData(d))
	case []int16:
		return unsafe.Pointer(unsafe.SliceData(d))
	case []int8:
		return unsafe.Pointer(unsafe.SliceData(d))
	case []uint16:
		return unsafe.Pointer(unsafe.SliceData(d))
	case []uint32:
		return unsafe.Pointer(unsafe.SliceData(d))
	case []uint64:
		return unsafe.Pointer(unsafe.SliceData(d))
	case []tensor.Half:
		return unsafe.Pointer(unsafe.SliceData(d))
	case []bool:
		return unsafe.Pointer(unsafe.SliceData(d))
	}
	return nil
}

// Over returns a tensor of dtype and shape whose values are the memory at
// p, which must hold them and be aligned for dtype, or an invalid tensor
// for tensor.String. It is how an Allocator lends memory that is not Go's.
func Over(p unsafe.Pointer, dtype tensor.DType, shape tensor.Shape) tensor.Tensor {
	n := shape.NumElements()
	switch dtype {
	case tensor.Float32:
		return over[float32](p, n, shape)
	case tensor.Int64:
		return over[int64](p, n, shape)
	case tensor.Uint8:
		return over[uint8](p, n, shape)
	case tensor.Float64:
		return over[float64](p, n, shape)
	case tensor.Int32:
		return over[int32](p, n, shape)
	case tensor.Int16:
		return over[int16](p, n, shape)
	case tensor.Int8:
		return over[int8](p, n, shape)
	case tensor.Uint16:
		return over[uint16](p, n, shape)
	case tensor.Uint32:
		return over[uint32](p, n, shape)
	case tensor.Uint64:
		return over[uint64](p, n, shape)
	case tensor.Float16:
		return over[tensor.Half](p, n, shape)
	case tensor.Bool:
		return over[bool](p, n, shape)
	}
	return tensor.Tensor{}
}

func over[T tensor.Elem](p unsafe.Pointer, n int, shape tensor.Shape) tensor.Tensor {
	return tensor.New(unsafe.Slice((*T)(p), n), shape...)
}
