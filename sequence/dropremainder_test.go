package sequence

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/sluiceml/sluice/input"
	"github.com/sluiceml/sluice/tensor"
)

// SQ-14, DropRemainder: once closed, a Next that no full batch can satisfy
// ends with end of input. One sequence of 3 segments, batches of 2: a
// batch holds at most one segment of a sequence (the next waits for the
// state saved for it), so no full batch can ever be made, though the
// barrier holds 3 keys.
func TestDropRemainderEndsWithTooFewSequences(t *testing.T) {
	ctx := context.Background()
	s, err := NewStateSaver(2, 1, map[string]tensor.Tensor{"h": tensor.Scalar[float32](0)}) // DropRemainder is the default
	if err != nil {
		t.Fatal(err)
	}
	in := Input{Key: "a", Length: 3, Sequences: map[string]tensor.Tensor{"x": tensor.New([]float32{1, 2, 3}, 3)}}
	if err := s.Prefetch(ctx, in); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	tctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	_, err = s.Next(tctx)
	if !errors.Is(err, io.EOF) {
		t.Fatalf("Next after Close with 1 active example and batch size 2: %v, want io.EOF (ready=%d incomplete=%d)",
			err, s.Barrier().ReadySize(), s.Barrier().IncompleteSize())
	}
}

// The same through BatchSequencesWithStates(..., DropRemainder()), the
// Next waiting when the input ends: four sequences of 2 steps and one of
// 8, 2 steps a segment, batches of 4. After the first batch only the long
// sequence is left (1 ready and 3 incomplete segments): Next ends after
// exactly that batch.
func TestBSWSDropRemainderEnds(t *testing.T) {
	ctx := context.Background()
	p := input.NewPipeline()
	i := 0
	step := func(context.Context) (Input, error) {
		if i == 5 {
			return Input{}, io.EOF
		}
		i++
		return Input{Key: fmt.Sprint(i), Length: InferLength,
			Sequences: map[string]tensor.Tensor{"x": tensor.Zeros(tensor.Float32, tensor.Shape{map[bool]int{true: 8, false: 2}[i == 5]})}}, nil
	}
	s := BatchSequencesWithStates(p, step, map[string]tensor.Tensor{"h": tensor.Scalar[float32](0)}, 2, 4, Threads(1), DropRemainder())
	if err := p.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer p.Stop(ctx)
	batches := 0
	for {
		tctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		b, err := s.Next(tctx)
		cancel()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("Next after %d batches: %v (ready %d, incomplete %d, active examples %d)", batches, err,
				s.Barrier().ReadySize(), s.Barrier().IncompleteSize(), s.CapacityQueue().Size())
		}
		batches++
		if err := b.SaveState(ctx, "h", b.State("h")); err != nil {
			t.Fatal(err)
		}
	}
	if batches != 1 {
		t.Errorf("%d batches, want 1", batches)
	}
}
