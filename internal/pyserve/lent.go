package pyserve

import (
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/sluiceml/sluice"
	"github.com/sluiceml/sluice/internal/batchhook"
	"github.com/sluiceml/sluice/tensor"
)

// maxLent bounds the slots lent to the reading goroutines: with many
// readers, the batches beyond it are copied into the ring.
const maxLent = 32

// lentSlots is how many slots the reading goroutines can decode into: one
// for each reader's batch being decoded and one waiting to be queued, the
// batch queue's readers+1, the one a reply is taking, and the ring's
// worth sent ahead or held by the client. With that many, a reader always
// finds one free in a steady stream, and no batch is copied.
func lentSlots(slots, readers int) int {
	return min(2*readers+2+slots, maxLent)
}

// A slotAlloc lends the slots from first on to the data set's decoders
// (batchhook), so that a batch is parsed straight into the memory the
// client maps. A reader that finds none free decodes into memory of its
// own, and the server copies the batch: it never waits, so lending can
// not stall the pipeline.
type slotAlloc struct {
	ring  *ring
	free  *slotStack
	first int
	// made holds, by lent slot (from first on), the tensors last lent
	// in it: a slot lent again for a batch of the same types and shapes
	// in the same memory lends them again, so that a batch costs no
	// allocation. An entry is only touched by the reader the slot is lent
	// to; the list is made with the slotAlloc (newSlotAlloc), before any
	// reader.
	made []lentTensors
	// stopped is set when the iteration stops: a reading goroutine that
	// outlives it (past its grace period) decodes into memory of its own,
	// not into a slot the next data set's iteration may be using.
	stopped atomic.Bool
}

func newSlotAlloc(r *ring, free *slotStack, first int) *slotAlloc {
	return &slotAlloc{ring: r, free: free, first: first, made: make([]lentTensors, len(r.slots)-first)}
}

// lentTensors are the tensors lent in a slot's memory mem, in two lists
// lent in turn: the root package's pool knows a batch in flight by its
// list's first element, and a slot's next batch can be decoded before the
// iterator has let go of the one before (the client freed the slot with
// keep 0), which must not go by the same list.
type lentTensors struct {
	mem    unsafe.Pointer
	size   int
	dtypes []tensor.DType
	shapes []tensor.Shape
	ts     [2][]tensor.Tensor
	turn   int
}

// same reports whether l lends tensors of dtypes and shapes in mem.
func (l *lentTensors) same(mem []byte, dtypes []tensor.DType, shapes []tensor.Shape) bool {
	if l.mem != unsafe.Pointer(unsafe.SliceData(mem)) || l.size != len(mem) || !slices.Equal(l.dtypes, dtypes) || len(l.shapes) != len(shapes) {
		return false
	}
	for i := range shapes {
		if !slices.Equal(l.shapes[i], shapes[i]) {
			return false
		}
	}
	return true
}

// A slotStack holds the free lent slots, the last freed taken first: a
// steady stream then writes into as few of them as it keeps busy, whose
// memory is more likely still in the caches, rather than cycling through
// all of them.
type slotStack struct {
	mu sync.Mutex
	ks []int
}

func (s *slotStack) put(k int) {
	s.mu.Lock()
	s.ks = append(s.ks, k)
	s.mu.Unlock()
}

func (s *slotStack) take() (k int, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.ks) == 0 {
		return 0, false
	}
	k = s.ks[len(s.ks)-1]
	s.ks = s.ks[:len(s.ks)-1]
	return k, true
}

func (s *slotStack) len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.ks)
}

// minLentBytes is the least a record's values of one feature take on
// average for a batch to be decoded into a lent slot. Parsing into rows
// costs per record and feature what the batch parser pays once per
// feature, and a copy of a few bytes costs less than that: with ten
// scalar features (small10) the batch parse and the copy take about 0.3
// µs an example less of the server's CPU than parsing into the slot,
// while MNIST's 784 floats gain from it. A variable for the tests.
var minLentBytes = 64

func (a *slotAlloc) Alloc(dtypes []tensor.DType, shapes []tensor.Shape) []tensor.Tensor {
	if len(shapes) == 0 || len(shapes[0]) == 0 || shapes[0][0] == 0 {
		return nil
	}
	total := 0
	for i, dt := range dtypes {
		total += shapes[i].NumElements() * dt.Size()
	}
	if total < minLentBytes*len(dtypes)*shapes[0][0] {
		return nil
	}
	for i, dt := range dtypes {
		// An array of no values has no memory to know the batch by
		// (lent), and would start at the slot's end.
		if dt == tensor.String || !dt.Valid() || shapes[i].NumElements() == 0 {
			return nil
		}
	}
	if a.stopped.Load() {
		return nil
	}
	k, ok := a.free.take()
	if !ok {
		return nil
	}
	// The arrays as fill places them: aligned, none at offset 0.
	size := 64
	for i, dt := range dtypes {
		size = (size+63)&^63 + shapes[i].NumElements()*dt.Size()
	}
	mem, _, err := a.ring.reserve(k, size)
	if err != nil {
		// The server will meet the same error when it copies the
		// batch into the ring, and report it.
		a.free.put(k)
		return nil
	}
	made := &a.made[k-a.first]
	if made.same(mem, dtypes, shapes) {
		made.turn ^= 1
		return made.ts[made.turn]
	}
	ts := make([]tensor.Tensor, len(dtypes))
	off := 64
	for i, dt := range dtypes {
		off = (off + 63) &^ 63
		ts[i] = batchhook.Over(unsafe.Pointer(&mem[off]), dt, shapes[i])
		off += shapes[i].NumElements() * dt.Size()
	}
	shapesCopy := make([]tensor.Shape, len(shapes))
	for i, sh := range shapes {
		shapesCopy[i] = slices.Clone(sh)
	}
	*made = lentTensors{mem: unsafe.Pointer(unsafe.SliceData(mem)), size: len(mem), dtypes: slices.Clone(dtypes), shapes: shapesCopy,
		ts: [2][]tensor.Tensor{ts, slices.Clone(ts)}}
	return ts
}

func (a *slotAlloc) Put(ts []tensor.Tensor) {
	if len(ts) == 0 {
		return
	}
	if k, _, ok := a.ring.locate(a.first, batchhook.Pointer(ts[0])); ok {
		a.free.put(k)
	}
}

// lent describes batch b if it was decoded into a lent slot: every
// feature dense and in the same slot.
func (s *server) lent(b *sluice.Batch) (*BatchInfo, bool) {
	var info *BatchInfo
	for i, f := range s.src.features {
		if f.Kind != "dense" {
			return nil, false
		}
		t := b.Dense(f.Name)
		p := batchhook.Pointer(t)
		if p == nil || t.NumElements() == 0 {
			return nil, false
		}
		k, off, ok := s.ring.locate(s.src.slots, p)
		if !ok || info != nil && k != info.Slot {
			return nil, false
		}
		if info == nil {
			// The slot is this batch's: the descriptor of the one it
			// held before is no longer needed.
			info = s.infoFor(k, b.Len())
		}
		a := &info.Arrays[i]
		a.Name, a.DType, a.Offset, a.NBytes = f.Name, f.DType, off, len(rawBytes(t))
		a.Shape = append(a.Shape, t.Shape()...)
	}
	if info == nil {
		return nil, false
	}
	info.File, info.FileSize = s.ring.announce(info.Slot)
	return info, true
}
