package decode

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math"
	"os"
	"testing"

	"github.com/sluiceml/sluice/tensor"
)

// csvLines are the lines tools/tfref/decode_bench.py times TensorFlow on:
// five numeric columns.
func csvLines(n int) ([][]byte, int64) {
	recs := make([][]byte, n)
	var size int64
	for i := range recs {
		recs[i] = fmt.Appendf(nil, "%d,%.3f,%.5f,%d,%.6f", i*7919, float64(i)*0.25, float64(i)/3, i%100, float64(i)*1.5e-3)
		size += int64(len(recs[i]) + 1)
	}
	return recs, size
}

func csvBenchDecoder() *CSV {
	d, _ := NewCSV([]Column{Int64Column(0), Float32Column(0), Float32Column(0), Int32Column(0), Float64Column(0)})
	return d
}

func BenchmarkCSVBatch5Columns(b *testing.B) {
	d := csvBenchDecoder()
	recs, size := csvLines(1024)
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := d.DecodeBatch(recs, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)*1024/b.Elapsed().Seconds(), "lines/s")
}

func BenchmarkCSVBatchInto5Columns(b *testing.B) {
	d := csvBenchDecoder()
	recs, size := csvLines(1024)
	dst := d.NewBatch(len(recs))
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		if err := d.DecodeBatchInto(dst, recs, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)*1024/b.Elapsed().Seconds(), "lines/s")
}

func BenchmarkCSVSingle5Columns(b *testing.B) {
	d := csvBenchDecoder()
	recs, size := csvLines(1024)
	b.SetBytes(size / 1024)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := d.Decode(recs[i%1024]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

func BenchmarkCSVStrings(b *testing.B) {
	d, _ := NewCSV([]Column{StringColumn(""), Int64Column(0), StringColumn("")})
	recs := make([][]byte, 1024)
	var size int64
	for i := range recs {
		recs[i] = fmt.Appendf(nil, `user%d,%d,"a, quoted ""text"" %d"`, i, i, i)
		size += int64(len(recs[i]) + 1)
	}
	dst := d.NewBatch(len(recs))
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		if err := d.DecodeBatchInto(dst, recs, nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRawFloat32(b *testing.B) {
	for _, size := range []int{784 * 4, 1 << 20} {
		for _, le := range []bool{true, false} {
			b.Run(fmt.Sprintf("bytes=%d/little=%v", size, le), func(b *testing.B) {
				r, _ := NewRaw(tensor.Float32, le)
				recs := [][]byte{make([]byte, size)}
				dst := tensor.Zeros(tensor.Float32, tensor.Shape{1, size / 4})
				b.SetBytes(int64(size))
				b.ReportAllocs()
				for b.Loop() {
					if err := r.DecodeBatchInto(dst, recs, nil); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

func BenchmarkRawFloat32Alloc(b *testing.B) {
	r, _ := NewRaw(tensor.Float32, true)
	data := make([]byte, 784*4)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		r.Decode(data)
	}
}

func BenchmarkImage(b *testing.B) {
	const w, h = 224, 224
	rgb := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			rgb.Set(x, y, color.RGBA{uint8(x), uint8(y), uint8(x + y), 255})
		}
	}
	var pngBuf, jpgBuf, photoBuf bytes.Buffer
	png.Encode(&pngBuf, rgb)
	jpeg.Encode(&jpgBuf, rgb, &jpeg.Options{Quality: 90})
	jpeg.Encode(&photoBuf, photo(w, h), &jpeg.Options{Quality: 90})
	progressive, err := os.ReadFile("testdata/bench-progressive-224.jpg") // tools/tfref/jpegs.py's
	if err != nil {
		b.Fatal(err)
	}
	// The same picture without refinement scans, which libjpeg smooths
	// (tools/tfref/jpegs_libjpeg.py's).
	smoothed, err := os.ReadFile("testdata/bench-progressive-noref-224.jpg")
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		data []byte
	}{{"png", pngBuf.Bytes()}, {"jpeg", jpgBuf.Bytes()}, {"jpeg-photo", photoBuf.Bytes()},
		{"jpeg-progressive", progressive}, {"jpeg-progressive-smoothed", smoothed}} {
		b.Run(c.name, func(b *testing.B) {
			d, _ := NewImage(3)
			b.SetBytes(w * h * 3)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := d.Decode(c.data, ""); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// photo makes an image whose JPEG costs a decoder what a photograph's does:
// smooth shapes with edges and fine noise, so that blocks hold many nonzero
// coefficients (a gradient's hold one or two, and its Huffman decoding
// costs next to nothing).
func photo(w, h int) *image.RGBA {
	m := image.NewRGBA(image.Rect(0, 0, w, h))
	seed := uint32(1)
	noise := func() int {
		seed = seed*1664525 + 1013904223
		return int(seed>>24)%33 - 16
	}
	for y := range h {
		for x := range w {
			r := 128 + int(100*math.Sin(float64(x)/9)*math.Cos(float64(y)/13)) + noise()
			g := x*255/w + noise()
			b := 40 + noise()
			if (x-w/2)*(x-w/2)+(y-h/3)*(y-h/3) < w*h/16 {
				b = 210 + noise()
			}
			m.Set(x, y, color.RGBA{clamp8(int32(r)), clamp8(int32(g)), clamp8(int32(b)), 255})
		}
	}
	return m
}
