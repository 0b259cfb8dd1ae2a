//go:build unix

package pyserve

import (
	"testing"

	"github.com/sluiceml/sluice/internal/batchhook"
	"github.com/sluiceml/sluice/tensor"
)

// Batches of a few bytes a feature and record are left to the batch
// parser and copied; larger ones are lent a slot.
func TestSlotAllocLends(t *testing.T) {
	t.Setenv("SLUICE_SHM_DIR", t.TempDir())
	tests := []struct {
		name   string
		dtypes []tensor.DType
		shapes []tensor.Shape
		lend   bool
	}{
		{"mnist", []tensor.DType{tensor.Float32, tensor.Int64}, []tensor.Shape{{128, 784}, {128}}, true},
		{"scalars", []tensor.DType{tensor.Float32, tensor.Int64, tensor.Int64}, []tensor.Shape{{128}, {128}, {128}}, false},
		{"16 floats", []tensor.DType{tensor.Float32}, []tensor.Shape{{128, 16}}, true},
		{"15 floats", []tensor.DType{tensor.Float32}, []tensor.Shape{{128, 15}}, false},
		{"8 int64s", []tensor.DType{tensor.Int64}, []tensor.Shape{{3, 8}}, true},
		{"no rows", []tensor.DType{tensor.Float32}, []tensor.Shape{{0, 784}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRing(2)
			defer r.close()
			free := &slotStack{}
			free.put(1)
			a := newSlotAlloc(r, free, 1)
			ts := a.Alloc(tt.dtypes, tt.shapes)
			if got := ts != nil; got != tt.lend {
				t.Fatalf("Alloc lent a slot: %v, want %v", got, tt.lend)
			}
			if ts == nil {
				if a.free.len() != 1 {
					t.Errorf("the slot was not given back")
				}
				return
			}
			for i, x := range ts {
				if x.DType() != tt.dtypes[i] || !x.Shape().Equal(tt.shapes[i]) {
					t.Errorf("tensor %d: %v %v, want %v %v", i, x.DType(), x.Shape(), tt.dtypes[i], tt.shapes[i])
				}
			}
			a.Put(ts)
			if a.free.len() != 1 {
				t.Errorf("Put did not free the slot")
			}
			// Lent again for a batch of the same types and shapes: the
			// same tensors, made once, in another list (the root
			// package's pool knows a batch by its list), and the third
			// time in the first list again.
			again := a.Alloc(tt.dtypes, tt.shapes)
			if len(again) != len(ts) || batchhook.Pointer(again[0]) != batchhook.Pointer(ts[0]) {
				t.Errorf("lent again: %v, want the tensors lent before", again)
			}
			if &again[0] == &ts[0] {
				t.Error("lent again in the same list")
			}
			a.Put(again)
			if third := a.Alloc(tt.dtypes, tt.shapes); &third[0] != &ts[0] {
				t.Error("the third time: not the first list")
			} else {
				a.Put(third)
			}
			if allocs := testing.AllocsPerRun(20, func() { a.Put(a.Alloc(tt.dtypes, tt.shapes)) }); allocs != 0 {
				t.Errorf("%v allocations to lend the slot again, want 0", allocs)
			}
		})
	}
}
