package sluice

import (
	"errors"
	"fmt"
	"slices"

	"github.com/sluiceml/sluice/dataerr"
	"github.com/sluiceml/sluice/decode"
	"github.com/sluiceml/sluice/example"
	"github.com/sluiceml/sluice/tensor"
)

// DecodeImage makes Examples decode the feature name, a FixedLen bytes
// feature of one encoded image (JPEG, PNG, GIF or BMP) per record, into
// uint8 pixels of shape [height, width, channels] (channels 1, 3 or 4),
// so that the batch holds [batch size, height, width, channels]. Each
// image is decoded as tf.io.decode_image(channels=channels) decodes it
// (see decode.Image) and fitted to height × width as
// tf.image.resize_with_crop_or_pad fits it: an image of another size is
// cropped around its center, or padded with zeros, or both, and one of
// the same size is left as it is. An image that cannot be decoded fails
// its batch with an error naming its record.
//
// The images are decoded where the records are parsed: with Shuffle,
// Deterministic or GlobalShuffle, by Readers goroutines whatever the
// files; otherwise by the reader of each file, so that a few files keep
// as few cores busy (BenchmarkDecodeImage, 160 × 128 JPEGs, one file on
// two cores: 3 300-3 800 images a second in file order, 5 300-7 400
// shuffled, 6 000-7 300 deterministic). A trainer gets pixels without
// decoding them itself, TensorFlow's own for PNG, GIF, BMP and JPEG (but
// for decode.Image's two deliberate differences, and within a few levels
// for the rare JPEGs image/jpeg decodes), but not faster than TensorFlow decodes
// them: sluice's JPEG decoder takes two to three times the CPU of
// TensorFlow's libjpeg-turbo, whose inverse DCT and color conversion are
// SIMD, and PNG nearly twice.
//
// Options configure the decoder: [decode.AccurateDCT] decodes JPEGs as
// decode_jpeg(dct_method="INTEGER_ACCURATE") does.
func DecodeImage(name string, height, width, channels int, opts ...decode.ImageOption) ExampleOption {
	return exampleOption(func(s *exampleSettings) {
		s.images = append(s.images, imageFeature{name: name, height: height, width: width, channels: channels, opts: opts})
	})
}

// maxImageBytes bounds an image's pixels, decoded or fitted: decode.Image's
// default limit.
const maxImageBytes = 1 << 28

// An imageFeature is a feature DecodeImage decodes, and the pixels' shape.
type imageFeature struct {
	name                    string
	height, width, channels int
	opts                    []decode.ImageOption
}

// checkImages checks DecodeImage's features against spec.
func checkImages(images []imageFeature, spec example.Spec) error {
	seen := map[string]bool{}
	for _, im := range images {
		f, ok := spec[im.name]
		switch {
		case !ok:
			return fmt.Errorf("DecodeImage(%q): the spec has no such feature: %w", im.name, ErrInvalid)
		case f.Kind() != example.KindFixedLen || f.DType() != tensor.String || len(f.Shape()) != 0:
			return fmt.Errorf("DecodeImage(%q): the feature is a %v of %v, shape %v; want a FixedLen bytes scalar: %w",
				im.name, f.Kind(), f.DType(), f.Shape(), ErrInvalid)
		case seen[im.name]:
			return fmt.Errorf("DecodeImage(%q) twice: %w", im.name, ErrInvalid)
		case im.height < 1 || im.width < 1:
			return fmt.Errorf("DecodeImage(%q): %d × %d pixels: %w (want at least 1 × 1)", im.name, im.height, im.width, ErrInvalid)
		case im.channels != 1 && im.channels != 3 && im.channels != 4:
			return fmt.Errorf("DecodeImage(%q): %d channels: %w (want 1, 3 or 4)", im.name, im.channels, ErrInvalid)
		case im.height > maxImageBytes/im.width/im.channels: // h×w×c > the limit, not overflowing
			return fmt.Errorf("DecodeImage(%q): %d × %d × %d pixels: %w (at most %d bytes an image)", im.name, im.height, im.width, im.channels, ErrInvalid, maxImageBytes)
		}
		seen[im.name] = true
	}
	return nil
}

// imageDecoder decodes a batch's images of one feature into its pixels.
// It keeps the last batch's tensor for the next, with reuse.
type imageDecoder struct {
	imageFeature
	dec   *decode.Image
	reuse bool
	last  tensor.Tensor
}

func newImageDecoder(f imageFeature, reuse bool) (*imageDecoder, error) {
	dec, err := decode.NewImage(f.channels, f.opts...)
	if err != nil {
		return nil, err
	}
	return &imageDecoder{imageFeature: f, dec: dec, reuse: reuse}, nil
}

// decode decodes the images of enc, a String vector, one a record; keys,
// if not nil, name the records in errors.
func (d *imageDecoder) decode(enc tensor.Tensor, keys []string) (tensor.Tensor, error) {
	imgs := enc.Strings()
	n := len(imgs)
	out := d.last
	if !d.reuse || !out.IsValid() || out.Len() != n {
		// The batch is its images' size whatever the data's, each image
		// cropped or padded to it: one the machine cannot hold is an
		// error, not the end of the process (512 images of 16384² asked
		// for 128 GiB, audit 114).
		shape := tensor.Shape{n, d.height, d.width, d.channels}
		if err := tensor.CheckMemory(tensor.Uint8, shape); err != nil {
			return tensor.Tensor{}, fmt.Errorf("feature %q: a batch of %d images of %d × %d × %d: %w", d.name, n, d.height, d.width, d.channels, err)
		}
		out = tensor.New(make([]uint8, n*d.height*d.width*d.channels), shape...)
	}
	pixels := out.Uint8s()
	row := d.height * d.width * d.channels
	for i, b := range imgs {
		key := ""
		if keys != nil {
			key = keys[i]
		}
		if err := d.dec.DecodeFit(pixels[i*row:(i+1)*row], b, key, d.height, d.width); err != nil {
			if de, ok := errors.AsType[*dataerr.Error](err); ok {
				de.Record = int64(i)
			}
			return tensor.Tensor{}, fmt.Errorf("feature %q: %w", d.name, err)
		}
	}
	if d.reuse {
		d.last = out
	}
	return out, nil
}

// imageDecoders returns a decoder for each image feature, by the feature's
// index among the layout's.
func imageDecoders(images []imageFeature, l *layout, reuse bool) (map[int]*imageDecoder, error) {
	if len(images) == 0 {
		return nil, nil
	}
	out := make(map[int]*imageDecoder, len(images))
	for _, im := range images {
		i := slices.IndexFunc(l.features, func(f feature) bool { return f.name == im.name })
		d, err := newImageDecoder(im, reuse)
		if err != nil {
			return nil, err
		}
		out[i] = d
	}
	return out, nil
}
