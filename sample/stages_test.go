package sample

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/sluiceml/sluice/input"
	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tensor"
)

// values returns an input.Step over vs, one float64 scalar each.
func values(vs ...float64) input.Step {
	i := 0
	return func(context.Context) (queue.Element, error) {
		if i == len(vs) {
			return nil, errEOF
		}
		i++
		return queue.Element{tensor.Scalar(vs[i-1])}, nil
	}
}

// RS-01: values 1.0 or 2.0 accepted with probability x-1: every batch of 10
// is all 2.0; a probability outside [0, 1] stops the pipeline.
func TestRejectionSample(t *testing.T) {
	var vs []float64
	for i := range 200 {
		vs = append(vs, float64(1+i%2))
	}
	p := input.NewPipeline(input.Seed(3))
	b := RejectionSample(p, values(vs...), func(e queue.Element) float64 { return e[0].Float64s()[0] - 1 }, 10)
	batches, err := drain(t, p, b.Next)
	if err != nil || len(batches) != 10 {
		t.Fatalf("%d batches, %v", len(batches), err)
	}
	for _, bt := range batches {
		if got := bt.Element()[0].Float64s(); slices.ContainsFunc(got, func(x float64) bool { return x != 2 }) {
			t.Errorf("batch %v", got)
		}
	}
	for _, prob := range []float64{-0.1, 1.1, math.NaN()} {
		p := input.NewPipeline()
		b := RejectionSample(p, values(1, 2), func(queue.Element) float64 { return prob }, 1)
		if _, err := drain(t, p, b.Next); !errors.Is(err, queue.ErrInvalidArgument) || !strings.Contains(err.Error(), "example 0: acceptance probability") {
			t.Errorf("probability %v: %v", prob, err)
		}
	}
}

// The pipeline form of ResampleAtRate: each example's copies are adjacent,
// their number is Poisson(rate) (mean within 4 standard errors), and a bad
// rate stops the pipeline naming it.
func TestResampleAtRateStage(t *testing.T) {
	const n = 3000
	i := 0
	step := func(context.Context) (float64, queue.Element, error) {
		if i == n {
			return 0, nil, errEOF
		}
		i++
		return float64(i%3) * 0.75, queue.Element{tensor.Scalar(int64(i - 1))}, nil // rates 0.75, 1.5, 0
	}
	p := input.NewPipeline(input.Seed(4))
	b := ResampleAtRateStage(p, step, 32, Names("id"), BatchOptions(input.AllowSmallerFinalBatch()))
	batches, err := drain(t, p, b.Next)
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, bt := range batches {
		ids = append(ids, bt.Int64("id")...)
	}
	if !slices.IsSorted(ids) {
		t.Error("copies of an example are not adjacent, or examples out of order")
	}
	counts := map[int64]int{}
	for _, id := range ids {
		counts[id]++
	}
	for _, id := range ids {
		if (id+1)%3 == 0 {
			t.Fatalf("example %d has rate 0 but was emitted", id)
		}
	}
	// Expected total: n/3 · (0.75 + 1.5).
	want := n / 3 * 2.25
	if se := math.Sqrt(want); math.Abs(float64(len(ids))-want) > 4*se {
		t.Errorf("%d copies, want %v ± %v", len(ids), want, 4*se)
	}

	p = input.NewPipeline()
	bad := func(context.Context) (float64, queue.Element, error) {
		return -1, queue.Element{tensor.Scalar(int64(0))}, nil
	}
	b = ResampleAtRateStage(p, bad, 1)
	if _, err := drain(t, p, b.Next); !errors.Is(err, queue.ErrInvalidArgument) || !strings.Contains(err.Error(), "example 0: rate -1") {
		t.Errorf("negative rate: %v", err)
	}
}

// WeightedResample: rows carry their rate first; twice the weight,
// about twice the copies and twice the rate.
func TestWeightedResample(t *testing.T) {
	const n = 4000
	i := 0
	step := func(context.Context) (float64, queue.Element, error) {
		if i == n {
			return 0, nil, errEOF
		}
		i++
		return float64(1 + i%2), queue.Element{tensor.Scalar(int64(i % 2))}, nil // weight 1 or 2
	}
	p := input.NewPipeline(input.Seed(5))
	b := WeightedResample(p, step, 0.5, 16, Names("heavy"), MeanDecay(0.99))
	batches, err := drain(t, p, b.Next)
	if err != nil {
		t.Fatal(err)
	}
	copies := [2]float64{}
	rates := [2]float64{}
	for _, bt := range batches {
		for j, h := range bt.Int64("heavy") {
			copies[h]++
			rates[h] += bt.Float64("rate")[j]
		}
	}
	if r := copies[1] / copies[0]; math.Abs(r-2) > 0.25 {
		t.Errorf("weight 2 got %v times the copies of weight 1, want 2", r)
	}
	if r := (rates[1] / copies[1]) / (rates[0] / copies[0]); math.Abs(r-2) > 0.1 {
		t.Errorf("rate ratio %v, want 2", r)
	}
	// An average-weight example has rate 0.5: the mean rate per input example is 0.5.
	if total := copies[0] + copies[1]; math.Abs(total/n-0.5) > 0.05 {
		t.Errorf("%v copies of %d examples, want about half", total, n)
	}
}

// SU-01, SU-02: all probability on one class gives batches of that class
// only; labels never decrease within a batch, and the batch takes its
// examples from per-class stores in their order.
func TestStratifiedSampleUnknownDist(t *testing.T) {
	for _, tc := range []struct {
		probs []float64
		label func(i int) int
	}{
		{[]float64{1, 0, 0, 0, 0}, func(int) int { return 0 }},
		{[]float64{0, 0, 0, 1, 0}, func(int) int { return 3 }},
		{[]float64{.5, 0, 0, .5, 0}, func(i int) int { return 3 * (i % 2) }},
	} {
		p := input.NewPipeline(input.Seed(6))
		// Capacity for the whole input: the multinomial draws of the mixed
		// case may run ahead of the input's alternation.
		b := StratifiedSampleUnknownDist(p, source(400, tc.label), tc.probs, 8, Names("id"), ClassCapacity(400))
		batches, err := drain(t, p, b.Next)
		if err != nil {
			t.Fatal(err)
		}
		if len(batches) < 10 {
			t.Fatalf("probs %v: %d batches", tc.probs, len(batches))
		}
		for _, bt := range batches {
			labels, ids := bt.Int64("label"), bt.Int64("id")
			if len(labels) != 8 || !slices.IsSorted(labels) {
				t.Fatalf("labels %v", labels)
			}
			for j, l := range labels {
				if tc.probs[l] == 0 || int64(tc.label(int(ids[j]))) != l {
					t.Fatalf("probs %v: label %d with example %d", tc.probs, l, ids[j])
				}
			}
		}
	}
	// A class of probability 0 is dropped, not held.
	p := input.NewPipeline(input.Seed(6))
	b := StratifiedSampleUnknownDist(p, source(50, func(i int) int { return i % 2 }), []float64{0, 1}, 5, ClassCapacity(1))
	batches, err := drain(t, p, b.Next)
	if err != nil || len(batches) != 5 || b.Dropped() != 25 {
		t.Errorf("probs [0 1]: %d batches, %d dropped, %v; want 5 and 25", len(batches), b.Dropped(), err)
	}
	// An example of more components than the first is an error, not a
	// batch that loses them (audit 72).
	p = input.NewPipeline(input.Seed(6))
	i := 0
	mixed := func(context.Context) (int, queue.Element, error) {
		i++
		if i%2 == 1 {
			return 0, queue.Element{tensor.Scalar(int64(i))}, nil
		}
		return 1, queue.Element{tensor.Scalar(int64(i)), tensor.Scalar(int64(-i))}, nil
	}
	b = StratifiedSampleUnknownDist(p, mixed, []float64{.5, .5}, 4)
	if _, err := drain(t, p, b.Next); !errors.Is(err, queue.ErrInvalidArgument) || !strings.Contains(err.Error(), "example 1 has 2 components, the first 1") {
		t.Errorf("mixed components: %v", err)
	}
	p = input.NewPipeline()
	b = StratifiedSampleUnknownDist(p, source(10, func(int) int { return 7 }), []float64{.5, .5}, 2)
	if _, err := drain(t, p, b.Next); !errors.Is(err, queue.ErrInvalidArgument) || !strings.Contains(err.Error(), "example 0: label 7 is not in [0, 2)") {
		t.Errorf("bad label: %v", err)
	}
	p = input.NewPipeline()
	StratifiedSampleUnknownDist(p, source(1, func(int) int { return 0 }), []float64{.5, .6}, 2)
	if err := p.Start(t.Context()); !errors.Is(err, queue.ErrInvalidArgument) {
		t.Errorf("probabilities summing to 1.1: %v", err)
	}
	p.Stop(t.Context())
}

// SU-02 on an input of random classes, the batch larger than a class's
// capacity: the batch being formed waits for one class while another's
// store fills, and that class drops its surplus rather than wait for room,
// which only the batch's class would make. It waited: the stage stopped
// for good after the first few batches, whatever ClassCapacity (audit 69).
// Every example is delivered once, dropped, or left in the batch the end
// of input cut short.
func TestStratifiedSampleUnknownDistRandomInput(t *testing.T) {
	for _, tc := range []struct {
		name            string
		batch, capacity int
		threads         int
		deterministic   bool
	}{
		{"batch over capacity", 32, DefaultClassCapacity, 1, false},
		{"batch under capacity", 8, 64, 3, false},
		{"deterministic", 32, DefaultClassCapacity, 3, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const n = 20000
			rng := rand.New(rand.NewPCG(1, 2))
			labels := make([]int, n)
			for i := range labels {
				labels[i] = rng.IntN(3)
			}
			var popts []input.PipelineOption
			if tc.deterministic {
				popts = append(popts, input.Deterministic())
			}
			p := input.NewPipeline(append(popts, input.Seed(4))...)
			src := source(n, func(i int) int { return labels[i] })
			var mu sync.Mutex // for Threads
			step := func(ctx context.Context) (int, queue.Element, error) {
				mu.Lock()
				defer mu.Unlock()
				return src(ctx)
			}
			b := StratifiedSampleUnknownDist(p, step, []float64{.2, .3, .5}, tc.batch,
				Names("id"), ClassCapacity(tc.capacity), Threads(tc.threads))
			batches, err := drain(t, p, b.Next)
			if err != nil {
				t.Fatal(err)
			}
			seen := make([]bool, n)
			delivered := 0
			for _, bt := range batches {
				for j, id := range bt.Int64("id") {
					if seen[id] || int64(labels[id]) != bt.Int64("label")[j] {
						t.Fatalf("example %d twice, or under another label", id)
					}
					seen[id] = true
					delivered++
				}
			}
			left := n - delivered - int(b.Dropped())
			if left < 0 || left >= tc.batch+3*tc.capacity || len(batches) < n/tc.batch/3 {
				t.Errorf("%d batches: %d examples delivered, %d dropped, %d left", len(batches), delivered, b.Dropped(), left)
			}
		})
	}
}

// RS-02 (TensorFlow's _conditional_batch): acceptance 0 for 1.0 and 1 for
// 2.0 gives a batch of 4 that is all 2.0, with one or two components.
func TestRejectionSampleComponents(t *testing.T) {
	for _, n := range []int{1, 2} {
		i := 0
		step := func(context.Context) (queue.Element, error) {
			if i == 40 {
				return nil, errEOF
			}
			i++
			v := float64(1 + i%2)
			e := queue.Element{tensor.Scalar(v)}
			if n == 2 {
				e = append(e, tensor.New([]int64{int64(v), int64(v)}))
			}
			return e, nil
		}
		accept := func(e queue.Element) float64 {
			if e[0].Float64s()[0] == 2 {
				return 1
			}
			return 0
		}
		p := input.NewPipeline(input.Seed(8))
		b := RejectionSample(p, step, accept, 4)
		batches, err := drain(t, p, b.Next)
		if err != nil || len(batches) != 5 {
			t.Fatalf("%d components: %d batches, %v", n, len(batches), err)
		}
		for _, bt := range batches {
			e := bt.Element()
			if len(e) != n || !slices.Equal(e[0].Float64s(), []float64{2, 2, 2, 2}) {
				t.Errorf("%d components: batch %v", n, e)
			}
			if n == 2 && !slices.Equal(e[1].Int64s(), []int64{2, 2, 2, 2, 2, 2, 2, 2}) {
				t.Errorf("second component %v", e[1].Int64s())
			}
		}
	}
}
