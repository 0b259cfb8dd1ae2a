package sluice

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sluiceml/sluice/dataerr"
	"github.com/sluiceml/sluice/decode"
	"github.com/sluiceml/sluice/example"
	"github.com/sluiceml/sluice/tensor"
	"github.com/sluiceml/sluice/tfrecord"
)

// writeImages writes one TFRecord file of Examples, "img" holding each
// encoded image and "label" its index.
func writeImages(t *testing.T, name string, imgs [][]byte) {
	t.Helper()
	var buf bytes.Buffer
	w := tfrecord.NewWriter(&buf, tfrecord.None)
	for i, img := range imgs {
		if err := w.Write(example.New().Bytes("img", img).Int64("label", int64(i)).Marshal()); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

var imageSpec = example.Spec{"img": example.FixedLen(tensor.String), "label": example.FixedLen(tensor.Int64)}

// DecodeImage against TensorFlow 2.21: tf.io.decode_image(channels) then
// tf.image.resize_with_crop_or_pad, on PNGs of sizes above, below and
// across the target's, gray, color and with alpha
// (testdata/tf_crop_images.json, written by tools/tfref/cropimages.py).
// Batches reused and kept decode the same.
func TestDecodeImageAgainstTensorFlow(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "tf_crop_images.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Cases []struct {
			PNG, Pixels             string
			Channels, Height, Width int
			Shape                   []int
		}
	}
	if err := json.Unmarshal(data, &ref); err != nil {
		t.Fatal(err)
	}
	// One file for each target: channels, height and width.
	type target struct{ c, h, w int }
	groups := map[target][]int{}
	for i, c := range ref.Cases {
		k := target{c.Channels, c.Height, c.Width}
		groups[k] = append(groups[k], i)
	}
	dir := t.TempDir()
	for k, idx := range groups {
		var imgs [][]byte
		for _, i := range idx {
			b, err := hex.DecodeString(ref.Cases[i].PNG)
			if err != nil {
				t.Fatal(err)
			}
			imgs = append(imgs, b)
		}
		name := filepath.Join(dir, fmt.Sprintf("c%d-%dx%d.tfrecord", k.c, k.h, k.w))
		writeImages(t, name, imgs)
		for _, opts := range [][]BatchOption{nil, {KeepBatches()}} {
			ds := Examples(name, imageSpec, DecodeImage("img", k.h, k.w, k.c), Readers(1))
			n := 0
			for b, err := range ds.Batches(t.Context(), 5, opts...) {
				if err != nil {
					t.Fatal(err)
				}
				px := b.Dense("img")
				if want := (tensor.Shape{b.Len(), k.h, k.w, k.c}); !slices.Equal(px.Shape(), want) || px.DType() != tensor.Uint8 {
					t.Fatalf("%v: pixels %v of %v, want %v uint8", k, px.Shape(), px.DType(), want)
				}
				row := k.h * k.w * k.c
				for j, label := range b.Int64("label") {
					c := ref.Cases[idx[label]]
					if got := hex.EncodeToString(px.Uint8s()[j*row : (j+1)*row]); got != c.Pixels {
						t.Fatalf("%v: image %d (%s): pixels differ from TensorFlow's", k, label, c.PNG[:16])
					}
					n++
				}
			}
			if n != len(idx) {
				t.Fatalf("%v: %d images, want %d", k, n, len(idx))
			}
		}
	}
}

// An image that does not decode fails its batch, naming the record's
// file, offset and key; DecodeImage's arguments are checked when the
// data set is made, and only Examples take it.
func TestDecodeImageErrors(t *testing.T) {
	dir := t.TempDir()
	var png bytes.Buffer
	png.Write(mustPNG(t))
	name := filepath.Join(dir, "bad.tfrecord")
	writeImages(t, name, [][]byte{png.Bytes(), []byte("not an image"), png.Bytes()})
	var got error
	for _, err := range Examples(name, imageSpec, DecodeImage("img", 2, 2, 3)).Batches(t.Context(), 3) {
		if err != nil {
			got = err
			break
		}
	}
	de, ok := errors.AsType[*dataerr.Error](got)
	if !ok || !errors.Is(got, decode.ErrImageFormat) || de.File != name || de.Offset <= 0 || de.Record != 1 ||
		de.Key != fmt.Sprintf("%s:%d", name, de.Offset) || !strings.Contains(got.Error(), `feature "img"`) {
		t.Fatalf("error %v (%+v), want an unknown image format in record 1 of %s", got, de, name)
	}

	for _, tc := range []struct {
		ds   *Dataset
		want string
	}{
		{Examples(name, imageSpec, DecodeImage("none", 2, 2, 3)), "no such feature"},
		{Examples(name, imageSpec, DecodeImage("label", 2, 2, 3)), "the feature is a FixedLen of int64, shape []; want a FixedLen bytes scalar"},
		{Examples(name, imageSpec, DecodeImage("img", 0, 2, 3)), "0 × 2 pixels"},
		{Examples(name, imageSpec, DecodeImage("img", 2, 2, 2)), "2 channels"},
		{Examples(name, imageSpec, DecodeImage("img", 1<<15, 1<<15, 3)), "at most 268435456 bytes an image"},
		// Sizes whose product overflows int64 (audit 82: refused only as a
		// panic at the first batch).
		{Examples(name, imageSpec, DecodeImage("img", 1<<31, 1<<31, 4)), "at most 268435456 bytes an image"},
		{Examples(name, imageSpec, DecodeImage("img", 1<<40, 1<<40, 3)), "at most 268435456 bytes an image"},
		{Examples(name, imageSpec, DecodeImage("img", 1<<62, 4, 1)), "at most 268435456 bytes an image"},
		{Examples(name, imageSpec, DecodeImage("img", 2, 2, 3), DecodeImage("img", 4, 4, 3)), "twice"},
		{Records(name, DecodeImage("img", 2, 2, 3)), "Examples' features"},
		{SequenceExamples(name, imageSpec, nil, DecodeImage("img", 2, 2, 3)), "Examples' only"},
	} {
		_, err := tc.ds.Iterator(t.Context(), 2)
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v, want ErrInvalid and %q", err, tc.want)
		}
	}
}

// mustPNG returns a 3 × 3 color PNG.
func mustPNG(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "tf_crop_images.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ref struct{ Cases []struct{ PNG string } }
	if err := json.Unmarshal(data, &ref); err != nil {
		t.Fatal(err)
	}
	b, err := hex.DecodeString(ref.Cases[0].PNG)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// DecodeImage's options reach the decoder: with decode.AccurateDCT a JPEG
// decodes as decode_jpeg(dct_method="INTEGER_ACCURATE"), which differs
// from the default's pixels at quality 100.
func TestDecodeImageOptions(t *testing.T) {
	jpg, err := os.ReadFile(filepath.Join("decode", "testdata", "jpeg", "pil_q100_444.jpg"))
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(t.TempDir(), "q100.tfrecord")
	writeImages(t, name, [][]byte{jpg})
	decoded := func(opts ...decode.ImageOption) []uint8 {
		t.Helper()
		for b, err := range Examples(name, imageSpec, DecodeImage("img", 48, 64, 3, opts...)).Batches(t.Context(), 1) {
			if err != nil {
				t.Fatal(err)
			}
			return b.Dense("img").Uint8s()
		}
		t.Fatal("no batch")
		return nil
	}
	want := func(opts ...decode.ImageOption) []uint8 {
		d, _ := decode.NewImage(3, opts...)
		px, err := d.Decode(jpg, "")
		if err != nil {
			t.Fatal(err)
		}
		return px.Uint8s()
	}
	fast, accurate := decoded(), decoded(decode.AccurateDCT())
	if !bytes.Equal(fast, want()) || !bytes.Equal(accurate, want(decode.AccurateDCT())) {
		t.Fatal("DecodeImage's pixels are not decode.Image's with the same options")
	}
	if bytes.Equal(fast, accurate) {
		t.Fatal("the same pixels with AccurateDCT as without")
	}
}

// An image of no pixels (a GIF whose first frame is 0 × 0, a JPEG whose
// SOF says 0 rows) is an error naming its record, as TensorFlow's
// decode_image fails on it ("failed to slurp gif file", "Invalid JPEG data
// or crop window"), not a batch row of zeros.
func TestDecodeImageEmptyIsAnError(t *testing.T) {
	var ref struct {
		Cases []struct{ Name, Data string }
	}
	b, err := os.ReadFile("decode/testdata/tf_decode_image_edge.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, c := range ref.Cases {
		files[c.Name], _ = base64.StdEncoding.DecodeString(c.Data)
	}
	for _, f := range []string{"frame_0x0.gif", "zero.gif", "jpeg_height0.jpg", "jpeg_width0.jpg"} {
		if len(files[f]) == 0 {
			t.Fatalf("%s: not in the reference file", f)
		}
		name := filepath.Join(t.TempDir(), "empty.tfrecord")
		writeImages(t, name, [][]byte{files[f]})
		for b, err := range Examples(name, imageSpec, DecodeImage("img", 2, 2, 3)).Batches(t.Context(), 1) {
			if err == nil {
				t.Errorf("%s: decoded with no error: %v", f, b.Dense("img").Uint8s())
			} else if !strings.Contains(err.Error(), "empty.tfrecord") {
				t.Errorf("%s: error %q does not name the record", f, err)
			}
			break
		}
	}
}
