package sluice

import (
	"testing"
	"unsafe"

	"github.com/sluiceml/sluice/example"
	"github.com/sluiceml/sluice/tensor"
)

// fixedAlloc lends the same buffer every time, as a slot.
type fixedAlloc struct{ mem []byte }

func (a *fixedAlloc) Alloc(dtypes []tensor.DType, shapes []tensor.Shape) []tensor.Tensor {
	ts := make([]tensor.Tensor, len(dtypes))
	off := 64
	for i, dt := range dtypes {
		n := shapes[i].NumElements()
		p := unsafe.Pointer(&a.mem[off])
		if dt == tensor.Float32 {
			ts[i] = tensor.New(unsafe.Slice((*float32)(p), n), shapes[i]...)
		} else {
			ts[i] = tensor.New(unsafe.Slice((*int64)(p), n), shapes[i]...)
		}
		off += (n*dt.Size() + 63) &^ 63
	}
	return ts
}

func (a *fixedAlloc) Put([]tensor.Tensor) {}

// BenchmarkDecodeInto compares parsing a batch of MNIST-like Examples
// into the parser's memory and copying it out (what sluice-serve did)
// with parsing it straight into lent memory.
func BenchmarkDecodeInto(b *testing.B) {
	spec := example.Spec{"image": example.FixedLen(tensor.Float32, 784), "label": example.FixedLen(tensor.Int64)}
	recs := make([][]byte, 128)
	img := make([]float32, 784)
	for i := range recs {
		for j := range img {
			img[j] = float32((i*j)%255) / 255
		}
		recs[i] = example.New().Floats("image", img).Int64("label", int64(i%10)).Marshal()
	}
	d := Examples("x", spec)
	mem := make([]byte, 1<<20)
	b.Run("parse+copy", func(b *testing.B) {
		dec, _ := d.newDecoder(true)
		for b.Loop() {
			e, err := dec(recs, nil)
			if err != nil {
				b.Fatal(err)
			}
			off := 64
			for _, t := range e {
				var raw []byte
				if t.DType() == tensor.Float32 {
					v := t.Float32s()
					raw = unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), 4*len(v))
				} else {
					v := t.Int64s()
					raw = unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), 8*len(v))
				}
				off += copy(mem[off:], raw)
			}
		}
	})
	b.Run("into", func(b *testing.B) {
		dec, _ := d.newDecoderInto(&fixedAlloc{mem: mem}, true)
		for b.Loop() {
			if _, err := dec(recs, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}
