package sample

import (
	"errors"
	"io"
	"testing"

	"github.com/sluiceml/sluice/input"
)

// ST-01, ST-04: at end of input a stratified stage delivers its full
// batches, drops the rest unless AllowSmallerFinalBatch, and then reports
// io.EOF on every later call.
func TestStratifiedSampleEndOfInput(t *testing.T) {
	for _, tc := range []struct {
		name  string
		opts  []Option
		sizes []int
	}{
		{"full batches", nil, []int{4, 4}},
		{"smaller final", []Option{BatchOptions(input.AllowSmallerFinalBatch())}, []int{4, 4, 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := input.NewPipeline(input.Seed(1))
			// Target equal to the input's proportions: every example is kept.
			b := StratifiedSample(p, source(10, func(i int) int { return i % 2 }), []float64{.5, .5}, 4,
				append(tc.opts, InitProbs([]float64{.5, .5}), Names("id"))...)
			batches, err := drain(t, p, b.Next)
			if err != nil {
				t.Fatal(err)
			}
			if len(batches) != len(tc.sizes) {
				t.Fatalf("%d batches, want %d", len(batches), len(tc.sizes))
			}
			next := int64(0)
			for i, bt := range batches {
				if bt.Len() != tc.sizes[i] {
					t.Errorf("batch %d has %d examples, want %d", i, bt.Len(), tc.sizes[i])
				}
				for j, id := range bt.Int64("id") {
					if id != next || bt.Int64("label")[j] != id%2 {
						t.Errorf("batch %d row %d: example %d label %d", i, j, id, bt.Int64("label")[j])
					}
					next++
				}
			}
			if _, err := b.Next(t.Context()); !errors.Is(err, io.EOF) {
				t.Errorf("Next after the end: %v", err)
			}
		})
	}
}

// SU-02: at end of input a batch whose class counts the queues can no
// longer supply ends the stream; the batches before it are complete.
func TestStratifiedSampleUnknownDistEndOfInput(t *testing.T) {
	p := input.NewPipeline(input.Seed(2))
	b := StratifiedSampleUnknownDist(p, source(101, func(i int) int { return i % 2 }), []float64{.5, .5}, 10,
		ClassCapacity(101))
	batches, err := drain(t, p, b.Next)
	if err != nil {
		t.Fatal(err)
	}
	if len(batches) == 0 || len(batches) > 10 {
		t.Errorf("%d batches of 10 from 101 examples", len(batches))
	}
	for _, bt := range batches {
		if bt.Len() != 10 {
			t.Errorf("batch of %d", bt.Len())
		}
	}
	for b, err := range b.All(t.Context()) {
		t.Errorf("All after the end: %v %v", b, err)
	}
}
