package input

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tensor"
)

// recycleSource makes the steps of runRecycling's pipelines: readers
// sharing a producer of "files", each record an element of an 8-float
// "image" and an int64 "label" (and, with str, a string "name"), made from
// the file and record numbers. With recycle, a step fills what Recycled
// gives it, after overwriting it with -1s: a batch sharing memory with a
// recycled element would show them, or a later record's values.
type recycleSource struct {
	recycle bool
	str     bool // a String component too
	named   bool // the step declares its components in reverse order
	// recycled counts the elements Recycled gave the steps, zeroStrings
	// those whose String component came back a zero tensor, as it must.
	zeroStrings, recycled int
}

func (s *recycleSource) steps(p *Pipeline, n int) []Step {
	files := p.RangeInputProducer(10, NumEpochs(3))
	steps := make([]Step, n)
	for i := range steps {
		var file, record int64 = -1, 0
		steps[i] = func(ctx context.Context) (queue.Element, error) {
			if file < 0 || record == 20+file%7 {
				e, err := files.Dequeue(ctx)
				if err != nil {
					return nil, err
				}
				file, record = int64(e[0].Int32s()[0]), 0
			}
			record++
			id := 1000*file + record
			var e queue.Element
			if s.recycle {
				e = Recycled(ctx)
			}
			img, lbl, name := 0, 1, 2
			if s.named {
				// Declared as name?, label, image.
				img, lbl, name = len(s.names())-1, len(s.names())-2, 0
			}
			if e != nil {
				s.recycled++
				if s.str {
					if e[name].IsValid() {
						return nil, errors.New("a recycled String component is not a zero tensor")
					}
					s.zeroStrings++
				}
				if e[img].DType() != tensor.Float32 || e[lbl].DType() != tensor.Int64 {
					return nil, errors.New("a recycled element is not in the step's order")
				}
				for j := range e[img].Float32s() {
					e[img].Float32s()[j] = -1
				}
				e[lbl].Int64s()[0] = -1
			} else {
				e = make(queue.Element, len(s.names()))
				e[img] = tensor.Zeros(tensor.Float32, tensor.Shape{8})
				e[lbl] = tensor.Zeros(tensor.Int64, tensor.Shape{})
			}
			for j := range e[img].Float32s() {
				e[img].Float32s()[j] = float32(id) + float32(j)/8
			}
			e[lbl].Int64s()[0] = id
			if s.str {
				e[name] = tensor.Strings("r" + strconv.FormatInt(id, 10)).Row(0)
			}
			if s.named {
				return Named(ctx, e, s.names()...), nil
			}
			return e, nil
		}
	}
	return steps
}

// names returns the components' names in the step's order.
func (s *recycleSource) names() []string {
	names := []string{"image", "label"}
	if s.str {
		names = append(names, "name")
	}
	if s.named {
		slices.Reverse(names)
	}
	return names
}

// runRecycling runs a deterministic pipeline and returns its batches,
// rendered after the last one was delivered, so that a batch whose memory
// a later step overwrote would show it. into reads them with NextInto
// (each batch rendered on arrival, as its memory is reused).
func runRecycling(t *testing.T, src *recycleSource, into bool, batch func(p *Pipeline, steps []Step, opts ...BatcherOption) *Batches) string {
	t.Helper()
	p := NewPipeline(Seed(3), Deterministic())
	var opts []BatcherOption
	if src.recycle {
		opts = append(opts, Recycle())
	}
	out := batch(p, src.steps(p, 3), opts...)
	if err := p.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	var s strings.Builder
	eachBatch(t, out, into, func(b Batch) { renderBatch(&s, b) })
	if err := p.Join(t.Context()); err != nil {
		t.Fatal(err)
	}
	return s.String()
}

// eachBatch takes every batch of out and calls f on each: with into, by
// NextInto, each batch reusing the last one's memory, as soon as it comes;
// else by Next, after the last, all kept until then, so that a batch
// overwritten by a recycled element would show.
func eachBatch(t *testing.T, out *Batches, into bool, f func(Batch)) {
	t.Helper()
	var held []Batch
	var b Batch
	for {
		var err error
		if into {
			b, err = out.NextInto(t.Context(), b)
		} else {
			b, err = out.Next(t.Context())
		}
		if errors.Is(err, errEOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if into {
			f(b)
		} else {
			held = append(held, b)
		}
	}
	for _, b := range held {
		f(b)
	}
}

func renderBatch(s *strings.Builder, b Batch) {
	for _, name := range b.Names() {
		s.WriteString(name + " " + b.Tensor(name).String() + "\n")
	}
}

// TestRecycleSameBatches: a pipeline whose steps fill recycled elements
// delivers, bit for bit, the batches of the same pipeline allocating an
// element per example, for every kind of batcher, with consumers that keep
// every batch or reuse one: no recycled element is visible to the consumer
// once a step reuses it.
func TestRecycleSameBatches(t *testing.T) {
	for _, tc := range []struct {
		name  string
		src   recycleSource
		batch func(p *Pipeline, steps []Step, opts ...BatcherOption) *Batches
	}{
		{"BatchJoin", recycleSource{}, func(p *Pipeline, steps []Step, opts ...BatcherOption) *Batches {
			return p.BatchJoin(steps, 8, append(as[BatchOption](opts), AllowSmallerFinalBatch(), Names("image", "label"))...)
		}},
		{"ShuffleBatchJoin", recycleSource{}, func(p *Pipeline, steps []Step, opts ...BatcherOption) *Batches {
			return p.ShuffleBatchJoin(steps, 8, append(as[ShuffleBatchOption](opts),
				Capacity(60), MinAfterDequeue(30), AllowSmallerFinalBatch(), Names("image", "label"))...)
		}},
		{"Batch with threads", recycleSource{}, func(p *Pipeline, steps []Step, opts ...BatcherOption) *Batches {
			return p.Batch(steps[0], 8, append(as[BatchOption](opts), Threads(3), Names("image", "label"))...)
		}},
		{"ShuffleBatch with threads", recycleSource{}, func(p *Pipeline, steps []Step, opts ...BatcherOption) *Batches {
			return p.ShuffleBatch(steps[0], 8, append(as[ShuffleBatchOption](opts),
				Threads(2), Capacity(50), MinAfterDequeue(20), Names("image", "label"))...)
		}},
		{"DynamicPad", recycleSource{}, func(p *Pipeline, steps []Step, opts ...BatcherOption) *Batches {
			return p.BatchJoin(steps, 8, append(as[BatchOption](opts), DynamicPad(), AllowSmallerFinalBatch(), Names("image", "label"))...)
		}},
		{"String component", recycleSource{str: true}, func(p *Pipeline, steps []Step, opts ...BatcherOption) *Batches {
			return p.ShuffleBatchJoin(steps, 8, append(as[ShuffleBatchOption](opts),
				Capacity(60), MinAfterDequeue(30), AllowSmallerFinalBatch(), Names("image", "label", "name"))...)
		}},
		{"Named in another order", recycleSource{str: true, named: true}, func(p *Pipeline, steps []Step, opts ...BatcherOption) *Batches {
			return p.ShuffleBatchJoin(steps, 8, append(as[ShuffleBatchOption](opts),
				Capacity(60), MinAfterDequeue(30), AllowSmallerFinalBatch(), Names("image", "label", "name"))...)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, into := range []bool{false, true} {
				plain := tc.src
				want := runRecycling(t, &plain, into, tc.batch)
				recycling := tc.src
				recycling.recycle = true
				got := runRecycling(t, &recycling, into, tc.batch)
				if got != want {
					t.Fatalf("NextInto %v: recycling pipeline's batches:\n%s\nwant:\n%s", into, got, want)
				}
				// The test proves nothing unless elements were recycled.
				if recycling.recycled < 100 {
					t.Fatalf("NextInto %v: %d elements recycled, want most of 500", into, recycling.recycled)
				}
				if tc.src.str && recycling.zeroStrings != recycling.recycled {
					t.Fatalf("%d of %d recycled String components were zero tensors", recycling.zeroStrings, recycling.recycled)
				}
			}
		})
	}
}

// TestRecycledNil: without Recycle, or outside a stage, Recycled returns
// nil.
func TestRecycledNil(t *testing.T) {
	if e := Recycled(t.Context()); e != nil {
		t.Fatalf("Recycled outside a stage: %v", e)
	}
	p := NewPipeline(Seed(1))
	var got []queue.Element
	step := counter(300)
	out := p.Batch(func(ctx context.Context) (queue.Element, error) {
		got = append(got, Recycled(ctx))
		return step(ctx)
	}, 10)
	start(t, p)
	drain(t, out)
	if slices.ContainsFunc(got, func(e queue.Element) bool { return e != nil }) {
		t.Fatal("Recycled returned an element in a stage without Recycle")
	}
}

// TestRecycleEnqueueMany: Recycle with EnqueueMany fails the pipeline's
// Start.
func TestRecycleEnqueueMany(t *testing.T) {
	p := NewPipeline()
	p.Batch(counter(3), 2, EnqueueMany(), Recycle())
	if err := p.Start(t.Context()); err == nil || !strings.Contains(err.Error(), "Recycle does not apply with EnqueueMany") {
		t.Fatalf("Start: %v", err)
	}
}

// TestRecycleSteadyAllocs: once its shuffle queue is full, a recycling
// pipeline whose step and consumer reuse memory allocates (almost) nothing
// per example (issue 18: at most 0.05 allocations an example, which
// the root package's BenchmarkMNIST/seedpipeline-shuffle10000-recycle measures).
func TestRecycleSteadyAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	const batch, from, to = 64, 100, 400
	p := NewPipeline(Seed(1))
	steps := make([]Step, 2)
	for i := range steps {
		var n int64
		steps[i] = func(ctx context.Context) (queue.Element, error) {
			n++
			e := Recycled(ctx)
			if e == nil {
				e = queue.Element{tensor.Zeros(tensor.Float32, tensor.Shape{64}), tensor.Zeros(tensor.Int64, tensor.Shape{})}
			}
			e[0].Float32s()[0] = float32(n)
			e[1].Int64s()[0] = n
			return e, nil
		}
	}
	out := p.ShuffleBatchJoin(steps, batch, Capacity(1000+3*batch), MinAfterDequeue(1000), Recycle())
	start(t, p)
	// 0.014 an example on a quiet machine, up to 0.047 with a second
	// suite beside it: how often the goroutines wait is the scheduler's.
	// What the idiom guarantees is nothing per example, beyond the waits.
	if per, most := steadyAllocs(t, out, from, to), waitAllocs(len(steps)+1); per > most {
		t.Errorf("%.3f allocations an example in the steady state, want at most %.3f (nothing but the waits)", per/batch, most/batch)
	} else {
		t.Logf("%.3f allocations an example", per/batch)
	}
}

// waitAllocs bounds the allocations a batch of a pipeline in its steady
// state that allocates nothing per element: a call that waits makes an
// attempt and its channel, and each of the goroutines (the consumer, and
// every step's runner once the queue is full) waits at most once a batch.
func waitAllocs(goroutines int) float64 { return float64(2 * goroutines) }

// steadyAllocs takes batches from..to-1 of out, after taking the first
// from of them to reach the steady state, each into the last one's
// memory, and returns the allocations a batch among them.
func steadyAllocs(t *testing.T, out *Batches, from, to int) float64 {
	t.Helper()
	var b Batch
	var m0, m1 runtime.MemStats
	for i := range to {
		if i == from {
			runtime.ReadMemStats(&m0)
		}
		var err error
		if b, err = out.NextInto(t.Context(), b); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&m1)
	return float64(m1.Mallocs-m0.Mallocs) / float64(to-from)
}

// TestRecycleConsistent: in a pipeline left to its goroutines' timing,
// with steps poisoning each recycled element before filling it, every
// example of every batch is whole (its image row matches its label) and
// delivered exactly once, with consumers that keep every batch or reuse
// one.
func TestRecycleConsistent(t *testing.T) {
	for _, into := range []bool{false, true} {
		p := NewPipeline()
		steps := make([]Step, 2)
		const perStep = 3000
		for i := range steps {
			var n int64
			steps[i] = func(ctx context.Context) (queue.Element, error) {
				if n == perStep {
					return nil, errEOF
				}
				n++
				id := int64(i)*perStep + n
				e := Recycled(ctx)
				if e == nil {
					e = queue.Element{tensor.Zeros(tensor.Float32, tensor.Shape{16}), tensor.Zeros(tensor.Int64, tensor.Shape{})}
				} else {
					for j := range e[0].Float32s() {
						e[0].Float32s()[j] = -1
					}
					e[1].Int64s()[0] = -1
				}
				for j := range e[0].Float32s() {
					e[0].Float32s()[j] = float32(id*16 + int64(j))
				}
				e[1].Int64s()[0] = id
				return e, nil
			}
		}
		out := p.ShuffleBatchJoin(steps, 16, Capacity(200), MinAfterDequeue(100), AllowSmallerFinalBatch(), Recycle(), Names("image", "label"))
		start(t, p)
		check := func(b Batch, seen map[int64]bool) {
			img, lbl := b.Float32("image"), b.Int64("label")
			for r, id := range lbl {
				if seen[id] {
					t.Fatalf("NextInto %v: example %d delivered twice", into, id)
				}
				seen[id] = true
				for j, v := range img[r*16 : (r+1)*16] {
					if v != float32(id*16+int64(j)) {
						t.Fatalf("NextInto %v: example %d has image value %v at %d", into, id, v, j)
					}
				}
			}
		}
		seen := make(map[int64]bool)
		eachBatch(t, out, into, func(b Batch) { check(b, seen) })
		if len(seen) != 2*perStep {
			t.Fatalf("NextInto %v: %d examples delivered, want %d", into, len(seen), 2*perStep)
		}
	}
}

// TestRecycleSpare: a joined pipeline's recycled elements serve the steps
// of the next pipeline whose elements have the same types and shapes, so
// that it fills its queue without allocating a queue's worth again, and
// never a step whose elements differ.
func TestRecycleSpare(t *testing.T) {
	// Shapes no other test, nor another run of this one (-count), uses:
	// the spare elements are the process's.
	spareRuns++
	d := 100 + 3*spareRuns
	// The collector empties a sync.Pool in two cycles, and under load two
	// can fall between the pipelines: what this test checks is where
	// spare elements go, not how long the collector lets them live.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	// The race detector's sync.Pool drops a quarter of what is put, at
	// random; then the second pipeline need only allocate fewer.
	most := func(first int) int { return first / 2 }
	if raceEnabled {
		most = func(first int) int { return first - 1 }
	}
	kind := tensor.Shape{2, d}
	for _, tc := range []struct {
		name  string
		shape tensor.Shape
		pad   bool
		// reuse: the run after kind's allocates at most half of what
		// kind's first run did. Otherwise it
		// is given none of kind's, and allocates at least the elements
		// queued before the first batch: 100 after dequeue and 16, or
		// 16 for a FIFO.
		reuse bool
	}{
		{"same kind", kind, false, true},
		{"another shape", tensor.Shape{2, d + 1}, false, false},
		{"another rank", tensor.Shape{2 * d}, false, false},
		{"padded", kind, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			first, _ := runSpare(t, kind, false)
			allocated, recycled := runSpare(t, tc.shape, tc.pad)
			if recycled == 0 {
				t.Fatal("no element recycled: the test proves nothing")
			}
			least := 116
			if tc.pad {
				least = 16
			}
			switch {
			case tc.reuse && allocated > most(first):
				t.Errorf("the second pipeline allocated %d elements, the first %d: want at most %d", allocated, first, most(first))
			case !tc.reuse && allocated < least:
				t.Errorf("the second pipeline allocated %d elements, want at least %d: it was given another kind's", allocated, least)
			}
		})
	}
}

var spareRuns int

// runSpare runs a recycling pipeline of two steps whose elements are a
// float32 tensor of the given shape and an int64 label, to its end, and
// returns how many elements its steps allocated and how many Recycled gave
// them; it fails t if Recycled gives an element of another shape.
func runSpare(t *testing.T, shape tensor.Shape, pad bool) (allocated, recycled int) {
	t.Helper()
	p := NewPipeline(Seed(7))
	var mu sync.Mutex
	steps := make([]Step, 2)
	for i := range steps {
		n := 0
		steps[i] = func(ctx context.Context) (queue.Element, error) {
			if n == 400 {
				return nil, errEOF
			}
			n++
			e := Recycled(ctx)
			mu.Lock()
			if e == nil {
				allocated++
			} else {
				recycled++
			}
			mu.Unlock()
			if e != nil && !e[0].Shape().Equal(shape) {
				return nil, fmt.Errorf("Recycled gave a %v tensor to a step of %v", e[0].Shape(), shape)
			}
			if e == nil {
				e = queue.Element{tensor.Zeros(tensor.Float32, shape), tensor.Zeros(tensor.Int64, tensor.Shape{})}
			}
			e[1].Int64s()[0] = int64(n)
			return e, nil
		}
	}
	var out *Batches
	if pad {
		out = p.BatchJoin(steps, 16, Capacity(200), DynamicPad(), AllowSmallerFinalBatch(), Recycle())
	} else {
		out = p.ShuffleBatchJoin(steps, 16, Capacity(200), MinAfterDequeue(100), AllowSmallerFinalBatch(), Recycle())
	}
	if err := p.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := len(drain(t, out)); got != 50 {
		t.Fatalf("%d batches, want 50", got)
	}
	if err := p.Join(t.Context()); err != nil {
		t.Fatal(err)
	}
	return allocated, recycled
}

// TestRecycleLateStep: a step that declares its components in another
// order than the stage's, and first runs once elements are being
// recycled, is given them in its own order from the first: an element is
// handed to a step only once its order is known.
func TestRecycleLateStep(t *testing.T) {
	p := NewPipeline(Seed(5))
	late := make(chan struct{})
	steps := make([]Step, 2)
	for i := range steps {
		n := 0
		steps[i] = func(ctx context.Context) (queue.Element, error) {
			if i == 1 && n == 0 {
				select {
				case <-late:
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}
			if n == 300 {
				return nil, errEOF
			}
			n++
			e := Recycled(ctx)
			if e == nil {
				e = queue.Element{tensor.Zeros(tensor.Int64, tensor.Shape{}), tensor.Zeros(tensor.Float32, tensor.Shape{4})}
			} else if e[0].DType() != tensor.Int64 {
				return nil, fmt.Errorf("step %d was given a recycled element in another order: %v first", i, e[0].DType())
			}
			e[0].Int64s()[0] = int64(n)
			return Named(ctx, e, "label", "image"), nil
		}
	}
	out := p.ShuffleBatchJoin(steps, 8, Capacity(40), MinAfterDequeue(10), AllowSmallerFinalBatch(), Recycle(), Names("image", "label"))
	start(t, p)
	var b Batch
	for i := 0; ; i++ {
		if i == 10 {
			close(late)
		}
		var err error
		if b, err = out.NextInto(t.Context(), b); isEOF(err) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
	}
}
