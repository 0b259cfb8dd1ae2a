package queue

import (
	"testing"

	"github.com/sluiceml/sluice/tensor"
)

// TestPopNSameDraws checks that popN takes the elements n pops would, in
// their order, and leaves the store as they would: a batch dequeue's draws,
// and so a seeded pipeline's batches, must not depend on how they are made.
func TestPopNSameDraws(t *testing.T) {
	stores := []struct {
		name string
		make func() store
	}{
		{"fifo", func() store { return &fifoStore{} }},
		{"shuffle", func() store { return newShuffleStore(7) }},
		{"priority", func() store { return &priorityStore{} }},
	}
	for _, st := range stores {
		for _, n := range []int{0, 1, popChunk - 1, popChunk, popChunk + 1, 128, 300} {
			one, many := st.make(), st.make()
			for i := range 300 {
				// Priorities repeat, so that ties are ordered too.
				e := slot{e: Element{tensor.New([]int64{int64(i % 17)})}, row: -1}
				one.push(e)
				many.push(e)
			}
			var want []slot
			for range n {
				want = append(want, one.pop())
			}
			got := many.popN(nil, n)
			if len(got) != len(want) {
				t.Fatalf("%s popN(%d): %d elements, want %d", st.name, n, len(got), len(want))
			}
			for i := range want {
				if &got[i].e[0] != &want[i].e[0] {
					t.Fatalf("%s popN(%d): element %d differs from the %d-th pop", st.name, n, i, i)
				}
			}
			// The rest comes out the same too.
			for one.len() > 0 {
				a, b := one.pop(), many.pop()
				if &a.e[0] != &b.e[0] {
					t.Fatalf("%s popN(%d): the store left differs", st.name, n)
				}
			}
			if many.len() != 0 {
				t.Fatalf("%s popN(%d): %d elements left over", st.name, n, many.len())
			}
		}
	}
}
