package queue_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tensor"
)

// Components of one element arrive separately; an element is ready when
// all of them are set, and takes serve the oldest insertion first.
func ExampleBarrier() {
	ctx := context.Background()
	b, _ := queue.NewBarrier("pairs", []tensor.DType{tensor.String, tensor.Int64}, []tensor.Shape{{}, {}})

	b.InsertMany(0, []string{"k1", "k2"}, tensor.Strings("one", "two"))
	b.InsertMany(1, []string{"k1"}, tensor.New([]int64{1}))
	b.InsertMany(0, []string{"k3"}, tensor.Strings("three"))
	b.InsertMany(1, []string{"k3"}, tensor.New([]int64{3}))
	fmt.Println("ready:", b.ReadySize(), "incomplete:", b.IncompleteSize())

	b.InsertMany(1, []string{"k2"}, tensor.New([]int64{2}))
	// k2 completed after k3, but it was created by an earlier call.
	batch, _ := b.TakeMany(ctx, 2)
	for i, key := range batch.Keys {
		fmt.Println(key, batch.Indices[i]-math.MinInt64, string(batch.Values[0].Strings()[i]), batch.Values[1].Int64s()[i])
	}

	b.Close()
	_, err := b.TakeMany(ctx, 2)
	fmt.Println(errors.Is(err, io.EOF), err)
	batch, _ = b.TakeUpTo(ctx, 2) // a smaller final batch
	fmt.Println(batch.Keys)
	// Output:
	// ready: 2 incomplete: 1
	// k1 0 one 1
	// k2 0 two 2
	// true Barrier 'pairs' is closed and has insufficient elements (requested 2, total size 1): EOF
	// [k3]
}
