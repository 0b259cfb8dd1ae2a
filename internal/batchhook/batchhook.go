// Package batchhook lets a program of this module give a data set's
// decoders the memory to write each batch into, so that a batch bound for
// another process (sluice-serve's shared-memory slots) is decoded there
// instead of being decoded into Go memory and copied.
package batchhook

import "github.com/sluiceml/sluice/tensor"

// An Allocator lends memory for batches. Its methods are called by the
// reading goroutines, concurrently.
type Allocator interface {
	// Alloc returns a tensor of each of the given types and shapes, in
	// order, or nil when it has no memory to lend now: the decoder then
	// uses memory of its own. The tensors' values need not be zero.
	Alloc(dtypes []tensor.DType, shapes []tensor.Shape) []tensor.Tensor
	// Put takes back tensors Alloc returned that hold no batch after all
	// (their decoding failed). The tensors of a batch that was delivered
	// are the allocator's own business: it knows them by their memory.
	Put(ts []tensor.Tensor)
}

// Option returns a sluice.BatchOption (as any: this package cannot name
// the type) that makes the decoders of an Iterator without KeepBatches
// write each batch into memory from a where they can: today an Examples
// data set whose features are all FixedLen float32 or int64, and a
// FixedLengthRecords data set whose fields are all numbers (no bytes, no
// Decode function). Package sluice sets it.
var Option func(a Allocator) any
