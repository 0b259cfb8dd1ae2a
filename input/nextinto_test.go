package input

import (
	"context"
	"slices"
	"testing"

	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tensor"
)

// NextInto delivers the batches Next would, into the memory of the batch
// it is given: the same values, no new batch per step, and a short last
// batch in memory of its own.
func TestNextInto(t *testing.T) {
	run := func(into bool) (labels [][]int64, reused int) {
		p := NewPipeline()
		n := int64(0)
		step := func(context.Context) (queue.Element, error) {
			if n == 23 {
				return nil, errEOF
			}
			n++
			return queue.Element{tensor.Scalar(n), tensor.New(make([]float32, 16))}, nil
		}
		batches := p.Batch(step, 5, AllowSmallerFinalBatch())
		if err := p.Start(t.Context()); err != nil {
			t.Fatal(err)
		}
		var b Batch
		var prev *int64
		for {
			var err error
			if into {
				b, err = batches.NextInto(t.Context(), b)
			} else {
				b, err = batches.Next(t.Context())
			}
			if isEOF(err) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			v := b.Element()[0].Int64s()
			if prev != nil && &v[0] == prev {
				reused++
			}
			prev = &v[0]
			labels = append(labels, slices.Clone(v))
		}
		if err := p.Join(t.Context()); err != nil {
			t.Fatal(err)
		}
		return labels, reused
	}
	want, reusedByNext := run(false)
	got, reused := run(true)
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("NextInto gave %v, Next %v", got, want)
	}
	// Batches 2 to 4 reuse the first's memory; the short fifth is new.
	if reused != 3 || reusedByNext != 0 {
		t.Errorf("memory reused %d times by NextInto (want 3), %d by Next (want 0)", reused, reusedByNext)
	}
}
