package sample

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/sluiceml/sluice/input"
	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tensor"
)

// labelBatches is a LabelsStep that returns the given batches, then
// io.EOF. It is safe for concurrent use.
func labelBatches(labels [][]int, data []queue.Element) LabelsStep {
	var mu sync.Mutex
	i := 0
	return func(context.Context) ([]int, queue.Element, error) {
		mu.Lock()
		defer mu.Unlock()
		if i == len(labels) {
			return nil, nil, errEOF
		}
		i++
		return labels[i-1], data[i-1], nil
	}
}

// ST-02, ST-03: an enqueue_many batch must have labels, and every
// component a batch dimension of as many rows; the error names the batch,
// the component and the sizes, and stops the pipeline.
func TestUnbatchLabelsChecks(t *testing.T) {
	good := queue.Element{tensor.New([]int64{1, 2})}
	for _, tc := range []struct {
		name   string
		labels []int
		data   queue.Element
		want   string
	}{
		{"scalar data", []int{0}, queue.Element{tensor.Scalar(int64(1))}, "batch 1: component 0 is a scalar; enqueue_many needs a batch dimension"},
		{"data 2 labels 1", []int{0}, queue.Element{tensor.New([]int64{1, 2})}, "batch 1: component 0 has 2 rows, but there are 1 labels"},
		{"labels 2 data 3", []int{0, 1}, queue.Element{good[0], tensor.New([]float32{1, 2, 3, 4, 5, 6}, 3, 2)}, "batch 1: component 1 has 3 rows, but there are 2 labels"},
		{"no labels", []int{}, queue.Element{tensor.Zeros(tensor.Int64, tensor.Shape{0})}, "batch 1 has no labels; the label batch size must be > 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// A good batch first, with as many components: the error
			// names the second.
			first := queue.Element{good[0]}
			if len(tc.data) == 2 {
				first = queue.Element{good[0], tensor.New([]float32{0, 0, 0, 0}, 2, 2)}
			}
			p := input.NewPipeline()
			b := StratifiedSample(p, UnbatchLabels(labelBatches([][]int{{0, 1}, tc.labels}, []queue.Element{first, tc.data})),
				[]float64{.5, .5}, 1, InitProbs([]float64{.5, .5}))
			_, err := drain(t, p, b.Next)
			if !errors.Is(err, queue.ErrInvalidArgument) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%v, want %q", err, tc.want)
			}
		})
	}
}

// ST-05: enqueue_many batches of 11 labels, all 1 or all 3, sampled to
// [0, .2, 0, .8, 0] from [0, .3, 0, .7, 0] in batches of 20: batches come
// (no deadlock) with data rows that match their labels. A second sampler
// in the same pipeline, estimating the input online, works alongside.
func TestStratifiedSampleEnqueueMany(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	var labels [][]int
	var data []queue.Element
	for range 60 {
		l := 3
		if rng.Float64() < .3 {
			l = 1
		}
		ls := make([]int, 11)
		rows := make([]int64, 0, 22)
		for i := range ls {
			ls[i] = l
			rows = append(rows, int64(l), int64(4*l))
		}
		labels = append(labels, ls)
		data = append(data, queue.Element{tensor.New(rows, 11, 2)})
	}
	p := input.NewPipeline(input.Seed(5))
	target := []float64{0, .2, 0, .8, 0}
	known := StratifiedSample(p, UnbatchLabels(labelBatches(labels, data)), target, 20,
		InitProbs([]float64{0, .3, 0, .7, 0}), Names("data"))
	online := StratifiedSample(p, UnbatchLabels(labelBatches(labels, data)), target, 20, Names("data"),
		Warn(func(string) {})) // it starts from uniform counts: a high rejection
	if err := p.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	defer p.Stop(t.Context())
	for _, s := range []*input.Batches{known, online} {
		bt, err := s.Next(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		got, rows := bt.Int64("label"), bt.Tensor("data")
		if len(got) != 20 || !rows.Shape().Equal(tensor.Shape{20, 2}) {
			t.Fatalf("batch of %d labels, data %v", len(got), rows.Shape())
		}
		for i, l := range got {
			if l != 1 && l != 3 || rows.Row(i).Int64s()[1] != 4*l {
				t.Errorf("row %d: label %d data %v", i, l, rows.Row(i).Int64s())
			}
		}
	}
}

// With several goroutines running an unbatched step, every example of
// every batch is delivered once, with its label (ST-07: the online
// estimate is shared by the goroutines; -race checks the sharing).
func TestUnbatchLabelsConcurrent(t *testing.T) {
	var labels [][]int
	var data []queue.Element
	next := int64(0)
	for b := range 100 {
		n := 1 + b%7
		ls := make([]int, n)
		ids := make([]int64, n)
		for i := range ls {
			ls[i] = int(next % 2)
			ids[i] = next
			next++
		}
		labels = append(labels, ls)
		data = append(data, queue.Element{tensor.New(ids)})
	}
	p := input.NewPipeline(input.Seed(1))
	b := StratifiedSample(p, UnbatchLabels(labelBatches(labels, data)), []float64{.5, .5}, 8,
		Names("id"), Smoothing(1_000_000), // the estimate stays at .5/.5: everything is kept
		BatchOptions(input.Threads(4), input.AllowSmallerFinalBatch()))
	batches, err := drain(t, p, b.Next)
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, bt := range batches {
		for i, id := range bt.Int64("id") {
			if bt.Int64("label")[i] != id%2 {
				t.Errorf("example %d has label %d", id, bt.Int64("label")[i])
			}
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	for i, id := range ids {
		if id != int64(i) {
			t.Fatalf("examples %v..., want each of 0..%d once", ids[:min(len(ids), i+3)], next-1)
		}
	}
	if len(ids) != int(next) {
		t.Errorf("%d examples, want %d", len(ids), next)
	}
}

// RS-01 with enqueue_many: batches of 1.0s and 2.0s accepted with
// probability x-1 give batches of 2.0 only; a scalar component or
// components of 5 and 4 rows are errors naming the batch.
func TestUnbatchRejection(t *testing.T) {
	batches := func(es ...queue.Element) input.Step {
		i := 0
		return func(context.Context) (queue.Element, error) {
			if i == len(es) {
				return nil, errEOF
			}
			i++
			return es[i-1], nil
		}
	}
	var es []queue.Element
	for range 40 {
		es = append(es, queue.Element{tensor.New([]float64{1, 2, 1, 2, 2})})
	}
	accept := func(e queue.Element) float64 { return e[0].Float64s()[0] - 1 }
	p := input.NewPipeline(input.Seed(2))
	b := RejectionSample(p, Unbatch(batches(es...)), accept, 10)
	out, err := drain(t, p, b.Next)
	if err != nil || len(out) != 12 {
		t.Fatalf("%d batches, %v; want 12", len(out), err)
	}
	for _, bt := range out {
		if got := bt.Element()[0].Float64s(); slices.ContainsFunc(got, func(x float64) bool { return x != 2 }) {
			t.Errorf("batch %v", got)
		}
	}
	for _, tc := range []struct {
		name string
		e    queue.Element
		want string
	}{
		{"scalar", queue.Element{tensor.Scalar(1.0)}, "batch 0: component 0 is a scalar"},
		{"5 vs 4", queue.Element{tensor.New(make([]float64, 5)), tensor.New(make([]int64, 4))}, "batch 0: component 1 has 4 rows, but component 0 has 5"},
		{"empty", queue.Element{}, "batch 0 has no components"},
	} {
		p := input.NewPipeline()
		b := RejectionSample(p, Unbatch(batches(tc.e)), accept, 1)
		if _, err := drain(t, p, b.Next); !errors.Is(err, queue.ErrInvalidArgument) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

// RE-02 with enqueue_many: an empty batch of rates resamples to nothing;
// rates and rows must agree.
func TestUnbatchRates(t *testing.T) {
	batches := func(rates [][]float64, es []queue.Element) RatesStep {
		i := 0
		return func(context.Context) ([]float64, queue.Element, error) {
			if i == len(rates) {
				return nil, nil, errEOF
			}
			i++
			return rates[i-1], es[i-1], nil
		}
	}
	p := input.NewPipeline(input.Seed(3))
	b := ResampleAtRateStage(p, UnbatchRates(batches(
		[][]float64{{}, {0, 30}, {}},
		[]queue.Element{
			{tensor.Zeros(tensor.Int64, tensor.Shape{0})},
			{tensor.New([]int64{7, 8})},
			{tensor.Zeros(tensor.Int64, tensor.Shape{0})},
		})), 1, Names("id"))
	out, err := drain(t, p, b.Next)
	if err != nil || len(out) < 10 {
		t.Fatalf("%d batches, %v", len(out), err)
	}
	for _, bt := range out {
		if id := bt.Int64("id")[0]; id != 8 {
			t.Errorf("example %d (rate 0) emitted", id)
		}
	}
	p = input.NewPipeline()
	b = ResampleAtRateStage(p, UnbatchRates(batches([][]float64{{1, 1}}, []queue.Element{{tensor.New([]int64{1, 2, 3})}})), 1)
	if _, err := drain(t, p, b.Next); !contains(err, "batch 0: component 0 has 3 rows, but there are 2 rates or weights") {
		t.Errorf("3 rows, 2 rates: %v", err)
	}
}
