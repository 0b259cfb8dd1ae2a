package queue

import (
	"context"
	"errors"
	"io"
	"testing"

	"github.com/sluiceml/sluice/tensor"
)

var (
	i32  = []tensor.DType{tensor.Int32}
	f32  = []tensor.DType{tensor.Float32}
	flat = Shapes(tensor.Shape{})
	bg   = context.Background()
)

// local is what every queue of this package is: tests that run over
// several kinds use it to look at sizes and the closed flag.
type local interface {
	Queue
	Sizer
	IsClosed() bool
}

func sc(v int32) Element { return Element{tensor.Scalar(v)} }

func vec(vs ...int32) Element { return Element{tensor.New(vs)} }

func mustFIFO(t *testing.T, capacity int, opts ...Option) *FIFO {
	t.Helper()
	q, err := NewFIFO(capacity, i32, append([]Option{flat}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// val and vals unwrap a dequeue's result in tests; an unexpected error
// panics, which fails the test with the error's text.
func val(e Element, err error) int32 {
	if err != nil {
		panic(err)
	}
	return e[0].Int32s()[0]
}

func vals(e Element, err error) []int32 {
	if err != nil {
		panic(err)
	}
	return e[0].Int32s()
}

func isEOF(err error) bool { return errors.Is(err, io.EOF) }

// closeQueue and closeBarrier close as TensorFlow's
// close(cancel_pending_enqueues=now) does, for tests whose cases, or
// TensorFlow's recorded scenarios, carry that flag.
func closeQueue(ctx context.Context, q Queue, now bool) error {
	if now {
		return q.CloseNow(ctx)
	}
	return q.Close(ctx)
}

func closeBarrier(b *Barrier, now bool) error {
	if now {
		return b.CloseNow()
	}
	return b.Close()
}

// takeBarrier is TakeUpTo if upTo, else TakeMany (TensorFlow's
// allow_small_batch), for TensorFlow's recorded scenarios.
func takeBarrier(ctx context.Context, b *Barrier, n int, upTo bool) (BarrierBatch, error) {
	if upTo {
		return b.TakeUpTo(ctx, n)
	}
	return b.TakeMany(ctx, n)
}
