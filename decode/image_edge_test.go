package decode

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TensorFlow's decode_image (expand_animations=False) of edge-case images
// (tools/tfref/imageedge.py): images of no pixels, which libjpeg, libpng
// and giflib refuse; PNG chunks libpng skips with a warning (an ancillary
// chunk whose CRC is wrong, a tRNS of the wrong length, in an image with
// alpha, longer than the palette or the bit depth allows, a second one, one
// before the PLTE, a PLTE in a grayscale image) and a palette whose tRNS
// is all opaque, which still makes 4 channels at channels 0; and GIFs whose
// first frame extends past a logical screen, or whose screen is 0 × 0,
// which giflib decodes at the frame's size; and PNG image data libpng
// reads otherwise than Go's image/png: zlib data after the last row, a
// wrong zlib checksum read with the last row's data (an error) or after it
// (decoded), too little data, a stream that does not end, IDAT chunks with
// a bad CRC.
func TestDecodeImageEdgesMatchTensorFlow(t *testing.T) {
	var ref struct {
		Cases []struct {
			Name, Data, Pixels string
			Error              *string
			Channels           int
			Shape              []int
		}
	}
	loadJSON(t, "tf_decode_image_edge.json", &ref)
	// Deliberate differences (CONFORMANCE.md).
	skip := map[string]string{
		// The first frame's pixels, not TensorFlow's: the frame shifted by
		// its offset within an output of its own size.
		"frame_offset_past_screen.gif": "pixels",
		// zlib data after the last row that does not end: libpng inflates
		// it to its end and fails, sluice inflates only the rows.
		"extra_zlib_unterminated.png": "all",
	}
	for _, c := range ref.Cases {
		data, _ := base64.StdEncoding.DecodeString(c.Data)
		name := fmt.Sprintf("%s channels=%d", c.Name, c.Channels)
		if skip[c.Name] == "all" {
			continue
		}
		d, _ := NewImage(c.Channels)
		got, err := d.Decode(data, c.Name)
		if c.Error != nil {
			var ie *ImageError
			switch {
			case err == nil:
				t.Errorf("%s: decoded to %v, TensorFlow says %q", name, got.Shape(), *c.Error)
			case !errors.As(err, &ie) || !strings.Contains(err.Error(), c.Name):
				t.Errorf("%s: error %q does not name the record", name, err)
			}
			if c.Channels == 0 || c.Channels == 3 {
				dst := make([]uint8, 2*2*3)
				d3, _ := NewImage(3)
				if err := d3.DecodeFit(dst, data, c.Name, 2, 2); err == nil {
					t.Errorf("%s: DecodeFit gave %v, TensorFlow says %q", name, dst, *c.Error)
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
		want, _ := base64.StdEncoding.DecodeString(c.Pixels)
		if strings.HasSuffix(c.Name, ".png") && data[24] < 8 && c.Channels == 4 {
			// Deliberate: TensorFlow's alpha of an opaque 1-, 2- or 4-bit
			// PNG is 1, 3 or 15, sluice's 255.
			for i := 3; i < len(want); i += 4 {
				want[i] = 255
			}
		}
		if skip[c.Name] == "" && string(got.Uint8s()) != string(want) {
			t.Errorf("%s: pixels %v, TensorFlow %v", name, got.Uint8s(), want)
		}
	}
}
