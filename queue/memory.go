package queue

import (
	"fmt"
	"math"
	"runtime/debug"

	"github.com/sluiceml/sluice/tensor"
)

// CheckPaddedSize fails, with an error wrapping ErrResourceExhausted, for
// a padded batch of type d and shape that the process cannot hold: a
// PaddingFIFO's dequeue, and any other code that pads elements to the
// largest among them, asks it before allocating. The
// padded shape is the largest size of each dimension among the elements
// (PAD-03), so elements with no values can ask for any amount of memory;
// TensorFlow's allocator then fails the dequeue with ResourceExhausted, and
// the Go runtime would end the process (an allocation above its limit
// panics, and memory the system refuses is fatal). The cap is the
// machine's physical memory, or the Go memory limit (GOMEMLIMIT) if that
// is lower: a batch above it could not be used even if the allocation
// succeeded.
func CheckPaddedSize(d tensor.DType, shape tensor.Shape) error {
	// NumElements, not CheckedNumElements, and a copy of shape in the
	// error: the caller builds shape on its stack, and an error holding
	// it would move it to the heap for every batch.
	if n := shape.NumElements(); n >= 0 {
		size := uint64(elemBytes(d)) * uint64(n) // cannot overflow: n <= 2^48
		if size <= 1<<30 || size <= memoryCap() {
			return nil
		}
	}
	return fmt.Errorf("%w: OOM when allocating tensor with shape%v and type %s", ErrResourceExhausted, shape.Clone(), d.TFName())
}

// elemBytes returns the memory one element of type d takes in a tensor.
func elemBytes(d tensor.DType) int {
	if d == tensor.String {
		return 24 // a []byte header
	}
	return d.Size()
}

// memoryCap returns the most memory one tensor may take: the physical
// memory, if known, or the Go memory limit if that is lower. It is only
// asked for batches above a gigabyte, so reading the limit costs nothing
// for the others.
func memoryCap() uint64 {
	limit := uint64(math.MaxInt64)
	if l := debug.SetMemoryLimit(-1); l >= 0 {
		limit = uint64(l)
	}
	if m := physicalMemory(); m > 0 {
		limit = min(limit, m)
	}
	// make refuses more than 2^48 bytes with a panic.
	return min(limit, tensor.MaxElements)
}
