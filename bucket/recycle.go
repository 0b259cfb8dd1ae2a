package bucket

import (
	"sync"

	"github.com/sluiceml/sluice/queue"
)

// A batchPool keeps the memory of batches their consumer handed back
// (NextInto), for the movers to assemble later batches into.
//
// A batch travels the top queue as one element, the bucket id followed by
// the batch's components, and it is that element that comes back: the
// consumer's batch is a slice of it, by which lent finds it. Each bucket
// has its own list of free elements, because a bucket's batches have the
// same size and, padded, much the same shape, so that a batch assembled
// over the memory of one of its bucket's batches usually takes its
// tensors as they are (a new shape over old memory costs two allocations
// per component). Every bucket gets back as many batches as it sends
// once the consumer hands back each one, so a list stays as short as the
// bucket's batches in flight.
type batchPool struct {
	mu   sync.Mutex
	free [][]queue.Element // by bucket
	max  int               // bound of each list: the top queue's capacity, and a few
	lent []lentBatch       // what NextInto returned, oldest first
}

// A lentBatch is a batch NextInto returned: the top queue's element, and
// the lengths BySequenceLength returned with it, whose memory goes to
// the batch after it.
type lentBatch struct {
	e       queue.Element
	lengths []int
}

// maxLent bounds the batches a pool remembers lending. A consumer that
// hands back each batch has one or two out at a time; one that keeps
// batches it got from NextInto would otherwise make the pool keep them
// all. A batch the pool forgot is still handed back safely: it is
// ignored.
const maxLent = 16

func newBatchPool(buckets, topCapacity int) *batchPool {
	return &batchPool{free: make([][]queue.Element, buckets), max: topCapacity + 4}
}

// take returns a free element of bucket i, or nil.
func (p *batchPool) take(i int) queue.Element {
	p.mu.Lock()
	defer p.mu.Unlock()
	f := p.free[i]
	if len(f) == 0 {
		return nil
	}
	e := f[len(f)-1]
	f[len(f)-1] = nil
	p.free[i] = f[:len(f)-1]
	return e
}

// put makes e, an element of the top queue that nobody holds any more,
// free for its bucket's next batch.
func (p *batchPool) put(e queue.Element) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.putLocked(e)
}

func (p *batchPool) putLocked(e queue.Element) {
	i := int(e[0].Int32s()[0])
	if i < 0 || i >= len(p.free) || len(p.free[i]) >= p.max {
		return
	}
	p.free[i] = append(p.free[i], e)
}

// lend records that e, whose components from at on are a batch, was
// returned by NextInto with lengths.
func (p *batchPool) lend(e queue.Element, lengths []int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.lent) == maxLent {
		copy(p.lent, p.lent[1:])
		p.lent[len(p.lent)-1] = lentBatch{}
		p.lent = p.lent[:len(p.lent)-1]
	}
	p.lent = append(p.lent, lentBatch{e, lengths})
}

// giveBack takes back the batch whose components are dst, if the pool
// lent it: its element goes to its bucket's free list, and its lengths'
// memory is returned for the next batch's. A batch the pool did not lend
// (a zero Batch, one from Next, one forgotten) is left alone.
func (p *batchPool) giveBack(dst queue.Element, at int) (lengths []int) {
	if len(dst) == 0 {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for k := len(p.lent) - 1; k >= 0; k-- {
		l := p.lent[k]
		if len(l.e) != at+len(dst) || &l.e[at] != &dst[0] {
			continue
		}
		copy(p.lent[k:], p.lent[k+1:])
		p.lent[len(p.lent)-1] = lentBatch{}
		p.lent = p.lent[:len(p.lent)-1]
		p.putLocked(l.e)
		return l.lengths
	}
	return nil
}

// An elemBin holds the elements BySequenceLength's steps build (the
// length, then the step's components), which the bucket queues hand back
// once they are copied into a batch (queue.Recycle), for the steps to
// build later examples in: one slice an example otherwise. Only the
// slices are reused; the tensors in them are the step's and are dropped.
type elemBin struct {
	mu    sync.Mutex
	elems []queue.Element
	max   int // what the buckets hold, and a batch each: never reached but at end of input
}

// put is the bucket queues' Recycle func.
func (b *elemBin) put(elems []queue.Element) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := min(len(elems), b.max-len(b.elems))
	for _, e := range elems[:max(n, 0)] {
		clear(e)
		b.elems = append(b.elems, e[:0])
	}
}

// take moves up to n elements to dst.
func (b *elemBin) take(dst []queue.Element, n int) []queue.Element {
	b.mu.Lock()
	defer b.mu.Unlock()
	k := len(b.elems) - min(n, len(b.elems))
	dst = append(dst, b.elems[k:]...)
	clear(b.elems[k:])
	b.elems = b.elems[:k]
	return dst
}

// elemRun is how many elements a step goroutine takes from the bin at a
// time, so that the bin's lock is taken once a run, not once an example.
const elemRun = 16

// A stepElems hands one step goroutine the elements of its stage's bin.
type stepElems struct {
	bin   *elemBin
	cache []queue.Element
}

// get returns an empty element with room for n components.
func (s *stepElems) get(n int) queue.Element {
	if len(s.cache) == 0 {
		s.cache = s.bin.take(s.cache, elemRun)
	}
	for len(s.cache) > 0 {
		e := s.cache[len(s.cache)-1]
		s.cache[len(s.cache)-1] = nil
		s.cache = s.cache[:len(s.cache)-1]
		if cap(e) >= n {
			return e
		}
	}
	return make(queue.Element, 0, n)
}
