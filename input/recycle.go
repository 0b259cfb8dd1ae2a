package input

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tensor"
)

// Recycled returns an element for the step running with ctx to fill and
// return, one whose values its stage has already copied into a batch, or
// nil when there is none: the stage was built without Recycle, the step
// runs outside a stage, or no element is free yet. The step owns the
// element: it may overwrite its tensors, keep some and replace others, or
// drop it. Call it from the step itself, not from goroutines the step
// starts: each of a stage's goroutines has its own supply. With Recycle the idiom for a parsing step is
//
//	rec, err := r.ReadValue(ctx)
//	if err != nil {
//		return nil, err
//	}
//	return parser.ParseSingleInto(input.Recycled(ctx), rec, "")
//
// which, for numeric FixedLen features, allocates nothing per example once
// the pipeline runs. Elements come back in the order of the stage's
// components, rearranged to the step's own order when the step declares
// another with Named; components of type String come back as zero
// tensors.
func Recycled(ctx context.Context) queue.Element {
	r, ok := ctx.Value(recycledKey{}).(*stepRecycler)
	if !ok {
		return nil
	}
	return r.take()
}

type recycledKey struct{}

// A recycleBin holds the elements a stage's queue has copied into
// batches, for its steps.
//
// It keeps every element it is given, up to a bound no steady state
// reaches, so that an element allocated while the bin was empty for a
// moment (the steps ran ahead of a consumer still copying its batch) is
// kept rather than dropped and allocated again: the elements in
// circulation settle at what the stage needs. Allocations happen only
// when the bin is empty, when the elements outside it are at most the
// queue's capacity, a batch and the steps' own, so the bound, capacity
// plus a batch, is never reached but by elements moving from the queue
// into the bin (at end of input); it is there for safety. Until a step
// calls Recycled, nothing is kept, so a stage whose steps never ask holds
// no more than without Recycle.
//
// When its pipeline is joined the bin gives its elements to spare, the
// elements of the same types and shapes that ended pipelines left, and
// a step of a later pipeline that finds its bin empty takes from there
// before it allocates. A program that builds a pipeline again and again
// (an evaluation every so often, a pipeline a pass) then reuses one set
// of elements instead of allocating and faulting in a shuffle buffer's
// worth each time, its collector cycling while the buffer fills: on the
// seed pipeline that was a third of the CPU of the fill. The spare
// elements are held in a sync.Pool, which the collector empties within
// two cycles when no pipeline asks for them.
type recycleBin struct {
	wanted atomic.Bool // a step has called Recycled
	// spare holds the ended pipelines' elements of this stage's types
	// and shapes; nil until the stage's queue is made, and for elements
	// whose shapes vary.
	spare atomic.Pointer[sync.Pool]

	mu       sync.Mutex
	elems    []queue.Element
	max      int
	released bool // the pipeline was joined: what comes back is spare
}

func newRecycleBin(capacity, batchSize int) *recycleBin {
	return &recycleBin{max: capacity + batchSize}
}

// put is the queue's Recycle func.
func (b *recycleBin) put(elems []queue.Element) {
	if !b.wanted.Load() {
		return
	}
	for _, e := range elems {
		for c := range e {
			if e[c].DType() == tensor.String {
				e[c] = tensor.Tensor{}
			}
		}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.released {
		// A consumer draining its queue after the pipeline was joined.
		giveSpare(b.spare.Load(), elems)
		return
	}
	n := min(len(elems), b.max-len(b.elems))
	b.elems = append(b.elems, elems[:n]...)
}

// take moves up to n elements to dst, or a run of spare elements when the
// bin has none.
func (b *recycleBin) take(dst []queue.Element, n int) []queue.Element {
	b.mu.Lock()
	had := len(b.elems)
	k := had - min(n, had)
	dst = append(dst, b.elems[k:]...)
	clear(b.elems[k:])
	b.elems = b.elems[:k]
	b.mu.Unlock()
	if had == 0 {
		dst = takeSpare(b.spare.Load(), dst)
	}
	return dst
}

// release gives the bin's elements, and those put after, to spare: the
// pipeline was joined, and its steps take no more.
func (b *recycleBin) release() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.released = true
	giveSpare(b.spare.Load(), b.elems)
	b.elems = nil
}

// setSpare makes the bin draw on, and give back to, the spare elements
// of info's types and shapes, when every shape is fully defined: a spare
// element is of use only to a step that writes into it as it is.
func (b *recycleBin) setSpare(info elementInfo) {
	var key strings.Builder
	for i, dt := range info.dtypes {
		if !info.shapes[i].IsFullyDefined() {
			return
		}
		fmt.Fprintf(&key, "%v%v;", dt, info.shapes[i])
	}
	p, _ := spares.LoadOrStore(key.String(), new(sync.Pool))
	b.spare.Store(p.(*sync.Pool))
}

// spares maps the types and shapes of an element, as setSpare writes
// them, to the pool of spare elements of that kind. The pool holds runs of
// up to recycledRun elements.
var spares sync.Map

// giveSpare puts elems, in runs, into pool, if not nil.
func giveSpare(pool *sync.Pool, elems []queue.Element) {
	if pool == nil {
		return
	}
	for len(elems) > 0 {
		n := min(len(elems), recycledRun)
		run := slices.Clone(elems[:n])
		pool.Put(&run)
		elems = elems[n:]
	}
}

// takeSpare appends a run of spare elements from pool, if not nil, to dst.
func takeSpare(pool *sync.Pool, dst []queue.Element) []queue.Element {
	if pool == nil {
		return dst
	}
	if run, ok := pool.Get().(*[]queue.Element); ok {
		dst = append(dst, *run...)
	}
	return dst
}

// recycledRun is how many elements a step takes from its bin at a time,
// so that the bin's lock is taken once per run rather than per element.
const recycledRun = 16

// A stepRecycler hands one step goroutine the elements of its stage's
// recycleBin.
type stepRecycler struct {
	bin    *recycleBin
	o      *order // the step's component order
	cache  []queue.Element
	tmp    queue.Element
	wanted bool // bin.wanted is set
	// arranged is set once the step's first element was put in the
	// stage's order: until then o is not known, and an element in the
	// stage's order cannot be put in the step's.
	arranged bool
}

func (r *stepRecycler) take() queue.Element {
	if len(r.cache) == 0 {
		if !r.wanted {
			r.wanted = true
			r.bin.wanted.Store(true)
		}
		if !r.arranged {
			return nil
		}
		r.cache = r.bin.take(r.cache, recycledRun)
		if len(r.cache) == 0 {
			return nil
		}
	}
	e := r.cache[len(r.cache)-1]
	r.cache[len(r.cache)-1] = nil
	r.cache = r.cache[:len(r.cache)-1]
	if perm := r.o.perm; perm != nil && len(perm) == len(e) {
		// Stage component i is the step's component perm[i].
		r.tmp = append(r.tmp[:0], e...)
		for i, p := range perm {
			e[p] = r.tmp[i]
		}
		clear(r.tmp)
	}
	return e
}
