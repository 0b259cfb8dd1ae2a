package bucket_test

import (
	"context"
	"errors"
	"testing"

	"github.com/sluiceml/sluice/bucket"
	"github.com/sluiceml/sluice/input"
	"github.com/sluiceml/sluice/queue"
)

// Bucketing cannot be deterministic (its buckets are emptied by racing
// goroutines): in a Deterministic pipeline it refuses to be built rather
// than deliver batches in an order that changes from run to run.
func TestRefusesDeterministic(t *testing.T) {
	p := input.NewPipeline(input.Deterministic())
	step := func(context.Context) (int, queue.Element, error) { return 0, nil, nil }
	bucket.Bucket(p, step, []int{2}, 1)
	err := p.Start(t.Context())
	if !errors.Is(err, input.ErrNotDeterministic) {
		t.Fatalf("Start: %v, want input.ErrNotDeterministic", err)
	}
}
