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

// A Check looks at a batch as its reading goroutine decodes it: dense
// returns a feature's tensor (sluice.Batch.Dense), rows is the batch's
// number of records. An error that is a *dataerr.Error with the record's
// index in the batch (Record) is completed with the record's file, offset
// and key, as a decoder's own errors are.
type Check func(dense func(name string) tensor.Tensor, rows int) error

// CheckOption returns a sluice.BatchOption (as any) that runs check on
// every batch of an Iterator without KeepBatches, in its reading
// goroutines: sluice-serve checks there the bytes of the features it reads
// as numbers (decode_raw), whose errors must name the record. Package
// sluice sets it.
var CheckOption func(check Check) any
