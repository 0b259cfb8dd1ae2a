package input

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/sluiceml/sluice/internal/cputime"
	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tensor"
)

// BenchmarkBatchDynamicPad moves token sequences of lengths 1..50 through
// Batch with DynamicPad, batches of 32, 2 goroutines running the step, one
// consumer taking batches with Next and, in "nextinto", NextInto over the
// last batch. One op is one batch; allocs/op counts what the step's
// examples and the batch cost, the step itself allocating nothing.
func BenchmarkBatchDynamicPad(b *testing.B) {
	const batch, maxLen = 32, 50
	seqs := make([]queue.Element, maxLen+1)
	for n := 1; n <= maxLen; n++ {
		seqs[n] = queue.Element{tensor.Scalar(int64(n)), tensor.Zeros(tensor.Int32, tensor.Shape{n})}
	}
	for _, into := range []bool{false, true} {
		name := "next"
		if into {
			name = "nextinto"
		}
		b.Run(name, func(b *testing.B) {
			var next atomic.Uint64
			step := func(context.Context) (queue.Element, error) {
				return seqs[int(next.Add(1)*7%maxLen)+1], nil
			}
			p := NewPipeline()
			bt := p.Batch(step, batch, DynamicPad(), Threads(2), Capacity(4*batch), Names("length", "tokens"))
			ctx := context.Background()
			if err := p.Start(ctx); err != nil {
				b.Fatal(err)
			}
			var last Batch
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := cputime.Process()
			for b.Loop() {
				var err error
				if into {
					last, err = bt.NextInto(ctx, last)
				} else {
					last, err = bt.Next(ctx)
				}
				if err != nil || last.Len() != batch {
					b.Fatalf("Next: %d examples, %v", last.Len(), err)
				}
			}
			b.ReportMetric(float64(b.N*batch)/b.Elapsed().Seconds(), "examples/s")
			b.ReportMetric(float64(cputime.Process()-cpu0)/float64(b.N*batch), "cpu-ns/example")
			b.StopTimer()
			if err := p.Stop(ctx); err != nil {
				b.Fatal(err)
			}
		})
	}
}
