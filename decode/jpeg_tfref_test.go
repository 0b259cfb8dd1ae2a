package decode

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TensorFlow's decode_jpeg on the files under testdata/jpeg
// (tools/tfref/jpegs.py): every subsampling libjpeg-turbo writes, qualities
// 5 to 100, 16-bit quantization tables, optimized Huffman tables, restart
// markers, grayscale and sizes that are not whole MCUs, for channels 0, 1
// and 3, and with dct_method="INTEGER_ACCURATE" (AccurateDCT). Sequential
// JPEGs decode to TensorFlow's pixels exactly; the progressive one, which
// image/jpeg decodes, within the documented tolerance.
func TestDecodeJPEGMatchesTensorFlow(t *testing.T) {
	var ref struct {
		Cases []struct {
			File, Pixels, SHA256 string
			Channels             int
			Accurate             bool
			Shape                []int
		}
	}
	loadJSON(t, "tf_decode_jpeg.json", &ref)
	if len(ref.Cases) < 150 {
		t.Fatalf("only %d cases", len(ref.Cases))
	}
	for _, c := range ref.Cases {
		name := fmt.Sprintf("%s channels=%d", c.File, c.Channels)
		var opts []ImageOption
		if c.Accurate {
			name += " INTEGER_ACCURATE"
			opts = append(opts, AccurateDCT())
		}
		data, err := os.ReadFile(filepath.Join("testdata", c.File))
		if err != nil {
			t.Fatal(err)
		}
		d, _ := NewImage(c.Channels, opts...)
		got, err := d.Decode(data, c.File)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if fmt.Sprint([]int(got.Shape())) != fmt.Sprint(c.Shape) {
			t.Errorf("%s: shape %v, TensorFlow %v", name, got.Shape(), c.Shape)
			continue
		}
		px := got.Uint8s()
		if c.SHA256 != "" {
			sum := sha256.Sum256(px)
			if hex.EncodeToString(sum[:]) != c.SHA256 {
				t.Errorf("%s: pixels differ from TensorFlow's (SHA-256)", name)
			}
			continue
		}
		want, _ := base64.StdEncoding.DecodeString(c.Pixels)
		if bytes.Equal(px, want) {
			continue
		}
		maxDiff, sum, first := 0, 0, -1
		for i, v := range px {
			if d := abs(int(v) - int(want[i])); d > 0 {
				maxDiff, sum = max(maxDiff, d), sum+d
				if first < 0 {
					first = i
				}
			}
		}
		mean := float64(sum) / float64(len(want))
		t.Errorf("%s: pixels differ from TensorFlow's by up to %d, %.3f on average, first at byte %d", name, maxDiff, mean, first)
	}
}
