package sluice

import (
	"testing"
	"unsafe"

	"github.com/sluiceml/sluice/example"
	"github.com/sluiceml/sluice/internal/batchhook"
	"github.com/sluiceml/sluice/tensor"
)

// fixedAlloc lends the same buffer every time, as a slot, and the same
// tensors over it, as sluice-serve's slots do (made once).
type fixedAlloc struct {
	mem  []byte
	last []tensor.Tensor
}

func (a *fixedAlloc) Alloc(dtypes []tensor.DType, shapes []tensor.Shape) []tensor.Tensor {
	if len(a.last) == len(dtypes) {
		same := true
		for i, t := range a.last {
			same = same && t.DType() == dtypes[i] && t.Shape().Equal(shapes[i])
		}
		if same {
			return a.last
		}
	}
	ts := make([]tensor.Tensor, len(dtypes))
	defer func() { a.last = ts }()
	off := 64
	for i, dt := range dtypes {
		ts[i] = batchhook.Over(unsafe.Pointer(&a.mem[off]), dt, shapes[i])
		off += (shapes[i].NumElements()*dt.Size() + 63) &^ 63
	}
	return ts
}

// copyOut copies a batch's values into mem, as sluice-serve copies a
// batch into a slot.
func copyOut(mem []byte, e []tensor.Tensor) {
	off := 64
	for _, t := range e {
		n := t.NumElements() * t.DType().Size()
		off += copy(mem[off:], unsafe.Slice((*byte)(batchhook.Pointer(t)), n))
		off = (off + 63) &^ 63
	}
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
			copyOut(mem, e)
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

// BenchmarkDecodeIntoFixed is BenchmarkDecodeInto for a batch of CIFAR-10
// records, the image's planes transposed into pixels: decoded into the
// decoder's memory and copied, or straight into lent memory.
func BenchmarkDecodeIntoFixed(b *testing.B) {
	const size = 1 + 3*32*32
	recs := make([][]byte, 128)
	for i := range recs {
		recs[i] = make([]byte, size)
		for j := range recs[i] {
			recs[i][j] = byte(i * j)
		}
	}
	d := FixedLengthRecords("x", size, []Field{
		{Name: "label", Offset: 0, Size: 1, DType: tensor.Uint8, Shape: []int{}},
		{Name: "image", Offset: 1, Size: 3072, DType: tensor.Uint8, Shape: []int{3, 32, 32}, Transpose: []int{1, 2, 0}},
	})
	mem := make([]byte, 1<<20)
	b.Run("decode+copy", func(b *testing.B) {
		dec, _ := d.newDecoder(true)
		b.SetBytes(int64(len(recs) * size))
		for b.Loop() {
			e, err := dec(recs, nil)
			if err != nil {
				b.Fatal(err)
			}
			copyOut(mem, e)
		}
	})
	b.Run("into", func(b *testing.B) {
		dec, _ := d.newDecoderInto(&fixedAlloc{mem: mem}, true)
		b.SetBytes(int64(len(recs) * size))
		for b.Loop() {
			if _, err := dec(recs, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}
