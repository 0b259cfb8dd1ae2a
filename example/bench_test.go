package example

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/sluiceml/sluice/tensor"
)

// mnistLike returns n Examples shaped like MNIST's: 784 floats and an
// int64 label, written as TensorFlow writes them.
func mnistLike(n int) [][]byte {
	r := rand.New(rand.NewPCG(1, 2))
	recs := make([][]byte, n)
	pix := make([]float32, 784)
	b := New()
	for i := range recs {
		for j := range pix {
			pix[j] = r.Float32() - 0.5
		}
		recs[i] = b.Reset().Int64("image_class", int64(i%10)).Floats("image_floats", pix).Marshal()
	}
	return recs
}

func totalBytes(recs [][]byte) int64 {
	n := 0
	for _, r := range recs {
		n += len(r)
	}
	return int64(n)
}

func benchParse(b *testing.B, recs [][]byte, p *Parser) {
	b.SetBytes(totalBytes(recs))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.Parse(recs, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)*float64(len(recs))/b.Elapsed().Seconds(), "records/s")
}

// BenchmarkParseMNIST parses batches of 128 MNIST-like Examples into dense
// [128,784] float32 and [128] int64 tensors.
func BenchmarkParseMNIST(b *testing.B) {
	recs := mnistLike(128)
	b.Run("fast", func(b *testing.B) {
		p, _ := NewParser(mnistSpec())
		benchParse(b, recs, p)
	})
	b.Run("fast-reuse", func(b *testing.B) {
		p, _ := NewParser(mnistSpec())
		benchParse(b, recs, p.ReuseOutputs())
	})
	b.Run("reference", func(b *testing.B) {
		p, _ := newReferenceParser(mnistSpec())
		benchParse(b, recs, p)
	})
}

// BenchmarkParseSingleMNIST parses MNIST-like Examples one at a time, as
// a pipeline's step does: ParseSingle into new tensors, and
// ParseSingleInto the tensors of a record parsed before.
func BenchmarkParseSingleMNIST(b *testing.B) {
	recs := mnistLike(128)
	b.Run("ParseSingle", func(b *testing.B) {
		p, _ := NewParser(mnistSpec())
		b.ReportAllocs()
		for b.Loop() {
			for _, rec := range recs {
				if _, err := p.ParseSingle(rec, "k"); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(b.N)*float64(len(recs))/b.Elapsed().Seconds(), "records/s")
	})
	b.Run("ParseSingleInto", func(b *testing.B) {
		p, _ := NewParser(mnistSpec())
		var dst []tensor.Tensor
		b.ReportAllocs()
		for b.Loop() {
			for _, rec := range recs {
				var err error
				if dst, err = p.ParseSingleInto(dst, rec, "k"); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(b.N)*float64(len(recs))/b.Elapsed().Seconds(), "records/s")
	})
}

// smallExamples returns Examples with 10 scalar features (5 int64, 5
// float).
func smallExamples(n int) ([][]byte, Spec) {
	spec := Spec{}
	recs := make([][]byte, n)
	b := New()
	for i := range recs {
		b.Reset()
		for j := range 5 {
			b.Int64(fmt.Sprintf("int%d", j), int64(i*j))
			b.Float(fmt.Sprintf("float%d", j), float32(i)/float32(j+1))
		}
		recs[i] = b.Marshal()
	}
	for j := range 5 {
		spec[fmt.Sprintf("int%d", j)] = FixedLen(tensor.Int64)
		spec[fmt.Sprintf("float%d", j)] = FixedLen(tensor.Float32)
	}
	return recs, spec
}

// BenchmarkParseSmall parses batches of 128 Examples of 10 scalar features.
func BenchmarkParseSmall(b *testing.B) {
	recs, spec := smallExamples(128)
	b.Run("fast", func(b *testing.B) {
		p, _ := NewParser(spec)
		benchParse(b, recs, p)
	})
	b.Run("fast-reuse", func(b *testing.B) {
		p, _ := NewParser(spec)
		benchParse(b, recs, p.ReuseOutputs())
	})
	b.Run("reference", func(b *testing.B) {
		p, _ := newReferenceParser(spec)
		benchParse(b, recs, p)
	})
}

// BenchmarkMarshalMNIST writes MNIST-like Examples with a reused Builder.
func BenchmarkMarshalMNIST(b *testing.B) {
	pix := make([]float32, 784)
	label := []int64{7}
	bld := New()
	buf := bld.Int64s("image_class", label).Floats("image_floats", pix).Marshal()
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	for b.Loop() {
		buf = bld.Reset().Int64s("image_class", label).Floats("image_floats", pix).AppendMarshal(buf[:0])
	}
}

// BenchmarkBuildWide builds Examples of 10, 100 and 1000 scalar features
// with one reused Builder, as a converter of wide rows does.
func BenchmarkBuildWide(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		names := make([]string, n)
		for i := range names {
			names[i] = fmt.Sprintf("c%04d", i)
		}
		v := []int64{1}
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			bl := New()
			var buf []byte
			b.ReportAllocs()
			for b.Loop() {
				bl.Reset()
				for _, name := range names {
					bl.Int64s(name, v)
				}
				buf = bl.AppendMarshal(buf[:0])
			}
		})
	}
}
