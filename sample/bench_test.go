package sample_test

import (
	"context"
	"math/rand/v2"
	"sync/atomic"
	"testing"

	"github.com/sluiceml/sluice/input"
	"github.com/sluiceml/sluice/internal/cputime"
	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/sample"
	"github.com/sluiceml/sluice/tensor"
)

// BenchmarkResampleAtRate resamples batches of 1024 rows (an int64 id and
// a 16-float feature vector) at rates uniform in [0, 2), the pure function
// a training loop calls on its batch. One iteration is one batch;
// examples/s counts input rows per second, resampled/s the rows emitted
// (about as many: the mean rate is 1).
func BenchmarkResampleAtRate(b *testing.B) {
	const rows, width = 1024, 16
	rng := rand.New(rand.NewPCG(1, 2))
	ids := make([]int64, rows)
	features := make([]float32, rows*width)
	rates := make([]float64, rows)
	for i := range rows {
		ids[i] = int64(i)
		rates[i] = 2 * rng.Float64()
	}
	inputs := []tensor.Tensor{tensor.New(ids), tensor.New(features, rows, width)}
	b.ReportAllocs()
	emitted := 0
	cpu0 := cputime.Process()
	for b.Loop() {
		_, idx, err := sample.ResampleAtRate(rng, rates, inputs...)
		if err != nil {
			b.Fatal(err)
		}
		emitted += len(idx)
	}
	b.ReportMetric(float64(b.N*rows)/b.Elapsed().Seconds(), "examples/s")
	b.ReportMetric(float64(emitted)/b.Elapsed().Seconds(), "resampled/s")
	b.ReportMetric(float64(cputime.Process()-cpu0)/float64(b.N*rows), "cpu-ns/example")
}

// BenchmarkStratifiedSample rebalances a 70/30 stream of examples with a
// 16-float feature vector to 50/50 in batches of 32: one goroutine runs
// the step, one consumer takes batches. One iteration is one batch;
// examples/s counts the examples delivered per second (about 1.75 times
// as many are read).
func BenchmarkStratifiedSample(b *testing.B) {
	const batch = 32
	feature := tensor.New(make([]float32, 16))
	rng := rand.New(rand.NewPCG(3, 4))
	step := func(context.Context) (int, queue.Element, error) {
		l := 0
		if rng.Float64() < 0.3 {
			l = 1
		}
		return l, queue.Element{feature}, nil
	}
	p := input.NewPipeline(input.Seed(1))
	s := sample.StratifiedSample(p, step, []float64{0.5, 0.5}, batch,
		sample.InitProbs([]float64{0.7, 0.3}), sample.BatchOptions(input.Capacity(4*batch)))
	ctx := context.Background()
	if err := p.Start(ctx); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	cpu0 := cputime.Process()
	for b.Loop() {
		if bt, err := s.Next(ctx); err != nil || bt.Len() != batch {
			b.Fatalf("Next: %d examples, %v", bt.Len(), err)
		}
	}
	b.ReportMetric(float64(b.N*batch)/b.Elapsed().Seconds(), "examples/s")
	// The whole process's CPU time (the step's goroutine too) per
	// example delivered.
	b.ReportMetric(float64(cputime.Process()-cpu0)/float64(b.N*batch), "cpu-ns/example")
	b.StopTimer()
	if err := p.Stop(ctx); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkStratifiedSampleUnknownDist draws batches of 32 as
// Multinomial(32, [0.5, 0.5]) from a 50/50 stream of examples with a
// 16-float feature vector: two goroutines run the step, one consumer takes
// batches. One iteration is one batch.
func BenchmarkStratifiedSampleUnknownDist(b *testing.B) {
	const batch = 32
	feature := tensor.New(make([]float32, 16))
	var next atomic.Uint64
	step := func(context.Context) (int, queue.Element, error) {
		return int(next.Add(1) % 2), queue.Element{feature}, nil
	}
	p := input.NewPipeline(input.Seed(1))
	s := sample.StratifiedSampleUnknownDist(p, step, []float64{0.5, 0.5}, batch, sample.Threads(2),
		// Room for the two classes to drift apart as the draws do (a full
		// queue blocks the step, as in TensorFlow).
		sample.ClassCapacity(1<<16))
	ctx := context.Background()
	if err := p.Start(ctx); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	cpu0 := cputime.Process()
	for b.Loop() {
		if bt, err := s.Next(ctx); err != nil || bt.Len() != batch {
			b.Fatalf("Next: %d examples, %v", bt.Len(), err)
		}
	}
	b.ReportMetric(float64(b.N*batch)/b.Elapsed().Seconds(), "examples/s")
	b.ReportMetric(float64(cputime.Process()-cpu0)/float64(b.N*batch), "cpu-ns/example")
	b.StopTimer()
	if err := p.Stop(ctx); err != nil {
		b.Fatal(err)
	}
}
