package coord_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/sluiceml/sluice/coord"
	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tensor"
)

// A queue runner fills a queue with 0..4 and closes it; the consumer reads
// until end of input, then joins the coordinator.
func ExampleQueueRunner() {
	ctx := context.Background()
	q, _ := queue.NewFIFO(2, []tensor.DType{tensor.Int64}, queue.Shapes(tensor.Shape{}))
	next := int64(0)
	produce := func(ctx context.Context) error {
		if next == 5 {
			return io.EOF // end of input: the runner closes the queue
		}
		next++
		return q.Enqueue(ctx, queue.Element{tensor.Scalar(next - 1)})
	}
	c := coord.New()
	qr, _ := coord.NewQueueRunner(q, []coord.Step{produce})
	qr.Start(ctx, c)
	var got []int64
	for {
		e, err := q.Dequeue(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		got = append(got, e[0].Int64s()[0])
	}
	fmt.Println(got)
	fmt.Println(c.Join(ctx, 10*time.Second))
	// Output:
	// [0 1 2 3 4]
	// <nil>
}

// The first error any goroutine reports stops the others and is returned
// by Join.
func ExampleCoordinator() {
	ctx := context.Background()
	c := coord.New()
	c.Go(ctx, "worker", func(ctx context.Context) error {
		<-ctx.Done() // runs until the coordinator stops
		return nil
	})
	c.Go(ctx, "reader", func(ctx context.Context) error {
		return errors.New("data.tfrecord: corrupted record at 1234")
	})
	fmt.Println(c.Join(ctx, 10*time.Second))
	// Output: data.tfrecord: corrupted record at 1234
}

// Two stages, each filled by a queue runner: a producer of numbers and a
// squarer that reads them. The producer's end of input closes the first
// queue, which ends the squarer, which closes the second queue: the end
// cascades to the consumer.
func ExampleStartAll() {
	ctx := context.Background()
	scalars := func(name string) *queue.FIFO {
		q, _ := queue.NewFIFO(4, []tensor.DType{tensor.Int64}, queue.Shapes(tensor.Shape{}), queue.Name(name))
		return q
	}
	numbers, squares := scalars("numbers"), scalars("squares")

	n := int64(0)
	produce := func(ctx context.Context) error {
		if n == 4 {
			return io.EOF
		}
		n++
		return numbers.Enqueue(ctx, queue.Element{tensor.Scalar(n)})
	}
	square := func(ctx context.Context) error {
		e, err := numbers.Dequeue(ctx) // io.EOF once numbers is drained
		if err != nil {
			return err
		}
		v := e[0].Int64s()[0]
		return squares.Enqueue(ctx, queue.Element{tensor.Scalar(v * v)})
	}
	r1, _ := coord.NewQueueRunner(numbers, []coord.Step{produce}, coord.StepNames("produce"))
	r2, _ := coord.NewQueueRunner(squares, []coord.Step{square}, coord.StepNames("square"))

	c := coord.New()
	coord.StartAll(ctx, c, r1, r2)
	for {
		e, err := squares.Dequeue(ctx)
		if err != nil {
			fmt.Println(err)
			break
		}
		fmt.Println(e[0].Int64s()[0])
	}
	fmt.Println("join:", c.Join(ctx, 10*time.Second))
	// Output:
	// 1
	// 4
	// 9
	// 16
	// FIFOQueue 'squares' is closed and has insufficient elements (requested 1, current size 0): EOF
	// join: <nil>
}
