package queue

import (
	"fmt"
	"testing"

	"github.com/sluiceml/sluice/tensor"
)

// padElem is an element of a padding queue of (string [?], int32 [?, 2]):
// n strings and an n×2 matrix of n.
func padElem(n int) Element {
	ss := make([]string, n)
	ints := make([]int32, 2*n)
	for i := range ss {
		ss[i] = fmt.Sprint(n)
		ints[2*i], ints[2*i+1] = int32(n), int32(-n)
	}
	return Element{tensor.Strings(ss...), tensor.New(ints, n, 2)}
}

// padBatch is the same elements as one EnqueueMany batch: each row's
// length is the longest, the rest padding.
func padBatch(lens []int) Element {
	rows := make([]tensor.Tensor, len(lens))
	cols := make([]tensor.Tensor, len(lens))
	for i, n := range lens {
		e := padElem(n)
		rows[i], cols[i] = e[0], e[1]
	}
	s, _ := tensor.StackPadded(rows)
	m, _ := tensor.StackPadded(cols)
	return Element{s, m}
}

// A PaddingFIFO's DequeueManyInto and DequeueUpToInto give the batches
// DequeueMany and DequeueUpTo give (PAD-03: each padded to its own
// largest element), writing them over the last batch's memory whatever
// that held, once the memory has room.
func TestPaddingFIFOInto(t *testing.T) {
	tests := []struct {
		name    string
		batches [][]int // the lengths of each batch's elements
		many    bool    // each batch enqueued with one EnqueueMany
		upTo    int     // DequeueUpTo of this many after close, 0 for DequeueMany of each batch
		reuse   bool    // every batch after the first is in the first's memory
	}{
		{"shrinking and growing", [][]int{{4, 1, 3}, {1, 1, 2}, {3, 2, 1}, {1, 1, 1}, {4, 4, 4}}, false, 0, true},
		{"empty elements", [][]int{{2, 0, 1}, {0, 0, 0}, {1, 0, 0}}, false, 0, true},
		{"growing", [][]int{{1, 1}, {2, 1}, {1, 3}}, false, 0, false},
		{"enqueue many", [][]int{{3, 1, 2}, {1, 1, 1}, {2, 2, 1}}, true, 0, true},
		{"short last batch", [][]int{{3, 3}, {1, 2}, {2}}, false, 2, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			newQueue := func() *PaddingFIFO {
				q, err := NewPaddingFIFO(100, []tensor.DType{tensor.String, tensor.Int32},
					[]tensor.Shape{{tensor.Unknown}, {tensor.Unknown, 2}})
				if err != nil {
					t.Fatal(err)
				}
				for _, lens := range tt.batches {
					if tt.many {
						if err := q.EnqueueMany(bg, padBatch(lens)); err != nil {
							t.Fatal(err)
						}
						continue
					}
					for _, n := range lens {
						if err := q.Enqueue(bg, padElem(n)); err != nil {
							t.Fatal(err)
						}
					}
				}
				if tt.upTo > 0 {
					q.Close(bg)
				}
				return q
			}
			fresh, into := newQueue(), newQueue()
			var dst Element
			var first *int32
			for i, lens := range tt.batches {
				var want, got Element
				var err error
				if tt.upTo > 0 {
					want, err = fresh.DequeueUpTo(bg, tt.upTo)
					if err == nil {
						got, err = into.DequeueUpToInto(bg, tt.upTo, dst)
					}
				} else {
					want, err = fresh.DequeueMany(bg, len(lens))
					if err == nil {
						got, err = into.DequeueManyInto(bg, len(lens), dst)
					}
				}
				if err != nil {
					t.Fatalf("batch %d: %v", i, err)
				}
				if !tensor.Equal(padNil(got[0]), padNil(want[0])) || !tensor.Equal(got[1], want[1]) {
					t.Fatalf("batch %d: %v, want %v", i, got, want)
				}
				if got[1].NumElements() > 0 {
					if i == 0 {
						first = &got[1].Int32s()[0]
					} else if reused := &got[1].Int32s()[0] == first; tt.reuse && !reused {
						t.Errorf("batch %d not written over the first's memory", i)
					}
				}
				dst = got
			}
		})
	}
}

// TestPaddingFIFOIntoAllocs: a consumer that hands back its batch makes
// a padding queue allocate nothing for a batch of a shape its memory has
// had before (of the last maxViews) and, for another shape that fits its
// memory, the new tensor's shape and values' header: two allocations for
// each component whose shape is new.
// An EnqueueMany with room for its rows makes one, its copy of the
// caller's slice of tensors.
func TestPaddingFIFOIntoAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	tests := []struct {
		name    string
		batches [][]int
		many    bool
		want    float64
	}{
		{"same shape", [][]int{{3, 1, 2}, {2, 3, 3}}, false, 0},
		{"changing shape", [][]int{{3, 1, 2}, {2, 1, 1}}, false, 0},
		{"shapes kept", [][]int{{8}, {1}, {2}, {3}, {4}, {5}, {6}, {7}}, false, 0},
		{"more shapes than kept", [][]int{{9}, {1}, {2}, {3}, {4}, {5}, {6}, {7}, {8}}, false, 4},
		{"enqueue many, same shape", [][]int{{3, 1, 2}, {2, 3, 3}}, true, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, err := NewPaddingFIFO(100, []tensor.DType{tensor.String, tensor.Int32},
				[]tensor.Shape{{tensor.Unknown}, {tensor.Unknown, 2}})
			if err != nil {
				t.Fatal(err)
			}
			var elems [][]Element
			var batches []Element
			for _, lens := range tt.batches {
				var es []Element
				for _, n := range lens {
					es = append(es, padElem(n))
				}
				elems = append(elems, es)
				batches = append(batches, padBatch(lens))
			}
			var dst Element
			i := 0
			step := func() {
				k := i % len(tt.batches)
				i++
				if tt.many {
					if err := q.EnqueueMany(bg, batches[k]); err != nil {
						t.Fatal(err)
					}
				} else {
					for _, e := range elems[k] {
						if err := q.Enqueue(bg, e); err != nil {
							t.Fatal(err)
						}
					}
				}
				if dst, err = q.DequeueManyInto(bg, len(elems[k]), dst); err != nil {
					t.Fatal(err)
				}
			}
			for range 4 {
				step() // the queue's buffers and the batch's memory grow
			}
			if n := testing.AllocsPerRun(20, step); n > tt.want {
				t.Errorf("%v allocations a batch, want at most %v", n, tt.want)
			}
		})
	}
}
