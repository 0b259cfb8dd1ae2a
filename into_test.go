package sluice

import (
	"testing"

	"github.com/sluiceml/sluice/internal/batchhook"
	"github.com/sluiceml/sluice/tensor"
)

// Fixed-length records decoded into lent memory hold what a decode into
// the decoder's own memory holds, in the lent memory; fields the lending
// decoder cannot write (bytes, a Decode function, a shape that is not
// the field's size) leave the data set without one.
func TestFixedLengthRecordsInto(t *testing.T) {
	const size = 13
	recs := make([][]byte, 5)
	for i := range recs {
		recs[i] = make([]byte, size)
		for j := range recs[i] {
			recs[i][j] = byte(31*i + 7*j)
		}
	}
	tests := []struct {
		name   string
		fields []Field
		lends  bool
	}{
		{"numbers", []Field{
			{Name: "label", Offset: 0, Size: 1, DType: tensor.Uint8, Shape: []int{}},
			{Name: "be", Offset: 1, Size: 12, DType: tensor.Uint16, Shape: []int{2, 3}, BigEndian: true},
			{Name: "t", Offset: 1, Size: 12, DType: tensor.Int16, Shape: []int{2, 3}, Transpose: []int{1, 0}},
			{Name: "rgb", Offset: 1, Size: 12, DType: tensor.Uint8, Shape: []int{3, 2, 2}, Transpose: []int{1, 2, 0}},
			{Name: "f", Offset: 1, Size: 8, DType: tensor.Float32},
			{Name: "flags", Offset: 9, Size: 4, DType: tensor.Bool},
		}, true},
		{"a bytes field", []Field{
			{Name: "label", Offset: 0, Size: 1, DType: tensor.Uint8},
			{Name: "raw", Offset: 1, Size: 12, DType: tensor.String},
		}, false},
		{"a Decode function", []Field{
			{Name: "label", Offset: 0, Size: 1, DType: tensor.Uint8},
			{Name: "d", Offset: 1, Size: 1, DType: tensor.Uint8, Decode: func(b []byte) (tensor.Tensor, error) { return tensor.Scalar(b[0]), nil }},
		}, false},
		{"a shape too small", []Field{
			{Name: "x", Offset: 1, Size: 12, DType: tensor.Uint16, Shape: []int{5}},
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := FixedLengthRecords("x", size, tt.fields)
			if d.err != nil {
				t.Fatal(d.err)
			}
			if got := d.newDecoderInto != nil; got != tt.lends {
				t.Fatalf("a decoder into lent memory: %v, want %v", got, tt.lends)
			}
			if !tt.lends {
				return
			}
			plain, err := d.newDecoder(false)
			if err != nil {
				t.Fatal(err)
			}
			want, err := plain(recs, nil)
			if err != nil {
				t.Fatal(err)
			}
			mem := make([]byte, 1<<12)
			into, err := d.newDecoderInto(&fixedAlloc{mem: mem}, false)
			if err != nil {
				t.Fatal(err)
			}
			for range 2 { // the second through the views made by the first
				got, err := into(recs, nil)
				if err != nil {
					t.Fatal(err)
				}
				for i := range want {
					if !tensor.Equal(got[i], want[i]) {
						t.Errorf("component %d: %v, want %v", i, got[i], want[i])
					}
					if p := batchhook.Pointer(got[i]); uintptr(p) < uintptr(batchhook.Pointer(tensor.New(mem))) ||
						uintptr(p) >= uintptr(batchhook.Pointer(tensor.New(mem)))+uintptr(len(mem)) {
						t.Errorf("component %d is not in the lent memory", i)
					}
				}
			}
			// No memory lent: the decoder's own.
			none, err := d.newDecoderInto(noAlloc{}, false)
			if err != nil {
				t.Fatal(err)
			}
			if got, err := none(recs, nil); err != nil || !tensor.Equal(got[0], want[0]) {
				t.Errorf("without lent memory: %v, %v", got, err)
			}
		})
	}
}

// noAlloc lends nothing.
type noAlloc struct{}

func (noAlloc) Alloc([]tensor.DType, []tensor.Shape) []tensor.Tensor { return nil }
func (noAlloc) Put([]tensor.Tensor)                                  {}
