package batchhook

import (
	"testing"
	"unsafe"

	"github.com/sluiceml/sluice/tensor"
)

// A tensor Over memory is known by that memory, for every dtype an
// Allocator may lend; bytes tensors are neither made nor known.
func TestOverPointer(t *testing.T) {
	mem := make([]uint64, 16) // aligned for every dtype
	p := unsafe.Pointer(unsafe.SliceData(mem))
	for _, dt := range []tensor.DType{tensor.Float32, tensor.Int64, tensor.Uint8, tensor.Float64, tensor.Int32,
		tensor.Int16, tensor.Int8, tensor.Uint16, tensor.Uint32, tensor.Uint64, tensor.Float16, tensor.Bool} {
		x := Over(p, dt, tensor.Shape{2, 3})
		if x.DType() != dt || !x.Shape().Equal(tensor.Shape{2, 3}) {
			t.Errorf("Over %v: %v %v", dt, x.DType(), x.Shape())
		}
		if got := Pointer(x); got != p {
			t.Errorf("Pointer of Over %v: %p, want %p", dt, got, p)
		}
		if got := Pointer(x.Row(1)); got != unsafe.Add(p, 3*dt.Size()) {
			t.Errorf("Pointer of row 1 of %v: %p, want %p", dt, got, unsafe.Add(p, 3*dt.Size()))
		}
	}
	if x := Over(p, tensor.String, tensor.Shape{2}); x.IsValid() {
		t.Errorf("Over String: %v, want an invalid tensor", x)
	}
	if got := Pointer(tensor.Strings("a")); got != nil {
		t.Errorf("Pointer of a bytes tensor: %p, want nil", got)
	}
}
