package decode

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// DecodeFit gives what Decode gives, cropped around the center or padded
// with zeros as tf.image.resize_with_crop_or_pad does (computed here pixel
// by pixel), for every test image, every channel count its format takes
// and targets smaller, larger and across its size; sequential JPEGs go
// through the windowed conversion, the rest through Decode.
func TestDecodeFitMatchesDecode(t *testing.T) {
	var files []string
	for _, pattern := range []string{"testdata/images/*", "testdata/jpeg/*.jpg"} {
		names, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, names...)
	}
	if len(files) < 50 {
		t.Fatalf("only %d test images", len(files))
	}
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, channels := range []int{1, 3, 4} {
			d, _ := NewImage(channels)
			whole, err := d.Decode(data, name)
			if err != nil {
				continue // a channel count the format does not take
			}
			h, w := whole.Shape()[0], whole.Shape()[1]
			for _, size := range [][2]int{{h, w}, {h/2 + 1, w/2 + 1}, {h + 5, w + 4}, {h + 3, max(w-3, 1)}, {max(h-2, 1), w + 7}, {1, 1}} {
				th, tw := size[0], size[1]
				want := make([]uint8, th*tw*channels)
				px := whole.Uint8s()
				for y := range th {
					for x := range tw {
						sy, sx := y-(th-h)/2, x-(tw-w)/2 // pads and crops alike: floor((t-s)/2) either way
						if th < h {
							sy = y + (h-th)/2
						}
						if tw < w {
							sx = x + (w-tw)/2
						}
						if sy < 0 || sy >= h || sx < 0 || sx >= w {
							continue
						}
						copy(want[(y*tw+x)*channels:][:channels], px[(sy*w+sx)*channels:])
					}
				}
				got := bytes.Repeat([]uint8{0xaa}, len(want)) // padding must be written
				if err := d.DecodeFit(got, data, name, th, tw); err != nil {
					t.Fatalf("%s, %d channels, %d×%d: %v", name, channels, th, tw, err)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("%s, %d channels: %d×%d from %d×%d differs from Decode's, fitted", name, channels, th, tw, h, w)
				}
			}
		}
	}
}

// DecodeFit refuses channels 0 and a dst of the wrong size, and returns
// Decode's errors.
func TestDecodeFitErrors(t *testing.T) {
	data, err := os.ReadFile("testdata/images/rgb.jpg")
	if err != nil {
		t.Fatal(err)
	}
	d0, _ := NewImage(0)
	d3, _ := NewImage(3)
	for _, tc := range []struct {
		name string
		err  error
	}{
		{"channels 0", d0.DecodeFit(make([]uint8, 12), data, "", 2, 2)},
		{"dst too small", d3.DecodeFit(make([]uint8, 11), data, "", 2, 2)},
		{"no pixels", d3.DecodeFit(nil, data, "", 0, 2)},
		// Sizes whose product wraps to dst's length (audit 82: a panic).
		{"product wraps to 0", d3.DecodeFit(nil, data, "", 1<<40, 1<<40)},
		{"product wraps to 12", d3.DecodeFit(make([]uint8, 12), data, "", 1<<62+2, 2)},
	} {
		if tc.err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
	_, want := d3.Decode([]byte("\xff\xd8\xffnot a jpeg"), "rec:7")
	got := d3.DecodeFit(make([]uint8, 12), []byte("\xff\xd8\xffnot a jpeg"), "rec:7", 2, 2)
	if got == nil || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("DecodeFit's error %v, Decode's %v", got, want)
	}
}
