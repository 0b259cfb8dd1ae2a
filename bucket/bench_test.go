package bucket_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/sluiceml/sluice/bucket"
	"github.com/sluiceml/sluice/input"
	"github.com/sluiceml/sluice/internal/cputime"
	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tensor"
)

// BenchmarkBySequenceLength moves token sequences of lengths 1..50
// through BySequenceLength with boundaries [10, 20, 30, 40], batches of
// 32 and dynamic padding: 4 goroutines run the step, one consumer takes
// batches, keeping each (next) or handing it back (nextinto). One
// iteration is one batch; buckets/s counts the batches delivered per
// second, examples/s their examples.
func BenchmarkBySequenceLength(b *testing.B) {
	for _, into := range []bool{false, true} {
		name := "next"
		if into {
			name = "nextinto"
		}
		b.Run(name, func(b *testing.B) { benchBySequenceLength(b, into) })
	}
}

func benchBySequenceLength(b *testing.B, into bool) {
	const batch, maxLen, threads = 32, 50, 4
	seqs := make([]queue.Element, maxLen+1)
	for n := 1; n <= maxLen; n++ {
		seqs[n] = queue.Element{tensor.Zeros(tensor.Int32, tensor.Shape{n})}
	}
	var next atomic.Uint64
	step := func(context.Context) (int, queue.Element, error) {
		// A stride through the lengths, so buckets fill evenly but not in
		// turn.
		n := int(next.Add(1)*7%maxLen) + 1
		return n, seqs[n], nil
	}
	p := input.NewPipeline()
	s := bucket.BySequenceLength(p, step, []int{10, 20, 30, 40}, []int{batch},
		bucket.DynamicPad(), bucket.Threads(threads), bucket.Capacity(4*batch))
	ctx := context.Background()
	if err := p.Start(ctx); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cputime.Process()
	var bt input.Batch
	for b.Loop() {
		var lengths []int
		var err error
		if into {
			lengths, bt, err = s.NextInto(ctx, bt)
		} else {
			lengths, _, err = s.Next(ctx)
		}
		if err != nil || len(lengths) != batch {
			b.Fatalf("Next: %d examples, %v", len(lengths), err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "buckets/s")
	b.ReportMetric(float64(b.N*batch)/b.Elapsed().Seconds(), "examples/s")
	// CPU time of the whole process (the enqueueing goroutines too) per
	// example: steadier than wall time on a shared machine.
	b.ReportMetric(float64(cputime.Process()-cpu0)/float64(b.N*batch), "cpu-ns/example")
	b.StopTimer()
	if err := p.Stop(ctx); err != nil {
		b.Fatal(err)
	}
}
