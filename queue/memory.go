package queue

import "github.com/sluiceml/sluice/tensor"

// CheckPaddedSize fails, with an error wrapping ErrResourceExhausted, for
// a padded batch of type d and shape that the process cannot hold: a
// PaddingFIFO's dequeue, and any other code that pads elements to the
// largest among them, asks it before allocating (tensor.CheckMemory). The
// padded shape is the largest size of each dimension among the elements
// (PAD-03), so elements with no values can ask for any amount of memory;
// TensorFlow's allocator then fails the dequeue with ResourceExhausted.
func CheckPaddedSize(d tensor.DType, shape tensor.Shape) error {
	return tensor.CheckMemory(d, shape)
}
