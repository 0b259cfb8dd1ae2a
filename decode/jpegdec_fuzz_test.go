package decode

import (
	"bytes"
	"image"
	"image/jpeg"
	"os"
	"path/filepath"
	"testing"
)

// FuzzJPEGDecode: the decoder never panics, and where both it and
// image/jpeg decode a file, they agree on its type, size and subsampling.
// Seeds are the test files and generated images with restart intervals,
// non-interleaved scans and every subsampling; inputs are capped at 64 KiB
// and images at 4 MiB of samples.
func FuzzJPEGDecode(f *testing.F) {
	for _, dir := range []string{"images", "jpeg"} {
		files, _ := filepath.Glob(filepath.Join("testdata", dir, "*.jp*g"))
		for _, name := range files {
			if data, err := os.ReadFile(name); err == nil {
				f.Add(data)
			}
		}
	}
	for _, s := range []jpegSpec{
		{w: 9, h: 7, gray: true, restart: 1},
		{w: 17, h: 9, hv: 0x22, restart: 2},
		{w: 17, h: 9, hv: 0x21, scans: [][]int{{0}, {1}, {2}}},
		{w: 33, h: 9, hv: 0x42, scans: [][]int{{1, 2}, {0}}, restart: 3},
		{w: 8, h: 17, hv: 0x12, q16: true},
		{w: 5, h: 5, hv: 0x41},
	} {
		f.Add(encodeTestJPEG(s))
	}
	const maxSamples = 4 << 20
	var d jpegDecoder
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 64<<10 {
			return
		}
		img, err := d.decode(data, maxSamples)
		if err != nil {
			return
		}
		// image/jpeg allocates what the header says, unchecked.
		cfg, err := jpeg.DecodeConfig(bytes.NewReader(data))
		if err != nil || int64(cfg.Width)*int64(cfg.Height) > maxSamples {
			return
		}
		want, err := jpeg.Decode(bytes.NewReader(data))
		if err != nil {
			return
		}
		if img.Bounds() != want.Bounds() {
			t.Fatalf("bounds %v, image/jpeg %v", img.Bounds(), want.Bounds())
		}
		switch m := img.(type) {
		case *image.Gray:
			if _, ok := want.(*image.Gray); !ok {
				t.Fatalf("gray, image/jpeg %T", want)
			}
		case *image.YCbCr:
			w, ok := want.(*image.YCbCr)
			if !ok || m.SubsampleRatio != w.SubsampleRatio || m.YStride != w.YStride || m.CStride != w.CStride {
				t.Fatalf("%v (strides %d, %d), image/jpeg %T %v", m.SubsampleRatio, m.YStride, m.CStride, want, want.ColorModel())
			}
		default:
			t.Fatalf("decoded to %T", img)
		}
	})
}
