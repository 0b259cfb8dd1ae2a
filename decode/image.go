package decode

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"strings"
	"sync"

	"github.com/sluiceml/sluice/dataerr"
	"github.com/sluiceml/sluice/tensor"
)

// ErrImageFormat reports bytes that are not an image of a known format.
// Its text is TensorFlow's, less the formats sluice does not decode (JPEG
// XL and WebP).
var ErrImageFormat = errors.New("Unknown image file format. One of JPEG, PNG, GIF, BMP required.")

// ErrImageTooLarge reports an image whose header claims more pixels than
// the decoder's limit; nothing is allocated for it.
var ErrImageTooLarge = errors.New("image too large")

// ErrTooManyScans reports a JPEG of more scans than the decoder's limit
// (MaxScans). A progressive JPEG's scans each pass over the whole image,
// so a small file of many scans, each a few bytes, takes minutes to
// decode: such a file is refused before any is decoded.
var ErrTooManyScans = errors.New("too many scans")

// An ImageError is what is wrong with an image that could not be decoded.
// Decode returns it as the Err of a [*dataerr.Error] with the record's
// Key.
type ImageError struct {
	Format string // "jpeg", "png", "gif", "bmp", or "" if unknown
	Err    error
}

func (e *ImageError) Error() string {
	msg := e.Err.Error()
	if e.Format != "" && !strings.HasPrefix(msg, e.Format+":") { // Go's decoders name their format
		msg = e.Format + ": " + msg
	}
	return msg
}

func (e *ImageError) Unwrap() error { return e.Err }

// Image decodes JPEG, PNG, GIF (its first frame) and BMP images into uint8
// tensors of shape [height, width, channels], as TensorFlow's decode_image
// does with expand_animations=False.
//
// Channels 0 keeps the image's own channel count: 1 for grayscale, 2 for
// a grayscale PNG with alpha, 3 for color, 4 with alpha (an RGBA PNG, a
// palette PNG with a tRNS chunk, 32-bit BMP); a GIF always has 3.
// Channels 1, 3 or 4 convert: gray is replicated into color, alpha is
// dropped or added as opaque, and color becomes gray with the Rec. 601
// weights as libpng computes them, through linear light when the PNG's
// sRGB or gAMA chunk gives it a gamma not near 1, as libpng's
// png_set_rgb_to_gray does (a color JPEG's gray is its luma plane, as
// libjpeg's). Which conversions a format allows is TensorFlow's rule: JPEG
// takes 0, 1 or 3, GIF 0 or 3, BMP 0, 3 or 4, PNG any.
//
// PNG, GIF and BMP decode as TensorFlow does, with the differences below,
// including its readings of 16-bit PNGs (the high byte of each sample) and
// of 8-bit BMPs (the palette indices, as gray), and what libpng and giflib
// accept that Go's decoders refuse: a PNG's ancillary chunk with a bad CRC
// and invalid tRNS chunks are skipped, a palette longer than the bit depth
// indexes is cut, zlib data after a PNG's last row is ignored, and a GIF's
// first frame may extend past its logical screen. So do JPEGs (baseline, extended and progressive, 8-bit, gray or
// YCbCr: what cameras, browsers, PIL and TensorFlow write), which sluice
// decodes itself with libjpeg's fast integer inverse DCT (the dct_method
// TensorFlow's decode_jpeg uses by default), chroma upsampling and color
// tables, faster than image/jpeg (baseline JPEGs two to three times).
// Rarer JPEGs (CMYK, and RGB ones: an Adobe segment's transform 0) are
// decoded by Go's image/jpeg and converted the same way, so only the
// inverse DCTs' rounding differs from TensorFlow's: a few levels. JPEGs
// image/jpeg does not decode either are errors where TensorFlow decodes
// them: arithmetic-coded ones, and CMYK ones with subsampled components
// (12-bit ones are errors in both). An image of no pixels is an error, as
// in TensorFlow.
//
// A PNG's wrong zlib checksum (Adler-32) is an error where libpng reads it
// with the last row's data, in the same IDAT chunk and the same 8 KiB read
// of it (zlib fails while filling the row), and is ignored where libpng
// reads it later, or after data past the last row (libpng warns). As in
// TensorFlow, a zlib stream that ends before the last row, or stops right
// after it without its end, is an error, and so is an IDAT chunk with a
// bad CRC.
//
// Deliberate differences, where TensorFlow's output is a bug: a 1-, 2- or
// 4-bit PNG decoded to 4 channels is opaque (TensorFlow sets its alpha to
// 1, 3 or 15), and a GIF whose first frame is offset on its canvas yields
// that frame's pixels (TensorFlow: the frame's size, the frame shifted
// right and down by its offset within it, zeros where it is not). And one
// where matching would cost unbounded work: a PNG whose zlib stream holds
// data after the last row and then does not end before the image data
// does decodes, as sluice inflates no more than the rows (TensorFlow fails:
// libpng inflates the whole stream, "Not enough image data").
//
// An Image holds no per-call state and may be used by many goroutines.
type Image struct {
	channels int
	maxBytes int64
	maxScans int
	accurate bool // JPEG's accurate inverse DCT
}

// An ImageOption configures an Image decoder.
type ImageOption func(*Image)

// MaxBytes caps the size of a decoded image as its header gives it,
// checked before any pixel is decoded (default 1<<28): width × height × 4
// bytes, or 8 for a 16-bit PNG with color or alpha (what Go's decoders
// hold), or 4 a sample of each component for a JPEG that image/jpeg
// decodes (CMYK or RGB: a progressive one's coefficients), must be at most
// n. It bounds, rather than counts, what a decode
// allocates: besides that image, the output tensor takes up to 4 bytes a
// pixel and an interlaced PNG's passes about one more image, so a decode
// takes up to about 3n (2.5n measured for an interlaced 16-bit RGBA PNG),
// plus a copy of the encoded bytes for a PNG or GIF whose chunks sluice
// mends, and up to about n more for a PNG whose zlib data runs past its
// last row (its rows, inflated again and stored for image/png).
func MaxBytes(n int64) ImageOption { return func(d *Image) { d.maxBytes = n } }

// MaxScans caps the scans of a JPEG (default 100): a file of more is
// ErrTooManyScans. A progressive JPEG sends its image in several scans,
// each over every block (ten for libjpeg's and TensorFlow's encoders,
// rarely more than a few dozen), so the time a file takes grows with its
// scans rather than its size: 1 000 scans of a few bytes each over a
// 4096 × 4096 image take this decoder about 20 seconds, and Go's
// image/jpeg longer. TensorFlow's libjpeg reads any number. n < 1 is the
// default.
func MaxScans(n int) ImageOption { return func(d *Image) { d.maxScans = n } }

// AccurateDCT decodes sequential JPEGs with libjpeg's accurate integer
// inverse DCT (JDCT_ISLOW), as TensorFlow's decode_jpeg does with
// dct_method="INTEGER_ACCURATE", rather than the fast one (JDCT_IFAST)
// that TensorFlow uses by default. Its pixels are closer to the encoded
// image's, by a level or two at high qualities; decoding takes a little
// longer.
func AccurateDCT() ImageOption { return func(d *Image) { d.accurate = true } }

// NewImage returns an image decoder producing the given channel count:
// 0 (as encoded), 1, 3 or 4.
func NewImage(channels int, opts ...ImageOption) (*Image, error) {
	switch channels {
	case 0, 1, 3, 4:
	default:
		return nil, fmt.Errorf("decode: channels must be 0, 1, 3 or 4, not %d", channels)
	}
	d := &Image{channels: channels, maxBytes: 1 << 28, maxScans: defaultMaxScans}
	for _, o := range opts {
		o(d)
	}
	return d, nil
}

// defaultMaxScans is MaxScans' default: ten times libjpeg's progressive
// script, and more than any encoder in common use writes.
const defaultMaxScans = 100

var sosMarker = []byte{0xff, jpegSOS}

// scanLimit is the most scans d decodes; the zero Image's is the default.
func (d *Image) scanLimit() int {
	if d.maxScans <= 0 {
		return defaultMaxScans
	}
	return d.maxScans
}

// ImageFormat names the format of an encoded image from its first bytes,
// as TensorFlow's decode_image sniffs it: "jpeg", "png", "gif", "bmp", or
// "" for anything else.
func ImageFormat(b []byte) string {
	switch {
	case bytes.HasPrefix(b, []byte{0xff, 0xd8, 0xff}):
		return "jpeg"
	case bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")):
		return "png"
	case bytes.HasPrefix(b, []byte("GIF8")):
		return "gif"
	case bytes.HasPrefix(b, []byte("BM")):
		return "bmp"
	}
	return ""
}

// Decode decodes one image. key names the record in errors, such as
// "images.tfrecord:1234"; it may be empty.
func (d *Image) Decode(b []byte, key string) (tensor.Tensor, error) {
	return d.decode(b, key, nil)
}

// DecodeFit decodes one image as Decode does into dst, height × width ×
// the decoder's channels (1, 3 or 4; not 0), fitted as
// tf.image.resize_with_crop_or_pad fits it: along each axis the image is
// cropped by half the excess (rounded down) before it, or placed after
// half the shortfall (rounded down) of zeros. A color JPEG that sluice
// decodes itself converts only the pixels it keeps, straight into dst.
func (d *Image) DecodeFit(dst []uint8, b []byte, key string, height, width int) error {
	if d.channels == 0 {
		return errors.New("decode: DecodeFit needs a channel count, not 0")
	}
	// height × width × channels, compared without overflowing: dst's
	// length bounds height × width first.
	if height < 1 || width < 1 || height > len(dst) || width > len(dst)/height || len(dst) != height*width*d.channels {
		return fmt.Errorf("decode: DecodeFit into %d bytes, not %d × %d × %d", len(dst), height, width, d.channels)
	}
	t, err := d.decode(b, key, &fitting{dst, height, width})
	if err == nil && t.IsValid() {
		fit(dst, t, height, width)
	}
	return err
}

// fitting is where DecodeFit puts an image.
type fitting struct {
	dst           []uint8
	height, width int
}

// decode is Decode, but for a sequential JPEG and to not nil, which it
// fits into to and returns the zero Tensor for.
func (d *Image) decode(b []byte, key string, to *fitting) (tensor.Tensor, error) {
	f := ImageFormat(b)
	fail := func(err error) (tensor.Tensor, error) {
		return tensor.Tensor{}, &dataerr.Error{Offset: -1, Record: -1, Key: key, Err: &ImageError{Format: f, Err: err}}
	}
	if len(b) == 0 {
		return fail(errors.New("Input is empty."))
	}
	switch f {
	case "":
		return fail(ErrImageFormat)
	case "jpeg":
		if d.channels == 4 {
			return fail(errors.New("JPEG does not support 4 channels"))
		}
		// Counted over the file's bytes: entropy-coded data stuffs every
		// 0xff, so each SOS marker is a scan (or one of an embedded
		// thumbnail's, in an APP segment), whichever decoder takes it.
		if n := bytes.Count(b, sosMarker); n > d.scanLimit() {
			return fail(fmt.Errorf("%w: %d, over the limit of %d", ErrTooManyScans, n, d.scanLimit()))
		}
	case "gif":
		if d.channels != 0 && d.channels != 3 {
			return fail(fmt.Errorf("channels must be 0 or 3 for GIF, got %d", d.channels))
		}
	case "bmp":
		t, err := decodeBMP(b, d.channels, d.maxBytes)
		if err != nil {
			return fail(err)
		}
		return t, nil
	}

	if f == "jpeg" {
		t, err := d.decodeJPEG(b, to)
		if !errors.Is(err, errJPEGUnsupported) {
			if err != nil {
				return fail(err)
			}
			return t, nil
		}
		// Arithmetic-coded, 12-bit, CMYK and other JPEGs sluice does not
		// decode itself are image/jpeg's. A JPEG sluice's decoder finds
		// bad is not: image/jpeg accepts some that libjpeg refuses, such
		// as an image 0 pixels high (whose height a DNL marker was to
		// give).
	}

	var info pngInfo
	switch f {
	case "png":
		if b, info = scanPNG(b); info.err != nil {
			return fail(info.err)
		}
	case "gif":
		b = gifFirstFrame(b)
	}
	var cfg image.Config
	var err error
	r := bytes.NewReader(b)
	switch f {
	case "jpeg":
		cfg, err = jpeg.DecodeConfig(r)
	case "png":
		cfg, err = png.DecodeConfig(r)
	case "gif":
		cfg, err = gif.DecodeConfig(r)
	}
	if err != nil {
		return fail(err)
	}
	// Go's decoders hold up to 8 bytes a pixel (16-bit RGBA) before the
	// conversion; the output holds up to 4.
	perPixel := int64(4)
	switch cfg.ColorModel {
	case color.RGBA64Model, color.NRGBA64Model:
		perPixel = 8
	}
	if f == "jpeg" {
		// image/jpeg holds a progressive JPEG's coefficients, 4 bytes a
		// sample of each component, beside its image: 16 bytes a pixel
		// for CMYK (audit 87: 2.1 GB for an 8192×8192 file under the
		// default limit). Any JPEG it decodes is counted so: telling a
		// progressive one by its markers missed one with a stray byte
		// before them, which image/jpeg skips (audit 91); and a
		// sequential one takes as much (its image, the planes it is
		// converted from and the output).
		comps := int64(3)
		switch cfg.ColorModel {
		case color.GrayModel:
			comps = 1
		case color.CMYKModel:
			comps = 4
		}
		perPixel = max(perPixel, 4*comps)
	}
	if size := int64(cfg.Width) * int64(cfg.Height) * perPixel; size > d.maxBytes {
		return fail(fmt.Errorf("%w: %d×%d pixels take %d bytes, over the limit of %d", ErrImageTooLarge, cfg.Width, cfg.Height, size, d.maxBytes))
	}

	r.Reset(b)
	var img image.Image
	switch f {
	case "jpeg":
		img, err = jpeg.Decode(r)
	case "png":
		img, err = png.Decode(r)
		if err != nil {
			// Image data libpng reads, Go's decoder not as it is.
			var rows []byte
			if rows, err = pngRows(b, err); rows != nil {
				img, err = png.Decode(bytes.NewReader(rows))
			}
		}
	case "gif":
		img, err = gif.Decode(r)
	}
	if err != nil {
		return fail(err)
	}
	if r := img.Bounds(); r.Empty() {
		// Go's decoders return an image of no pixels for a JPEG or GIF
		// frame 0 pixels wide or high, where libjpeg and giflib fail
		// (TensorFlow: "Invalid JPEG data or crop window", "failed to
		// slurp gif file").
		return fail(fmt.Errorf("empty image, %d×%d", r.Dx(), r.Dy()))
	}
	channels := d.channels
	if channels == 0 {
		channels = nativeChannels(f, info, img)
	}
	var gg *grayGamma
	if f == "png" && channels == 1 && info.colorType&2 != 0 {
		gg = newGrayGamma(info.gamma, info.depth, info.sigBits)
	}
	return toHWC(img, channels, gg), nil
}

// jpegMaxDimension is libjpeg's JPEG_MAX_DIMENSION: it refuses an image
// wider or higher (TensorFlow: "Invalid JPEG data or crop window"), which
// the format itself, with 16-bit sizes, does not.
const jpegMaxDimension = 65500

// checkJPEGDimensions refuses a JPEG that libjpeg refuses for its size.
// sluice's decoder reads every frame header image/jpeg can decode
// (SOF0-2), also of the JPEGs it then hands on, so one check serves both.
func checkJPEGDimensions(width, height int) error {
	if width > jpegMaxDimension || height > jpegMaxDimension {
		return fmt.Errorf("jpeg: %d×%d pixels: wider or higher than libjpeg's largest, %d", width, height, jpegMaxDimension)
	}
	return nil
}

// jpegDecoders are the decoders of sequential JPEGs, whose memory each
// reuses from one image to the next, up to maxPooledPlanes bytes of
// planes (a 12-megapixel photograph's, 4:2:0).
var jpegDecoders = sync.Pool{New: func() any { return new(jpegDecoder) }}

const maxPooledPlanes = 24 << 20

// decodeJPEG decodes a JPEG as TensorFlow does, with sluice's own decoder
// and libjpeg's inverse DCT; errJPEGUnsupported reports a JPEG it does not
// decode, for image/jpeg. With to, it writes a color image's pixels there
// and returns the zero Tensor.
func (d *Image) decodeJPEG(b []byte, to *fitting) (tensor.Tensor, error) {
	jd := jpegDecoders.Get().(*jpegDecoder)
	defer func() {
		if cap(jd.buf) > maxPooledPlanes {
			jd.buf = nil // one large image should not pin its memory in the pool
		}
		jpegDecoders.Put(jd)
	}()
	jd.accurate = d.accurate
	img, err := jd.decode(b, d.maxBytes)
	if err != nil {
		return tensor.Tensor{}, err
	}
	if r := img.Bounds(); int64(r.Dx())*int64(r.Dy())*4 > d.maxBytes {
		// Over the limit as Decode counts it.
		return tensor.Tensor{}, fmt.Errorf("%w: %d×%d pixels take %d bytes, over the limit of %d", ErrImageTooLarge, r.Dx(), r.Dy(), int64(r.Dx())*int64(r.Dy())*4, d.maxBytes)
	}
	channels := d.channels
	if channels == 0 {
		channels = nativeChannels("jpeg", pngInfo{}, img)
	}
	if _, gray := img.(*image.Gray); !gray && to != nil {
		w, h := img.Bounds().Dx(), img.Bounds().Dy()
		if h < to.height || w < to.width {
			clear(to.dst) // padding
		}
		win := window{
			x0: max(w-to.width, 0) / 2, y0: max(h-to.height, 0) / 2,
			cols: min(w, to.width), rows: min(h, to.height),
			dx: max(to.width-w, 0) / 2, dy: max(to.height-h, 0) / 2, stride: to.width,
		}
		px := &pixelWriter{out: to.dst, channels: channels}
		if m, ok := img.(*image.YCbCr); ok {
			writeYCbCr(m, px, win)
		} else {
			writeYCC(img.(*jpegYCbCr), px, win)
		}
		return tensor.Tensor{}, nil
	}
	return toHWC(img, channels, nil), nil
}

// fit writes img, [h, w, c] uint8 pixels, into dst, height × width × c,
// as DecodeFit says.
func fit(dst []uint8, img tensor.Tensor, height, width int) {
	shape := img.Shape()
	h, w, c := shape[0], shape[1], shape[2]
	src := img.Uint8s()
	if h == height && w == width {
		copy(dst, src)
		return
	}
	clear(dst)
	// Offsets into the source (crop) and the destination (pad).
	sy, dy := max(h-height, 0)/2, max(height-h, 0)/2
	sx, dx := max(w-width, 0)/2, max(width-w, 0)/2
	rows, cols := min(h, height), min(w, width)
	for y := range rows {
		s := src[((sy+y)*w+sx)*c:]
		copy(dst[((dy+y)*width+dx)*c:][:cols*c], s[:cols*c])
	}
}

// nativeChannels is the channel count TensorFlow gives an image decoded
// with channels 0; info is a PNG's.
func nativeChannels(format string, info pngInfo, img image.Image) int {
	switch format {
	case "gif":
		return 3
	case "jpeg":
		if _, ok := img.(*image.Gray); ok {
			return 1
		}
		return 3
	}
	// PNG: the IHDR colour type says what was encoded (Go's decoder widens
	// RGB to RGBA and gray with alpha to NRGBA). A palette with a tRNS
	// chunk has 4, whatever its alphas, as TensorFlow asks libpng whether
	// there is one (png_get_valid); gray and RGB do not count theirs.
	switch info.colorType {
	case 0:
		return 1
	case 4:
		return 2
	case 6:
		return 4
	case 3:
		if info.trns {
			return 4
		}
	}
	return 3
}
