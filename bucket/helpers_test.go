package bucket_test

import (
	"context"
	"errors"
	"io"
	"sync"
	"testing"

	"github.com/sluiceml/sluice/bucket"
	"github.com/sluiceml/sluice/input"
	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tensor"
)

// counter returns a Step over the examples 0..n-1, safe for several
// goroutines: example v is make(v).
func counter(n int, make func(v int) (int, queue.Element)) bucket.Step {
	var mu sync.Mutex
	next := 0
	return func(context.Context) (int, queue.Element, error) {
		mu.Lock()
		v := next
		if v < n {
			next++
		}
		mu.Unlock()
		if v >= n {
			return 0, nil, io.EOF
		}
		id, e := make(v)
		return id, e, nil
	}
}

// lengthCounter is counter for BySequenceLength.
func lengthCounter(n int, make func(v int) (int, queue.Element)) bucket.LengthStep {
	s := counter(n, make)
	return func(ctx context.Context) (int, queue.Element, error) { return s(ctx) }
}

// fill returns an int64 vector of n copies of v.
func fill(v, n int) tensor.Tensor {
	out := make([]int64, n)
	for i := range out {
		out[i] = int64(v)
	}
	return tensor.New(out)
}

// got is one batch read from a stage.
type got struct {
	id      int
	lengths []int
	batch   input.Batch
}

// drain starts p, reads every batch next gives until end of input, and
// joins p. It fails the test on any other error.
func drain(t *testing.T, p *input.Pipeline, next func(context.Context) (got, error)) []got {
	t.Helper()
	ctx := t.Context()
	if err := p.Start(ctx); err != nil {
		t.Fatalf("Start: %v", err)
	}
	var out []got
	for {
		g, err := next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			p.Stop(ctx)
			t.Fatalf("Next after %d batches: %v", len(out), err)
		}
		out = append(out, g)
	}
	if err := p.Join(ctx); err != nil {
		t.Fatalf("Join: %v", err)
	}
	return out
}

func nextOf(b *bucket.Buckets) func(context.Context) (got, error) {
	return func(ctx context.Context) (got, error) {
		id, batch, err := b.Next(ctx)
		return got{id: id, batch: batch}, err
	}
}

func nextLen(b *bucket.SequenceBuckets) func(context.Context) (got, error) {
	return func(ctx context.Context) (got, error) {
		lengths, batch, err := b.Next(ctx)
		return got{lengths: lengths, batch: batch}, err
	}
}

func isEOF(err error) bool { return errors.Is(err, io.EOF) }
