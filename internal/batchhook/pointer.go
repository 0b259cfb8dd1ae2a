package batchhook

import (
	"unsafe"

	"github.com/sluiceml/sluice/tensor"
)

// Pointer returns where a float32 or int64 tensor's values start, the
// memory an Allocator lends and later knows a batch by, or nil for
// another type.
func Pointer(t tensor.Tensor) unsafe.Pointer {
	switch t.DType() {
	case tensor.Float32:
		return unsafe.Pointer(unsafe.SliceData(t.Float32s()))
	case tensor.Int64:
		return unsafe.Pointer(unsafe.SliceData(t.Int64s()))
	}
	return nil
}
