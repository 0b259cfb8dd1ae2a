package queue_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tensor"
)

// A FIFO queue of (label, feature vector) elements: a producer fills it
// and closes it, and the consumer reads batches until end of input.
func ExampleNewFIFO() {
	ctx := context.Background()
	q, err := queue.NewFIFO(8, []tensor.DType{tensor.Int64, tensor.Float32},
		queue.Shapes(tensor.Shape{}, tensor.Shape{2}), queue.Name("examples"))
	if err != nil {
		panic(err)
	}
	go func() {
		for i := range int64(5) {
			f := float32(i)
			q.Enqueue(ctx, queue.Element{tensor.Scalar(i), tensor.New([]float32{f, f / 2})})
		}
		q.Close(ctx)
	}()
	for {
		b, err := q.DequeueUpTo(ctx, 2)
		if errors.Is(err, io.EOF) {
			fmt.Println(err)
			break
		}
		if err != nil {
			panic(err)
		}
		fmt.Println(b[0].Int64s(), b[1].Shape(), b[1].Float32s())
	}
	// Output:
	// [0 1] [2,2] [0 0 1 0.5]
	// [2 3] [2,2] [2 1 3 1.5]
	// [4] [1,2] [4 2]
	// FIFOQueue 'examples' is closed and has insufficient elements (requested 2, current size 0): EOF
}

// A RandomShuffle queue keeps min_after_dequeue elements back while it is
// open, so that every draw is from a pool of that size; closing it lets it
// drain. A seed makes the order the same on every run.
func ExampleNewRandomShuffle() {
	ctx := context.Background()
	q, _ := queue.NewRandomShuffle(10, 3, []tensor.DType{tensor.Int32},
		queue.Shapes(tensor.Shape{}), queue.Seed(42))
	q.EnqueueMany(ctx, queue.Element{tensor.New([]int32{1, 2, 3, 4, 5, 6, 7, 8})})

	// Five elements are above min_after_dequeue; a sixth would block.
	b, _ := q.DequeueMany(ctx, 5)
	fmt.Println("drawn:", len(b[0].Int32s()), "left:", q.Size())
	short, cancel := context.WithTimeout(ctx, 10*time.Millisecond)
	defer cancel()
	_, err := q.Dequeue(short)
	fmt.Println(errors.Is(err, context.DeadlineExceeded), q.Size())

	q.Close(ctx)
	rest, _ := q.DequeueUpTo(ctx, 10)
	fmt.Println("after close:", len(rest[0].Int32s()))
	// Output:
	// drawn: 5 left: 3
	// true 3
	// after close: 3
}

// A PaddingFIFO queue holds elements of different lengths; a batch is
// padded with zeros to its own longest element.
func ExampleNewPaddingFIFO() {
	ctx := context.Background()
	q, _ := queue.NewPaddingFIFO(10, []tensor.DType{tensor.Int32}, []tensor.Shape{{tensor.Unknown}})
	for _, seq := range [][]int32{{1}, {2, 2, 2}, {3, 3}, {4, 4, 4, 4, 4}} {
		q.Enqueue(ctx, queue.Element{tensor.New(seq)})
	}
	for range 2 {
		b, _ := q.DequeueMany(ctx, 2)
		fmt.Println(b[0].Shape(), b[0].Int32s())
	}
	// Output:
	// [2,3] [1 0 0 2 2 2]
	// [2,5] [3 3 0 0 0 4 4 4 4 4]
}

// A Priority queue's elements start with their Int64 priority; the
// smallest comes out first.
func ExampleNewPriority() {
	ctx := context.Background()
	q, _ := queue.NewPriority(10, []tensor.DType{tensor.String}, queue.Shapes(tensor.Shape{}))
	q.EnqueueMany(ctx, queue.Element{tensor.New([]int64{3, 1, 2}), tensor.Strings("c", "a", "b")})
	b, _ := q.DequeueMany(ctx, 3)
	fmt.Printf("%v %s\n", b[0].Int64s(), b[1].Strings())
	// Output:
	// [1 2 3] [a b c]
}

// Named components: FromMap builds an element by name and Lookup reads
// one back.
func ExampleFromMap() {
	ctx := context.Background()
	q, _ := queue.NewFIFO(4, []tensor.DType{tensor.String, tensor.Int64},
		queue.Shapes(tensor.Shape{}, tensor.Shape{}), queue.Names("word", "count"))
	e, err := queue.FromMap(q, map[string]tensor.Tensor{
		"count": tensor.Scalar(int64(2)),
		"word":  tensor.StringScalar("sluice"),
	})
	if err != nil {
		panic(err)
	}
	q.Enqueue(ctx, e)
	got, _ := q.Dequeue(ctx)
	word, _ := queue.Lookup(q, got, "word")
	fmt.Println(string(word.Strings()[0]))

	_, err = queue.FromMap(q, map[string]tensor.Tensor{"word": tensor.StringScalar("x")})
	fmt.Println(err)
	// Output:
	// sluice
	// invalid argument: Keys in dictionary to enqueue ["word"] do not match names of Queue ["count" "word"]
}
