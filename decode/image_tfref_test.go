package decode

import (
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TensorFlow's decode_image (expand_animations=False) on the files under
// testdata/images, for channels 0, 1, 3 and 4 (tools/tfref/decode.py):
// PNG, GIF, BMP and JPEG (baseline and progressive) exactly; TensorFlow's errors for the channel counts a format does
// not allow, and for bad input.
func TestDecodeImageMatchesTensorFlow(t *testing.T) {
	var ref struct {
		Cases []struct {
			File, Name, Data, Pixels string
			Error                    *string
			Channels                 int
			Shape                    []int
		}
	}
	loadJSON(t, "tf_decode_image.json", &ref)
	if len(ref.Cases) < 100 {
		t.Fatalf("only %d cases", len(ref.Cases))
	}
	for _, c := range ref.Cases {
		var data []byte
		name := c.File
		if c.File != "" {
			var err error
			if data, err = os.ReadFile(filepath.Join("testdata", "images", c.File)); err != nil {
				t.Fatal(err)
			}
		} else {
			name = c.Name
			data, _ = base64.StdEncoding.DecodeString(c.Data)
		}
		name = fmt.Sprintf("%s channels=%d", name, c.Channels)
		d, _ := NewImage(c.Channels)
		got, err := d.Decode(data, c.File)
		if c.Error != nil {
			var ie *ImageError
			switch {
			case err == nil:
				t.Errorf("%s: decoded, TensorFlow says %q", name, *c.Error)
			case !errors.As(err, &ie) || (c.File != "" && !strings.Contains(err.Error(), c.File)):
				t.Errorf("%s: error %q does not name the record", name, err)
			case strings.HasPrefix(*c.Error, "Unknown image file format"):
				if !errors.Is(err, ErrImageFormat) {
					t.Errorf("%s: error %q, want ErrImageFormat", name, err)
				}
			case c.File != "" || strings.HasPrefix(c.Name, "bmp") || c.Name == "empty":
				// Messages sluice shares with TensorFlow; those from
				// libpng and libjpeg differ from Go's.
				if !strings.Contains(err.Error(), *c.Error) {
					t.Errorf("%s: error %q, TensorFlow %q", name, err, *c.Error)
				}
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if fmt.Sprint([]int(got.Shape())) != fmt.Sprint(c.Shape) {
			t.Errorf("%s: shape %v, TensorFlow %v", name, got.Shape(), c.Shape)
			continue
		}
		if c.File == "offset.gif" {
			// A first frame off the canvas origin: TensorFlow's GIF reader
			// returns the frame's size but fills it with zeros, sluice with
			// the frame's pixels (see TestGIFOffsetFrame).
			continue
		}
		want, _ := base64.StdEncoding.DecodeString(c.Pixels)
		if strings.HasSuffix(c.File, ".png") && data[24] < 8 && c.Channels == 4 {
			// A deliberate difference: TensorFlow fills the alpha of
			// 1-, 2- and 4-bit PNGs with the largest sample of that
			// depth (1, 3, 15), not 255; sluice makes them opaque.
			for i := 3; i < len(want); i += 4 {
				want[i] = 255
			}
		}
		maxDiff, sum := 0, 0
		for i, v := range got.Uint8s() {
			d := abs(int(v) - int(want[i]))
			maxDiff, sum = max(maxDiff, d), sum+d
		}
		if maxDiff > 0 {
			t.Errorf("%s: pixels differ from TensorFlow's by up to %d, %.2f on average", name, maxDiff, float64(sum)/float64(len(want)))
		}
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
