package tensor_test

import (
	"fmt"

	"github.com/sluiceml/sluice/tensor"
)

func Example() {
	image := tensor.New([]float32{0, 0.5, 1, 0.25}, 2, 2)
	label := tensor.Scalar(int64(7))
	fmt.Println(image.DType(), image.Shape(), label.Shape())

	batch, _ := tensor.Stack([]tensor.Tensor{image, image})
	fmt.Println(batch.Shape(), batch.Row(1).Float32s())

	padded, _ := tensor.StackPadded([]tensor.Tensor{tensor.Strings("a"), tensor.Strings("b", "c")})
	fmt.Println(padded)
	// Output:
	// float32 [2,2] []
	// [2,2,2] [0 0.5 1 0.25]
	// Tensor<string [2,2]>["a" "" "b" "c"]
}

// Segments of a sequence copied into a batch, a run of rows at a time.
func ExampleTensor_CopyRows() {
	steps := tensor.New([]int32{10, 11, 20, 21, 30, 31}, 6) // three segments of two steps
	batch := tensor.Zeros(tensor.Int32, tensor.Shape{4})
	batch.CopyRows(0, steps, 4, 2) // the last segment first
	batch.CopyRows(2, steps, 0, 2)
	fmt.Println(batch.Int32s())
	// Output:
	// [30 31 10 11]
}

// Padded batches of token sequences, each written over the memory of the
// batch before.
func ExampleReuse() {
	var batch tensor.Tensor
	for _, seqs := range [][][]int32{{{1, 2, 3}, {4}}, {{5}, {6, 7}}} {
		longest := 0
		for _, s := range seqs {
			longest = max(longest, len(s))
		}
		batch = tensor.Reuse(batch, tensor.Int32, tensor.Shape{len(seqs), longest})
		for i, s := range seqs {
			batch.SetRowPadded(i, tensor.New(s))
		}
		fmt.Println(batch.Shape(), batch.Int32s())
	}
	// Output:
	// [2,3] [1 2 3 4 0 0]
	// [2,2] [5 0 6 7]
}
