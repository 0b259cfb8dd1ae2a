package sample

import (
	"context"
	"errors"
	"testing"

	"github.com/sluiceml/sluice/input"
	"github.com/sluiceml/sluice/queue"
)

// Sampling by class with an unknown distribution cannot take turns
// without deadlocking: a Deterministic pipeline refuses it.
func TestUnknownDistRefusesDeterministic(t *testing.T) {
	p := input.NewPipeline(input.Deterministic())
	step := func(context.Context) (int, queue.Element, error) { return 0, nil, nil }
	StratifiedSampleUnknownDist(p, step, []float64{1}, 2)
	if err := p.Start(t.Context()); !errors.Is(err, input.ErrNotDeterministic) {
		t.Fatalf("Start: %v, want input.ErrNotDeterministic", err)
	}
}
