package sequence_test

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/sluiceml/sluice/input"
	"github.com/sluiceml/sluice/sequence"
	"github.com/sluiceml/sluice/tensor"
)

// An LSTM-style loop: each example's state (here a running sum standing
// in for an RNN's hidden state) is carried from one segment to the next
// with SaveState.
func Example() {
	ctx := context.Background()
	saver, err := sequence.NewStateSaver(2, 3, map[string]tensor.Tensor{"h": tensor.Scalar[float32](0)},
		sequence.AllowSmallerFinalBatch())
	if err != nil {
		panic(err)
	}
	// Sequences are padded to a multiple of num_unroll (3); Length is the
	// real length.
	for _, in := range []sequence.Input{
		{Key: "a", Length: 5, Sequences: map[string]tensor.Tensor{"x": tensor.New([]float32{1, 2, 3, 4, 5, 0})}},
		{Key: "b", Length: 3, Sequences: map[string]tensor.Tensor{"x": tensor.New([]float32{10, 20, 30})}},
	} {
		if err := saver.Prefetch(ctx, in); err != nil {
			panic(err)
		}
	}
	saver.Close(ctx) // no more examples; the started ones finish

	for b, err := range saver.All(ctx) {
		if err != nil {
			panic(err)
		}
		h := b.State("h").Float32s()
		x := b.Sequences("x") // [batch, 3]
		next := make([]float32, b.BatchSize())
		for i := range next {
			next[i] = h[i]
			for _, v := range x.Row(i).Float32s()[:b.Length()[i]] {
				next[i] += v
			}
			fmt.Printf("%s len=%d h=%v -> %v\n", b.Key()[i], b.Length()[i], h[i], next[i])
		}
		if err := b.SaveState(ctx, "h", tensor.New(next)); err != nil {
			panic(err)
		}
	}
	// Output:
	// 00000_of_00002:a len=3 h=0 -> 6
	// 00000_of_00001:b len=3 h=0 -> 60
	// 00001_of_00002:a len=2 h=6 -> 15
}

// BatchSequencesWithStates runs the prefetching as a stage of a pipeline,
// pads the sequences and ends with end of input after the last segment.
func ExampleBatchSequencesWithStates() {
	ctx := context.Background()
	texts := [][]int64{{1, 2, 3}, {4, 5, 6, 7}, {8}}
	next := 0
	step := func(context.Context) (sequence.Input, error) {
		if next == len(texts) {
			return sequence.Input{}, io.EOF
		}
		t := texts[next]
		next++
		return sequence.Input{
			Key:       fmt.Sprintf("text%d", next-1),
			Length:    sequence.InferLength,
			Sequences: map[string]tensor.Tensor{"tokens": tensor.New(t)},
		}, nil
	}
	p := input.NewPipeline()
	batches := sequence.BatchSequencesWithStates(p, step,
		map[string]tensor.Tensor{"count": tensor.Scalar[int32](0)}, 2, 2, sequence.Threads(1))
	if err := p.Start(ctx); err != nil {
		panic(err)
	}
	for {
		b, err := batches.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			panic(err)
		}
		seen := b.State("count").Int32s()
		after := make([]int32, b.BatchSize())
		for i := range after {
			after[i] = seen[i] + b.Length()[i]
			fmt.Printf("%-16s %v seen=%d\n", b.Key()[i], b.Sequences("tokens").Row(i).Int64s(), seen[i])
		}
		if err := b.SaveState(ctx, "count", tensor.New(after)); err != nil {
			panic(err)
		}
	}
	if err := p.Join(ctx); err != nil {
		panic(err)
	}
	// Output:
	// 00000_of_00002:text0 [1 2] seen=0
	// 00000_of_00002:text1 [4 5] seen=0
	// 00001_of_00002:text0 [3 0] seen=2
	// 00001_of_00002:text1 [6 7] seen=2
	// 00000_of_00001:text2 [8 0] seen=0
}

// A training loop that is done with each batch once its states are saved
// hands it back with NextInto: the next batch is made in its memory.
func ExampleStateSaver_NextInto() {
	ctx := context.Background()
	saver, err := sequence.NewStateSaver(2, 2, map[string]tensor.Tensor{"h": tensor.Scalar[float32](0)},
		sequence.AllowSmallerFinalBatch())
	if err != nil {
		panic(err)
	}
	for i, key := range []string{"a", "b", "c"} {
		x := make([]float32, 4)
		for t := range x {
			x[t] = float32(10*i + t)
		}
		in := sequence.Input{Key: key, Length: 4, Sequences: map[string]tensor.Tensor{"x": tensor.New(x)}}
		if err := saver.Prefetch(ctx, in); err != nil {
			panic(err)
		}
	}
	saver.Close(ctx)

	var b *sequence.Batch
	h := tensor.Zeros(tensor.Float32, tensor.Shape{2}) // the model's state, reused too
	for {
		b, err = saver.NextInto(ctx, b)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			panic(err)
		}
		x := b.Sequences("x")
		out := h.Float32s()[:b.BatchSize()]
		for i := range out {
			out[i] = b.State("h").Float32s()[i]
			for _, v := range x.Row(i).Float32s() {
				out[i] += v
			}
		}
		fmt.Println(b.Key(), out)
		if err := b.SaveState(ctx, "h", h.Slice(0, b.BatchSize())); err != nil {
			panic(err)
		}
	}
	// Output:
	// [00000_of_00002:a 00000_of_00002:b] [1 21]
	// [00001_of_00002:a 00001_of_00002:b] [6 46]
	// [00000_of_00002:c] [41]
	// [00001_of_00002:c] [86]
}
