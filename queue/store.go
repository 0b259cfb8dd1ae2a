package queue

import (
	"math/rand/v2"
	"time"
)

// A slot is one queued element: e itself, or row row of e, a batch an
// EnqueueMany inserted. The rows of a batch are not made into tensors of
// their own unless a single Dequeue returns one: a batch dequeue copies
// them straight out of the batch, so that moving a batch from queue to
// queue (the front door's shuffle) allocates nothing per row.
type slot struct {
	e   Element
	row int // -1 when e is the element
}

func whole(e Element) slot { return slot{e: e, row: -1} }

// priority returns the priority of a Priority queue's element: its
// component 0.
func (s slot) priority() int64 { return s.e[0].Int64s()[max(s.row, 0)] }

// element returns the element the slot holds, making its row views if it
// is a batch's row.
func (s slot) element() Element {
	if s.row < 0 {
		return s.e
	}
	e := make(Element, len(s.e))
	for c, t := range s.e {
		e[c] = t.Row(s.row)
	}
	return e
}

// fifoStore is a ring buffer: elements leave in the order they came.
type fifoStore struct {
	buf  []slot
	head int
	n    int
}

func (s *fifoStore) len() int { return s.n }

func (s *fifoStore) grow() {
	nb := make([]slot, max(8, 2*len(s.buf)))
	for i := range s.n {
		nb[i] = s.buf[(s.head+i)%len(s.buf)]
	}
	s.buf, s.head = nb, 0
}

func (s *fifoStore) push(e slot) {
	if s.n == len(s.buf) {
		s.grow()
	}
	s.buf[(s.head+s.n)%len(s.buf)] = e
	s.n++
}

func (s *fifoStore) pop() slot {
	e := s.buf[s.head]
	s.buf[s.head] = slot{}
	s.head = (s.head + 1) % len(s.buf)
	s.n--
	return e
}

func (s *fifoStore) popN(dst []slot, n int) []slot {
	for range n {
		dst = append(dst, s.pop())
	}
	return dst
}

func (s *fifoStore) unpop(e slot) {
	if s.n == len(s.buf) {
		s.grow()
	}
	s.head = (s.head - 1 + len(s.buf)) % len(s.buf)
	s.buf[s.head] = e
	s.n++
}

// shuffleStore draws a uniformly random element: the drawn slot is filled
// with the last element (TensorFlow's RandomShuffleQueue, RSQ-12).
type shuffleStore struct {
	items []slot
	rng   *rand.Rand
	sink  int // popN's, see there
}

func newShuffleStore(seed uint64) *shuffleStore {
	if seed == 0 {
		seed = uint64(time.Now().UnixNano()) ^ rand.Uint64()
	}
	return &shuffleStore{rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

func (s *shuffleStore) len() int     { return len(s.items) }
func (s *shuffleStore) push(e slot)  { s.items = append(s.items, e) }
func (s *shuffleStore) unpop(e slot) { s.items = append(s.items, e) }

func (s *shuffleStore) pop() slot {
	i := s.rng.IntN(len(s.items))
	last := len(s.items) - 1
	e := s.items[i]
	s.items[i] = s.items[last]
	s.items[last] = slot{}
	s.items = s.items[:last]
	return e
}

// popN draws n elements, making the same draws as n calls of pop (the
// k-th from the first len-k slots), but finds the drawn slots before
// moving any. A batch dequeue draws under the queue's lock, and in a
// shuffle buffer far larger than the cache each drawn slot is a miss:
// one after another they held the lock 8–16 µs for a batch of 128, while
// the readers' enqueues waited. Loaded together, the misses overlap.
func (s *shuffleStore) popN(dst []slot, n int) []slot {
	var at [popChunk]int
	for n > 0 {
		m := min(n, popChunk)
		size := len(s.items)
		// sink keeps the loads of the drawn slots, whose only purpose
		// is to bring them into the cache, from being dropped.
		sink := 0
		for k := range m {
			i := s.rng.IntN(size - k)
			at[k] = i
			sink += s.items[i].row
		}
		s.sink = sink
		for _, i := range at[:m] {
			last := len(s.items) - 1
			dst = append(dst, s.items[i])
			s.items[i] = s.items[last]
			s.items[last] = slot{}
			s.items = s.items[:last]
		}
		n -= m
	}
	return dst
}

// popChunk is how many draws popN finds at a time.
const popChunk = 32

// priorityStore gives the element with the smallest priority (component
// 0) first; equal priorities leave in insertion order. It is a binary
// min-heap written out rather than container/heap, whose Push and Pop box
// every element in an interface.
type priorityStore struct {
	h   []prioritized
	seq int64 // the last push's
	// low is the last unpop's sequence number: each unpop's is below
	// every other's (see unpop).
	low int64
}

type prioritized struct {
	prio int64
	seq  int64
	e    slot
}

func (a prioritized) less(b prioritized) bool {
	if a.prio != b.prio {
		return a.prio < b.prio
	}
	return a.seq < b.seq
}

func (s *priorityStore) len() int { return len(s.h) }

func (s *priorityStore) push(e slot) {
	s.seq++
	s.insert(prioritized{prio: e.priority(), seq: s.seq, e: e})
}

func (s *priorityStore) insert(p prioritized) {
	s.h = append(s.h, p)
	// Sift the new last entry up.
	h := s.h
	i := len(h) - 1
	for i > 0 {
		parent := (i - 1) / 2
		if !h[i].less(h[parent]) {
			break
		}
		h[i], h[parent] = h[parent], h[i]
		i = parent
	}
}

func (s *priorityStore) pop() slot {
	h := s.h
	top := h[0].e
	last := len(h) - 1
	h[0] = h[last]
	h[last] = prioritized{}
	h = h[:last]
	s.h = h
	// Sift the moved entry down.
	i := 0
	for {
		small, l, r := i, 2*i+1, 2*i+2
		if l < len(h) && h[l].less(h[small]) {
			small = l
		}
		if r < len(h) && h[r].less(h[small]) {
			small = r
		}
		if small == i {
			return top
		}
		h[i], h[small] = h[small], h[i]
		i = small
	}
}

func (s *priorityStore) popN(dst []slot, n int) []slot {
	for range n {
		dst = append(dst, s.pop())
	}
	return dst
}

// unpop gives an element back, where it was among the elements of equal
// priority: before all of them. Each element popped was the first of its
// priority, and the elements of that priority queued since came after
// it; elements are given back in the reverse of the order they were
// taken, by one dequeue at a time (only the first blocked dequeue takes
// any), so that each given back goes before the one given back just
// before it. A sequence number below all others is thus the element's
// original place, without keeping its own number in every slot.
func (s *priorityStore) unpop(e slot) {
	s.low--
	s.insert(prioritized{prio: e.priority(), seq: s.low, e: e})
}
