package input

import (
	"context"
	"errors"
	"io"
	"sync"
	"testing"

	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tensor"
)

// counter is TensorFlow's count_up_to as a step: 0, 1, ..., limit-1 as
// int64 scalars, then end of input. It is safe for several goroutines.
func counter(limit int64) Step {
	var mu sync.Mutex
	next := int64(0)
	return func(context.Context) (queue.Element, error) {
		mu.Lock()
		defer mu.Unlock()
		if next >= limit {
			return nil, io.EOF
		}
		v := next
		next++
		return queue.Element{tensor.Scalar(v)}, nil
	}
}

// start starts p and arranges for it to be stopped at the end of the test.
func start(t *testing.T, p *Pipeline) {
	t.Helper()
	if err := p.Start(t.Context()); err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		// t.Context() has ended by now.
		if err := p.Stop(context.Background()); err != nil {
			t.Errorf("Stop: %v", err)
		}
	})
}

// drain reads every batch until end of input.
func drain(t *testing.T, b *Batches) []Batch {
	t.Helper()
	var out []Batch
	for batch, err := range b.All(t.Context()) {
		if err != nil {
			t.Fatalf("batch %d: %v", len(out), err)
		}
		out = append(out, batch)
	}
	return out
}

// dequeueAll reads q one element at a time until end of input and returns
// component 0 of each.
func dequeueAll(t *testing.T, q queue.Queue) []tensor.Tensor {
	t.Helper()
	var out []tensor.Tensor
	for {
		e, err := q.Dequeue(t.Context())
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("dequeue %d: %v", len(out), err)
		}
		out = append(out, e[0])
	}
}

func expectEOF(t *testing.T, err error) {
	t.Helper()
	if !errors.Is(err, io.EOF) {
		t.Fatalf("got %v, want end of input", err)
	}
}

var errEOF = io.EOF

// as converts batcher options to the option type of one kind of batcher.
func as[T any](opts []BatcherOption) []T {
	out := make([]T, len(opts))
	for i, o := range opts {
		out[i] = o.(T)
	}
	return out
}
