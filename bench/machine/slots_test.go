package machine

import (
	"fmt"
	"testing"
)

// BenchmarkSlotRows writes MNIST rows, a batch at a time, into slots of
// one batch each taken in turn, as sluice-serve's readers parse records
// into its shared-memory slots: one op is a batch. The number of slots is
// how much memory is written in turn (13 slots of MNIST batches, 5 MB,
// against the 6 buffers Go's front door reuses); on a core with a large
// shared cache it changes the cost of a batch's writes by a few percent.
func BenchmarkSlotRows(b *testing.B) {
	src := filled(8 << 20) // the records read, cycled
	for _, n := range []int{3, 6, 13, 20} {
		b.Run(fmt.Sprintf("slots=%d", n), func(b *testing.B) {
			slots := make([][]byte, n)
			for i := range slots {
				slots[i] = filled(batchRows * rowSize)
			}
			b.SetBytes(batchRows * rowSize)
			off, k := 0, 0
			for b.Loop() {
				slot := slots[k]
				k = (k + 1) % n
				for r := range batchRows {
					if off+rowSize+64 > len(src) {
						off = 0
					}
					// A record's values start past its framing.
					copy(slot[r*rowSize:(r+1)*rowSize], src[off+40:])
					off += rowSize + 64
				}
			}
		})
	}
}
