package tensor

import (
	"errors"
	"fmt"
	"math"
	"runtime/debug"
)

// ErrResourceExhausted reports a tensor too large for the machine's
// memory (TensorFlow's ResourceExhausted "OOM when allocating tensor"):
// a batch padded to its largest element, or to its longest sequence, can
// ask for any amount of memory from elements that are small alone, [n,0]
// and [0,n] padding to [2,n,n]. queue.ErrResourceExhausted is this error.
var ErrResourceExhausted = errors.New("resource exhausted")

// CheckMemory fails, with an error wrapping ErrResourceExhausted, for a
// tensor of type d and shape that the process cannot hold, which code
// that sizes a tensor from data asks before allocating it: the Go runtime
// cannot refuse an allocation but by ending the process (one above its
// limit panics, and memory the system refuses is fatal). The cap is the
// machine's physical memory, or the Go memory limit (GOMEMLIMIT) if that
// is lower: a tensor above it could not be used even if the allocation
// succeeded.
func CheckMemory(d DType, shape Shape) error {
	// NumElements, not CheckedNumElements, and a copy of shape in the
	// error: the caller builds shape on its stack, and an error holding
	// it would move it to the heap for every batch.
	if n := shape.NumElements(); n >= 0 {
		size := uint64(elemBytes(d)) * uint64(n) // cannot overflow: n <= 2^48
		if size <= 1<<30 || size <= MemoryLimit() {
			return nil
		}
	}
	return fmt.Errorf("%w: OOM when allocating tensor with shape%v and type %s", ErrResourceExhausted, shape.Clone(), d.TFName())
}

// MemoryLimit returns the most memory one tensor may take: the physical
// memory, if known, or the Go memory limit if that is lower, and never
// more than make allows (MaxElements bytes). Reading the limit costs a
// system call: CheckMemory asks it only for tensors above a gigabyte.
func MemoryLimit() uint64 {
	limit := uint64(math.MaxInt64)
	if l := debug.SetMemoryLimit(-1); l >= 0 {
		limit = uint64(l)
	}
	if m := PhysicalMemory(); m > 0 {
		limit = min(limit, m)
	}
	return min(limit, MaxElements)
}
