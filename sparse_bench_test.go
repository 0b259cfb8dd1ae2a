package sluice

import (
	"testing"

	"github.com/sluiceml/sluice/tensor"
)

// BenchmarkCheckSparseBounds checks a batch of 128 SparseFeature records of
// 64 sorted indices each in a [128, 1024] dense shape, as a batch's parse
// does.
func BenchmarkCheckSparseBounds(b *testing.B) { benchCheckSparseBounds(b, false) }

// BenchmarkCheckSparseBoundsUnsorted is the same batch with each record's
// indices in reverse order, as an already_sorted SparseFeature that was
// not gives them.
func BenchmarkCheckSparseBoundsUnsorted(b *testing.B) { benchCheckSparseBounds(b, true) }

func benchCheckSparseBounds(b *testing.B, reversed bool) {
	const records, per = 128, 64
	idx := make([]int64, 0, records*per*2)
	for r := range records {
		for k := range per {
			j := k
			if reversed {
				j = per - 1 - k
			}
			idx = append(idx, int64(r), int64(j*16+r%16))
		}
	}
	s := tensor.Sparse{Indices: tensor.New(idx, records*per, 2), Values: tensor.Zeros(tensor.Float32, tensor.Shape{records * per}),
		DenseShape: tensor.Shape{records, 1024}}
	b.ReportAllocs()
	b.SetBytes(int64(len(idx) * 8))
	for b.Loop() {
		if err := checkSparseBounds("sp", s, nil); err != nil {
			b.Fatal(err)
		}
	}
}
