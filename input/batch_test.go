package input

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tensor"
)

func int64s(b Batch, c int) []int64 { return b.Component(c).Int64s() }

// BAT-02, BAT-09: batches in order, end of input, the smaller final batch.
func TestBatchInOrder(t *testing.T) {
	cases := []struct {
		name    string
		limit   int64
		opts    []BatchOption
		batches [][]int64
	}{
		{"exact", 30, nil, [][]int64{seq(0, 10), seq(10, 20), seq(20, 30)}},
		{"leftover dropped", 35, nil, [][]int64{seq(0, 10), seq(10, 20), seq(20, 30)}},
		{"smaller final", 35, []BatchOption{AllowSmallerFinalBatch()}, [][]int64{seq(0, 10), seq(10, 20), seq(20, 30), seq(30, 35)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := NewPipeline()
			b := p.Batch(counter(c.limit), 10, c.opts...)
			start(t, p)
			var got [][]int64
			for _, batch := range drain(t, b) {
				got = append(got, slices.Clone(int64s(batch, 0)))
			}
			if !slices.EqualFunc(got, c.batches, slices.Equal) {
				t.Fatalf("got %v, want %v", got, c.batches)
			}
			_, err := b.Next(t.Context())
			expectEOF(t, err)
		})
	}
}

func seq(from, to int64) []int64 {
	var s []int64
	for i := from; i < to; i++ {
		s = append(s, i)
	}
	return s
}

// BAT-08, BAT-09 with threads: full batches whose union is the input.
func TestBatchThreads(t *testing.T) {
	p := NewPipeline()
	b := p.Batch(counter(35), 10, Threads(4), AllowSmallerFinalBatch())
	start(t, p)
	var all []int64
	batches := drain(t, b)
	for i, batch := range batches {
		want := 10
		if i == 3 {
			want = 5
		}
		if batch.Len() != want {
			t.Fatalf("batch %d has %d", i, batch.Len())
		}
		all = append(all, int64s(batch, 0)...)
	}
	slices.Sort(all)
	if !slices.Equal(all, seq(0, 35)) {
		t.Fatalf("union = %v", all)
	}
}

// BAT-04: named components.
func TestBatchNames(t *testing.T) {
	p := NewPipeline()
	inner := counter(20)
	step := func(ctx context.Context) (queue.Element, error) {
		e, err := inner(ctx)
		if err != nil {
			return nil, err
		}
		v := e[0].Int64s()[0]
		return queue.Element{tensor.New([]float32{float32(v), float32(-v)}), e[0]}, nil
	}
	b := p.Batch(step, 5, Names("image", "label"))
	start(t, p)
	batches := drain(t, b)
	if len(batches) != 4 {
		t.Fatalf("%d batches", len(batches))
	}
	first := batches[0]
	if !slices.Equal(first.Int64("label"), []int64{0, 1, 2, 3, 4}) ||
		!first.Tensor("image").Shape().Equal(tensor.Shape{5, 2}) || first.Float32("image")[3] != -1 {
		t.Fatalf("first batch = %v", first.Element())
	}
	if !slices.Equal(first.Names(), []string{"image", "label"}) {
		t.Fatalf("names = %v", first.Names())
	}
}

// BAT-05, Q-54: unsigned types batch.
func TestBatchUnsigned(t *testing.T) {
	p := NewPipeline()
	var mu sync.Mutex
	n := 0
	step := func(context.Context) (queue.Element, error) {
		mu.Lock()
		defer mu.Unlock()
		if n == 4 {
			return nil, io.EOF
		}
		n++
		return queue.Element{tensor.Scalar(uint32(n)), tensor.Scalar(uint64(n))}, nil
	}
	b := p.Batch(step, 2)
	start(t, p)
	batches := drain(t, b)
	if len(batches) != 2 || !slices.Equal(batches[1].Component(0).Uint32s(), []uint32{3, 4}) ||
		!slices.Equal(batches[1].Component(1).Uint64s(), []uint64{3, 4}) {
		t.Fatalf("batches = %v", batches)
	}
}

// BAT-06: dynamic padding to the longest example of each batch.
func TestBatchDynamicPad(t *testing.T) {
	p := NewPipeline()
	inner := counter(30)
	step := func(ctx context.Context) (queue.Element, error) {
		e, err := inner(ctx)
		if err != nil {
			return nil, err
		}
		c := int(e[0].Int64s()[0])
		words := make([]string, c)
		for i := range words {
			words[i] = "string"
		}
		return queue.Element{e[0], tensor.Strings(words...)}, nil
	}
	b := p.Batch(step, 10, DynamicPad())
	start(t, p)
	for _, batch := range drain(t, b) {
		counts := int64s(batch, 0)
		strs := batch.Component(1)
		width := int(slices.Max(counts))
		if !strs.Shape().Equal(tensor.Shape{10, width}) {
			t.Fatalf("padded shape %v, want [10,%d]", strs.Shape(), width)
		}
		for r, c := range counts {
			row := strs.Row(r).Strings()
			for j, s := range row {
				want := ""
				if j < int(c) {
					want = "string"
				}
				if string(s) != want {
					t.Fatalf("row for %d, column %d = %q", c, j, s)
				}
			}
		}
	}
}

// BAT-07: enqueue_many re-batches batches.
func TestBatchEnqueueMany(t *testing.T) {
	p := NewPipeline()
	inner := counter(15)
	step := func(ctx context.Context) (queue.Element, error) {
		a, err := inner(ctx)
		if err != nil {
			return nil, err
		}
		b, err := inner(ctx)
		if err != nil {
			return nil, err
		}
		return queue.Element{tensor.New([]int64{a[0].Int64s()[0], b[0].Int64s()[0]})}, nil
	}
	b := p.Batch(step, 10, EnqueueMany())
	start(t, p)
	batches := drain(t, b)
	if len(batches) != 1 || !slices.Equal(int64s(batches[0], 0), seq(0, 10)) {
		t.Fatalf("batches = %v", batches)
	}
}

// BAT-10
func TestBatchNoSteps(t *testing.T) {
	p := NewPipeline()
	p.BatchJoin(nil, 10)
	if err := p.Start(t.Context()); err == nil || !strings.Contains(err.Error(), "Expected at least one set of tensors") {
		t.Fatalf("Start = %v", err)
	}
}

func evenKeep(inner Step) KeepStep {
	return func(ctx context.Context) (queue.Element, tensor.Tensor, error) {
		e, err := inner(ctx)
		if err != nil {
			return nil, tensor.Tensor{}, err
		}
		return e, tensor.Scalar(e[0].Int64s()[0]%2 == 0), nil
	}
}

// MB-01
func TestMaybeBatch(t *testing.T) {
	for _, threads := range []int{1, 5} {
		p := NewPipeline()
		b := p.MaybeBatch(evenKeep(counter(40)), 5, Threads(threads))
		start(t, p)
		batches := drain(t, b)
		if len(batches) != 4 {
			t.Fatalf("%d threads: %d batches", threads, len(batches))
		}
		var all []int64
		for _, batch := range batches {
			for _, v := range int64s(batch, 0) {
				if v%2 != 0 {
					t.Fatalf("odd value %d kept", v)
				}
				all = append(all, v)
			}
		}
		slices.Sort(all)
		if len(all) != 20 || all[19] != 38 {
			t.Fatalf("kept %v", all)
		}
	}
}

// MB-02, MB-03
func TestMaybeBatchVectorKeep(t *testing.T) {
	p := NewPipeline()
	inner := counter(16)
	step := func(ctx context.Context) (queue.Element, tensor.Tensor, error) {
		var vals []int64
		for range 4 {
			e, err := inner(ctx)
			if err != nil {
				return nil, tensor.Tensor{}, err
			}
			vals = append(vals, e[0].Int64s()[0])
		}
		keep := make([]bool, 4)
		for i, v := range vals {
			keep[i] = v%2 == 0
		}
		return queue.Element{tensor.New(vals)}, tensor.New(keep), nil
	}
	b := p.MaybeBatch(step, 4, EnqueueMany())
	start(t, p)
	batches := drain(t, b)
	if len(batches) != 2 || !slices.Equal(int64s(batches[0], 0), []int64{0, 2, 4, 6}) {
		t.Fatalf("batches = %v", batches)
	}

	cases := []struct {
		keep tensor.Tensor
		many bool
		want string
	}{
		{tensor.New([]bool{true, false}), false, "`keep_input` cannot be a vector when `enqueue_many=False`."},
		{tensor.New([]bool{true, false, true, true}, 2, 2), true, "`keep_input` must be 0 or 1 dimensions."},
	}
	for _, c := range cases {
		_, err := applyKeep(queue.Element{tensor.New([]int64{1, 2})}, c.keep, c.many)
		if !errors.Is(err, ErrKeepInput) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("keep %v: %v", c.keep.Shape(), err)
		}
	}
}

func tagged(tag string, inner Step) Step {
	return func(ctx context.Context) (queue.Element, error) {
		e, err := inner(ctx)
		if err != nil {
			return nil, err
		}
		return queue.Element{e[0], tensor.StringScalar(tag)}, nil
	}
}

// BJ-02, BJ-05: per-source order, every source to the end.
func TestBatchJoin(t *testing.T) {
	p := NewPipeline()
	a := tagged("a", counter(72))
	limitB, _ := LimitEpochs(tensor.Scalar(int64(99)), 92)
	bstep := tagged("b", limitB)
	b := p.BatchJoin([]Step{a, bstep}, 5, AllowSmallerFinalBatch())
	start(t, p)
	batches := drain(t, b)
	if len(batches) != 33 || batches[32].Len() != 4 {
		t.Fatalf("%d batches, last %d", len(batches), batches[len(batches)-1].Len())
	}
	var as []int64
	bs := 0
	for _, batch := range batches {
		for i, v := range int64s(batch, 0) {
			switch string(batch.Component(1).Strings()[i]) {
			case "a":
				as = append(as, v)
			case "b":
				bs++
			}
		}
	}
	if !slices.Equal(as, seq(0, 72)) || bs != 92 {
		t.Fatalf("a values %v, %d b", as, bs)
	}
}

// SB-01
func TestShuffleBatchCapacityCheck(t *testing.T) {
	p := NewPipeline()
	p.ShuffleBatch(counter(10), 5, Capacity(16), MinAfterDequeue(16))
	if err := p.Start(t.Context()); err == nil || !strings.Contains(err.Error(), "capacity 16 must be bigger than min_after_dequeue 16.") {
		t.Fatalf("Start = %v", err)
	}
}

// SB-03, SB-04: every element arrives although mad exceeds what is left;
// batches are shuffled.
func TestShuffleBatch(t *testing.T) {
	for _, threads := range []int{1, 4} {
		for _, limit := range []int64{30, 35} {
			t.Run(fmt.Sprintf("threads=%d limit=%d", threads, limit), func(t *testing.T) {
				p := NewPipeline(Seed(141421))
				b := p.ShuffleBatch(counter(limit), 10, Capacity(32), MinAfterDequeue(16), Threads(threads), AllowSmallerFinalBatch())
				start(t, p)
				var all []int64
				batches := drain(t, b)
				for _, batch := range batches {
					all = append(all, int64s(batch, 0)...)
				}
				if len(batches) != int((limit+9)/10) {
					t.Fatalf("%d batches", len(batches))
				}
				if slices.IsSorted(all) {
					t.Fatal("output is in order: not shuffled")
				}
				slices.Sort(all)
				if !slices.Equal(all, seq(0, limit)) {
					t.Fatalf("union %v", all)
				}
			})
		}
	}
}

// SB-06: join mixes sources.
func TestShuffleBatchJoin(t *testing.T) {
	p := NewPipeline(Seed(7))
	b := p.ShuffleBatchJoin([]Step{tagged("a", counter(25)), tagged("b", counter(35))}, 5, Capacity(32), MinAfterDequeue(16))
	start(t, p)
	batches := drain(t, b)
	if len(batches) != 12 {
		t.Fatalf("%d batches", len(batches))
	}
	mixed, as, bs := 0, 0, 0
	for _, batch := range batches {
		tags := map[string]bool{}
		for _, s := range batch.Component(1).Strings() {
			tags[string(s)] = true
			if string(s) == "a" {
				as++
			} else {
				bs++
			}
		}
		if len(tags) == 2 {
			mixed++
		}
	}
	if mixed < 2 || as != 25 || bs != 35 {
		t.Fatalf("mixed %d, a %d, b %d", mixed, as, bs)
	}
}

// Determinism: with a seed and one goroutine per stage, two runs give the
// same batches. (A RandomShuffle queue draws from whatever it holds at the
// moment, which depends on timing, as in TensorFlow; the seeded producer
// shuffle and in-order batching are exact.)
func TestDeterministicWithSeed(t *testing.T) {
	run := func() [][]int64 {
		p := NewPipeline(Seed(42))
		names := p.RangeInputProducer(50, NumEpochs(2))
		step := func(ctx context.Context) (queue.Element, error) {
			e, err := names.Dequeue(ctx)
			if err != nil {
				return nil, err
			}
			return queue.Element{tensor.Scalar(int64(e[0].Int32s()[0]))}, nil
		}
		b := p.Batch(step, 8, AllowSmallerFinalBatch())
		start(t, p)
		var out [][]int64
		for _, batch := range drain(t, b) {
			out = append(out, slices.Clone(int64s(batch, 0)))
		}
		return out
	}
	a, b := run(), run()
	if !slices.EqualFunc(a, b, slices.Equal) {
		t.Fatalf("runs differ:\n%v\n%v", a, b)
	}
	if slices.IsSorted(slices.Concat(a...)) {
		t.Fatal("producer did not shuffle")
	}
}

// An error in a step stops the pipeline; the consumer and Join get it.
func TestStepErrorStopsPipeline(t *testing.T) {
	p := NewPipeline()
	inner := counter(1000)
	boom := errors.New("data.tfrecord:1234: corrupted record")
	step := func(ctx context.Context) (queue.Element, error) {
		e, err := inner(ctx)
		if err == nil && e[0].Int64s()[0] == 25 {
			return nil, boom
		}
		return e, err
	}
	b := p.Batch(step, 10)
	if err := p.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	var got error
	for _, err := range b.All(t.Context()) {
		if err != nil {
			got = err
		}
	}
	if !errors.Is(got, boom) {
		t.Fatalf("consumer got %v", got)
	}
	if err := p.Join(t.Context()); !errors.Is(err, boom) {
		t.Fatalf("Join = %v", err)
	}
}

// A consumer that stops early ends every goroutine (goleak checks).
func TestStopEarly(t *testing.T) {
	p := NewPipeline()
	names := p.StringInputProducer([]string{"a", "b"})
	step := func(ctx context.Context) (queue.Element, error) {
		return names.Dequeue(ctx)
	}
	b := p.ShuffleBatch(step, 4, Capacity(100), MinAfterDequeue(50), Threads(3))
	if err := p.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Next(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := p.Stop(t.Context()); err != nil {
		t.Fatalf("Stop = %v", err)
	}
	// After Stop, consumers drain and then see end of input.
	for {
		if _, err := b.Next(t.Context()); err != nil {
			expectEOF(t, err)
			break
		}
	}
}

// Cancelling Start's context stops the pipeline.
func TestCancelStartContext(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	p := NewPipeline()
	p.StringInputProducer([]string{"a"})
	if err := p.Start(ctx); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := p.Join(t.Context()); err != nil {
		t.Fatalf("Join = %v", err)
	}
}

// BJ-04, BJ-06, SB-05: dynamic padding and keep flags through the join
// and shuffle batchers.
func TestJoinPaddingAndKeep(t *testing.T) {
	p := NewPipeline()
	words := func(tag string, n int) Step {
		inner := counter(int64(n))
		return func(ctx context.Context) (queue.Element, error) {
			e, err := inner(ctx)
			if err != nil {
				return nil, err
			}
			c := int(e[0].Int64s()[0])
			w := make([]string, c+1)
			for i := range w {
				w[i] = tag
			}
			return queue.Element{e[0], tensor.Strings(w...)}, nil
		}
	}
	b := p.BatchJoin([]Step{words("a", 10), words("b", 10)}, 5, DynamicPad(), AllowSmallerFinalBatch())
	start(t, p)
	total := 0
	for _, batch := range drain(t, b) {
		counts := int64s(batch, 0)
		if want := int(slices.Max(counts)) + 1; batch.Component(1).Shape()[1] != want {
			t.Fatalf("BJ-04: padded to %v, want width %d", batch.Component(1).Shape(), want)
		}
		total += batch.Len()
	}
	if total != 20 {
		t.Fatalf("BJ-04: %d examples", total)
	}

	for _, build := range []func(p *Pipeline) *Batches{
		func(p *Pipeline) *Batches {
			return p.MaybeBatchJoin([]KeepStep{evenKeep(counter(20)), evenKeep(counter(20))}, 5)
		},
		func(p *Pipeline) *Batches {
			return p.MaybeShuffleBatch(evenKeep(counter(40)), 5, Capacity(30), MinAfterDequeue(10))
		},
	} {
		p := NewPipeline()
		b := build(p)
		start(t, p)
		n := 0
		for _, batch := range drain(t, b) {
			for _, v := range int64s(batch, 0) {
				if v%2 != 0 {
					t.Fatalf("BJ-06/SB-05: odd value %d kept", v)
				}
				n++
			}
		}
		if n != 20 {
			t.Fatalf("BJ-06/SB-05: %d kept", n)
		}
	}
}
