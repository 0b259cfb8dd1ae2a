package input

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tensor"
)

// TestDynamicPadSteadyAllocs: a consumer that hands back each padded
// batch with NextInto makes the stage allocate almost nothing once the
// batch's memory has grown to the largest and the queue has seen its
// shapes: what is left is the attempts of calls that had to wait (two
// allocations each). Before, every batch was new: 11 allocations.
func TestDynamicPadSteadyAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	const batch, maxLen, from, to = 32, 50, 100, 600
	seqs := make([]queue.Element, maxLen+1)
	many := make([]queue.Element, maxLen+1)
	for n := 1; n <= maxLen; n++ {
		seqs[n] = queue.Element{tensor.Scalar(int64(n)), tensor.Zeros(tensor.Int32, tensor.Shape{n})}
		many[n] = queue.Element{tensor.New([]int64{int64(n), int64(n)}), tensor.Zeros(tensor.Int32, tensor.Shape{2, n})}
	}
	step := func(elems []queue.Element) Step {
		var next atomic.Uint64
		return func(context.Context) (queue.Element, error) {
			return elems[int(next.Add(1)*7%maxLen)+1], nil
		}
	}
	tests := []struct {
		name  string
		build func(p *Pipeline) *Batches
		want  float64 // allocations a batch, at most
	}{
		{"batch", func(p *Pipeline) *Batches {
			return p.Batch(step(seqs), batch, DynamicPad(), Threads(2), Capacity(4*batch))
		}, waitAllocs(3)},
		{"batch join", func(p *Pipeline) *Batches {
			return p.BatchJoin([]Step{step(seqs), step(seqs)}, batch, DynamicPad(), Capacity(4*batch))
		}, waitAllocs(3)},
		{"enqueue many", func(p *Pipeline) *Batches {
			// EnqueueMany copies each call's slice of tensors: 16 a batch.
			return p.Batch(step(many), batch, DynamicPad(), EnqueueMany(), Capacity(4*batch))
		}, waitAllocs(2) + batch/2},
		{"smaller final batch allowed", func(p *Pipeline) *Batches {
			return p.Batch(step(seqs), batch, DynamicPad(), AllowSmallerFinalBatch(), Capacity(4*batch))
		}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := NewPipeline()
			out := tt.build(p)
			start(t, p)
			if per := steadyAllocs(t, out, from, to); per > tt.want {
				t.Errorf("%.2f allocations a batch in the steady state, want at most %v", per, tt.want)
			} else {
				t.Logf("%.2f allocations a batch", per)
			}
		})
	}
}
