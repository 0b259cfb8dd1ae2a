package sample_test

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"

	"github.com/sluiceml/sluice/input"
	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/sample"
	"github.com/sluiceml/sluice/tensor"
)

// A stream in which class 1 is one example in a thousand, rebalanced to
// half and half: StratifiedSample keeps every class-1 example and about one
// class-0 example in 998.
func ExampleStratifiedSample() {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 1_000_000
	seen := [2]int{}
	// One goroutine runs the step (the default), so it needs no lock.
	step := func(context.Context) (int, queue.Element, error) {
		if seen[0]+seen[1] == n {
			return 0, nil, io.EOF
		}
		l := 0
		if rng.Float64() < 0.001 {
			l = 1
		}
		seen[l]++
		return l, queue.Element{tensor.Scalar(rng.Float32())}, nil
	}
	warnings := map[string]int{}
	p := input.NewPipeline(input.Seed(7))
	batches := sample.StratifiedSample(p, step, []float64{0.5, 0.5}, 100,
		sample.InitProbs([]float64{0.999, 0.001}), sample.Names("feature"),
		sample.Warn(func(msg string) { warnings[msg]++ }))
	if err := p.Start(ctx); err != nil {
		panic(err)
	}
	kept := [2]int{}
	for b, err := range batches.All(ctx) {
		if err != nil {
			panic(err)
		}
		for _, l := range b.Int64("label") {
			kept[l]++
		}
	}
	if err := p.Join(ctx); err != nil {
		panic(err)
	}
	fmt.Printf("input:  %d examples, %.1f%% / %.1f%%\n", n, 100*float64(seen[0])/n, 100*float64(seen[1])/n)
	out := float64(kept[0] + kept[1])
	fmt.Printf("output: %.0f examples, %.1f%% / %.1f%%\n", out, 100*float64(kept[0])/out, 100*float64(kept[1])/out)
	for msg, k := range warnings {
		fmt.Printf("warned %d times: %s\n", k, msg)
	}
	// Output:
	// input:  1000000 examples, 99.9% / 0.1%
	// output: 2000 examples, 50.5% / 49.5%
	// warned 10 times: Proportion of examples rejected by sampler is high.
}

// Each row is emitted Poisson(rate) times; both inputs are gathered with
// the same indices, so their rows stay paired.
func ExampleResampleAtRate() {
	rng := rand.New(rand.NewPCG(3, 4))
	ids := tensor.New([]int64{10, 11, 12, 13})
	names := tensor.Strings("a", "b", "c", "d")
	out, indices, err := sample.ResampleAtRate(rng, []float64{0, 1, 2, 3}, ids, names)
	if err != nil {
		panic(err)
	}
	fmt.Println(indices)
	fmt.Println(out[0].Int64s())
	fmt.Printf("%s\n", out[1].Strings())
	// Output:
	// [1 2 2 2 3 3 3 3 3 3 3]
	// [11 12 12 12 13 13 13 13 13 13 13]
	// [b c c c d d d d d d d]
}

// Weights become rates relative to the running mean weight; the returned
// rates weight the output back to the input's distribution.
func ExampleWeightedResampler() {
	w, err := sample.NewWeightedResampler(1, sample.DefaultMeanDecay, rand.New(rand.NewPCG(5, 6)))
	if err != nil {
		panic(err)
	}
	values := tensor.New([]float64{1, 2, 3, 4})
	out, rates, err := w.Resample([]float64{1, 1, 1, 5}, values)
	if err != nil {
		panic(err)
	}
	fmt.Println("mean weight:", w.Mean())
	fmt.Println("values:", out[0].Float64s())
	fmt.Println("rates: ", rates)
	// Output:
	// mean weight: 2
	// values: [1 3 4 4]
	// rates:  [0.5 0.5 2.5 2.5]
}
