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
