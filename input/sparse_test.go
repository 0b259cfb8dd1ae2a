package input

import (
	"context"
	"slices"
	"testing"

	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tensor"
)

// BAT-03: sparse inputs batched by prepending the batch index.
func TestBatchSparse(t *testing.T) {
	p := NewPipeline()
	inner := counter(20)
	step := func(ctx context.Context) (queue.Element, error) {
		e, err := inner(ctx)
		if err != nil {
			return nil, err
		}
		x := e[0].Int64s()[0]
		h, err := p.StoreSparse(tensor.Sparse{Indices: tensor.New([]int64{0, 1}, 2, 1), Values: tensor.New([]int64{x, -x}), DenseShape: tensor.Shape{2}})
		return Named(ctx, queue.Element{e[0], h}, "x", "s"), err
	}
	b := p.Batch(step, 10, Names("x", "s"), SparseComponents("s"))
	start(t, p)
	batches := drain(t, b)
	if len(batches) != 2 {
		t.Fatalf("%d batches", len(batches))
	}
	s := batches[0].Sparse("s")
	wantIdx := []int64{0, 0, 0, 1, 1, 0, 1, 1}
	if !slices.Equal(s.Indices.Int64s()[:8], wantIdx) || !s.DenseShape.Equal(tensor.Shape{10, 2}) ||
		!slices.Equal(s.Values.Int64s()[:4], []int64{0, 0, 1, -1}) || s.NNZ() != 20 {
		t.Fatalf("sparse batch %+v", s)
	}
}

// BAT-07, MB-04: pre-batched sparse input, re-batched, filtered per example.
func TestBatchSparseEnqueueManyKeep(t *testing.T) {
	p := NewPipeline()
	done := false
	step := func(ctx context.Context) (queue.Element, tensor.Tensor, error) {
		if done {
			return nil, tensor.Tensor{}, errEOF
		}
		done = true
		h, err := p.StoreSparseMany(tensor.Sparse{
			Indices:    tensor.New([]int64{0, 1, 0, 2, 1, 0, 1, 3}, 4, 2),
			Values:     tensor.New([]int64{5, 4, 7, 2}),
			DenseShape: tensor.Shape{2, 4},
		})
		return queue.Element{h}, tensor.New([]bool{true, false}), err
	}
	b := p.MaybeBatch(step, 1, EnqueueMany(), Names("s"), SparseComponents("s"))
	start(t, p)
	batches := drain(t, b)
	if len(batches) != 1 {
		t.Fatalf("%d batches", len(batches))
	}
	s := batches[0].Sparse("s")
	if !slices.Equal(s.Indices.Int64s(), []int64{0, 1, 0, 2}) || !slices.Equal(s.Values.Int64s(), []int64{5, 4}) || !s.DenseShape.Equal(tensor.Shape{1, 4}) {
		t.Fatalf("got %+v", s)
	}
}

func TestSparseComponentNeedsName(t *testing.T) {
	p := NewPipeline()
	p.Batch(counter(1), 1, SparseComponents("s"))
	if err := p.Start(t.Context()); err == nil {
		t.Fatal("unnamed sparse component accepted")
	}
}
