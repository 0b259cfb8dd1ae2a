package bucket_test

import (
	"context"
	"errors"
	"io"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sluiceml/sluice/bucket"
	"github.com/sluiceml/sluice/input"
	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tensor"
)

// blockAfter returns a Step that produces n examples into bucket 0, then
// blocks until its context ends, like a reader waiting for data.
func blockAfter(n int) bucket.Step {
	i := 0
	return func(ctx context.Context) (int, queue.Element, error) {
		if i < n {
			i++
			return 0, queue.Element{tensor.Scalar(int64(i))}, nil
		}
		<-ctx.Done()
		return 0, nil, ctx.Err()
	}
}

// Next ends when its context does, before any example arrived (the queues
// do not exist yet) and while a bucket is partly filled; a batch that is
// waiting is returned at once.
func TestNextContext(t *testing.T) {
	for _, n := range []int{0, 1, 2} {
		synctest.Test(t, func(t *testing.T) {
			p := input.NewPipeline()
			b := bucket.Bucket(p, blockAfter(n), []int{2}, 1)
			if err := p.Start(t.Context()); err != nil {
				t.Fatal(err)
			}
			synctest.Wait()
			ctx, cancel := context.WithTimeout(t.Context(), time.Second)
			defer cancel()
			start := time.Now()
			_, batch, err := b.Next(ctx)
			switch {
			case n == 2:
				if err != nil || batch.Len() != 2 {
					t.Errorf("Next: %v, %d examples; want the waiting batch", err, batch.Len())
				}
			case !errors.Is(err, context.DeadlineExceeded):
				t.Errorf("Next: %v, want context.DeadlineExceeded", err)
			case time.Since(start) != time.Second:
				t.Errorf("Next returned after %v, want 1s", time.Since(start))
			}
			if err := p.Stop(t.Context()); err != nil {
				t.Errorf("Stop: %v", err)
			}
		})
	}
}

// Stop returns at once while every goroutine is blocked: the step waiting
// for input, movers waiting for room on a full top queue, and a consumer
// waiting in Next. The consumer then drains what is left and gets end of
// input.
func TestStopWhileBlocked(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := input.NewPipeline()
		b := bucket.Bucket(p, blockAfter(40), []int{2}, 1, bucket.Capacity(1), bucket.Threads(1))
		if err := p.Start(t.Context()); err != nil {
			t.Fatal(err)
		}
		synctest.Wait() // top queue full, bucket queue full, mover blocked
		if n := b.Queue().(queue.Sizer).Size(); n != 1 {
			t.Fatalf("top queue holds %d batches, want 1", n)
		}
		start := time.Now()
		if err := p.Stop(t.Context()); err != nil {
			t.Errorf("Stop: %v", err)
		}
		if d := time.Since(start); d != 0 {
			t.Errorf("Stop took %v", d)
		}
		for {
			_, _, err := b.Next(t.Context())
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("Next after Stop: %v", err)
			}
		}
	})
}

// Cancelling the context given to Start stops the pipeline cleanly: a
// consumer blocked in Next gets end of input and Join reports no error.
func TestStartContextCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := input.NewPipeline()
		b := bucket.BySequenceLength(p, func(ctx context.Context) (int, queue.Element, error) {
			<-ctx.Done()
			return 0, nil, ctx.Err()
		}, []int{5}, []int{4})
		ctx, cancel := context.WithCancel(t.Context())
		if err := p.Start(ctx); err != nil {
			t.Fatal(err)
		}
		done := make(chan error)
		go func() {
			_, _, err := b.Next(t.Context())
			done <- err
		}()
		synctest.Wait()
		cancel()
		if err := <-done; !errors.Is(err, io.EOF) {
			t.Errorf("Next: %v, want io.EOF", err)
		}
		if err := p.Join(t.Context()); err != nil {
			t.Errorf("Join: %v", err)
		}
	})
}
