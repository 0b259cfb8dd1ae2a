package queue

import (
	"slices"
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

// TestPriorityUnpopKeepsPlace: elements given back (a dequeue that failed
// or was cancelled after taking them, in the reverse of the order taken)
// leave again in their original order among equal priorities, also before
// those queued meanwhile: equal priorities leave in insertion order.
func TestPriorityUnpopKeepsPlace(t *testing.T) {
	for _, taken := range []int{1, 2, 3, 5} {
		s := &priorityStore{}
		push := func(p int64, v int32) {
			s.push(slot{e: Element{tensor.Scalar(p), tensor.Scalar(v)}, row: -1})
		}
		// Priority 1: values 10, 11, 12 in order; 0 and 2 around them.
		push(1, 10)
		push(2, 20)
		push(1, 11)
		push(0, 0)
		push(1, 12)
		var popped []slot
		for range taken {
			popped = append(popped, s.pop())
		}
		push(1, 13) // queued while they were out
		for i := len(popped) - 1; i >= 0; i-- {
			s.unpop(popped[i])
		}
		var got []int32
		for s.len() > 0 {
			got = append(got, s.pop().e[1].Int32s()[0])
		}
		if want := []int32{0, 10, 11, 12, 13, 20}; !slices.Equal(got, want) {
			t.Errorf("%d taken and given back: order %v, want %v", taken, got, want)
		}
	}
}
