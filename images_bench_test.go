package sluice

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"os"
	"path/filepath"
	"testing"

	"github.com/sluiceml/sluice/example"
	"github.com/sluiceml/sluice/internal/cputime"
	"github.com/sluiceml/sluice/tfrecord"
)

// BenchmarkDecodeImage reads 1 024 Examples, each a 160 × 128 color JPEG
// (quality 90), and decodes them with DecodeImage into 128 × 128 × 3
// pixels (a center crop), in batches of 128; "bytes" reads the same
// records without decoding, for the decode's share. The one file is read
// by one reader, which decodes its batches itself; with Shuffle or
// Deterministic, batches are decoded in parallel. One op is one pass.
//
//	go test -run '^$' -bench DecodeImage -benchmem -cpu 1 .
//	go test -run '^$' -bench DecodeImage -benchmem -cpu 2 .
func BenchmarkDecodeImage(b *testing.B) {
	const n, w, h = 1024, 160, 128
	name := filepath.Join(b.TempDir(), "images.tfrecord")
	var buf bytes.Buffer
	tw := tfrecord.NewWriter(&buf, tfrecord.None)
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := range n {
		// Smooth gradients with some texture, as photographs compress.
		for y := range h {
			for x := range w {
				img.Set(x, y, color.RGBA{uint8(x + i), uint8(y * 2), uint8((x*y + i) % 251), 255})
			}
		}
		var enc bytes.Buffer
		if err := jpeg.Encode(&enc, img, &jpeg.Options{Quality: 90}); err != nil {
			b.Fatal(err)
		}
		tw.Write(example.New().Bytes("img", enc.Bytes()).Int64("label", int64(i%10)).Marshal())
	}
	if err := tw.Close(); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(name, buf.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name string
		ds   *Dataset
	}{
		{"decoded", Examples(name, imageSpec, DecodeImage("img", 128, 128, 3))},
		{"decoded-shuffled", Examples(name, imageSpec, DecodeImage("img", 128, 128, 3), Shuffle(512))},
		{"decoded-deterministic", Examples(name, imageSpec, DecodeImage("img", 128, 128, 3), Deterministic())},
		{"bytes", Examples(name, imageSpec)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			cpu0 := cputime.Process()
			for b.Loop() {
				images := 0
				for batch, err := range bc.ds.Batches(b.Context(), benchBatch) {
					if err != nil {
						b.Fatal(err)
					}
					images += batch.Len()
				}
				if images != n {
					b.Fatalf("%d images, want %d", images, n)
				}
			}
			total := float64(n * b.N)
			b.ReportMetric(total/b.Elapsed().Seconds(), "images/s")
			b.ReportMetric(float64(cputime.Process()-cpu0)/total, "cpu-ns/image")
		})
	}
}
