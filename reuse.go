package sluice

import (
	"github.com/sluiceml/sluice/internal/batchhook"
	"github.com/sluiceml/sluice/tensor"
)

// reusingInto returns a newDecoder whose decoders with reuse parse each
// record into its rows of the batch they decoded before (into, the
// decoders that write into lent memory, lent their own last batch), and
// otherwise are plain's. A batch parse, even into reused outputs, makes
// its result's lists anew (five allocations a batch); a parse record by
// record into rows makes nothing. Without into (a spec with features
// other than FixedLen float32 and int64) it returns plain.
func reusingInto(into func(batchhook.Allocator, bool) (decoder, error), plain func(reuse bool) (decoder, error)) func(reuse bool) (decoder, error) {
	if into == nil {
		return plain
	}
	return func(reuse bool) (decoder, error) {
		if !reuse {
			return plain(false)
		}
		return into(&ownBatch{}, true)
	}
}

// A ownBatch lends a decoder the tensors of the batch it lent before,
// when the batch has their shapes, or new ones. A decoder with reuse
// writes each batch over the one before, which its user is done with.
type ownBatch struct {
	last []tensor.Tensor
}

// minRowBytes is the least a record's values of one feature take on
// average for a batch to be parsed record by record into its rows. A row
// parse pays per record and feature what the batch parser pays once per
// feature: for features of a few bytes (ten scalars) it costs more CPU
// than the batch parse's allocations, as sluice-serve found (its
// minLentBytes); MNIST's 784 floats gain from it.
const minRowBytes = 64

func (b *ownBatch) Alloc(dtypes []tensor.DType, shapes []tensor.Shape) []tensor.Tensor {
	if b.last == nil {
		total, n := 0, 0
		for i, dt := range dtypes {
			total += shapes[i].NumElements() * dt.Size()
		}
		if len(shapes) > 0 && len(shapes[0]) > 0 {
			n = shapes[0][0]
		}
		if n == 0 || total < minRowBytes*len(dtypes)*n {
			return nil
		}
	}
	if !b.fits(dtypes, shapes) {
		b.last = make([]tensor.Tensor, len(dtypes))
		for i, dt := range dtypes {
			b.last[i] = tensor.Zeros(dt, shapes[i])
		}
	}
	return b.last
}

// Put keeps ts, whose batch failed to decode, for the next.
func (b *ownBatch) Put(ts []tensor.Tensor) {}

func (b *ownBatch) fits(dtypes []tensor.DType, shapes []tensor.Shape) bool {
	if len(b.last) != len(dtypes) {
		return false
	}
	for i, t := range b.last {
		if t.DType() != dtypes[i] || !t.Shape().Equal(shapes[i]) {
			return false
		}
	}
	return true
}
