package cifar10

import (
	"fmt"

	"github.com/sluiceml/sluice/datasets"
	"github.com/sluiceml/sluice/tensor"
)

// The dimensions of CIFAR-10's records. RecordBytes is what TensorFlow's
// tutorial passes to FixedLengthRecordReader as record_bytes.
const (
	Height      = 32
	Width       = 32
	Depth       = 3
	LabelBytes  = 1
	ImageBytes  = Height * Width * Depth  // 3072
	RecordBytes = LabelBytes + ImageBytes // 3073
	Classes     = 10
	// CIFAR-100 records carry a coarse and a fine label.
	CIFAR100LabelBytes  = 2
	CIFAR100RecordBytes = CIFAR100LabelBytes + ImageBytes // 3074
)

// ClassNames are CIFAR-10's classes in label order, as in batches.meta.txt.
var ClassNames = [Classes]string{
	"airplane", "automobile", "bird", "cat", "deer",
	"dog", "frog", "horse", "ship", "truck",
}

// A Layout describes a fixed-length record of LabelBytes label bytes
// followed by a Height×Width×Depth uint8 image in channel-major order.
// The last label byte is the class; when Classes is positive, a class
// outside [0, Classes) is an error rather than a silently wrong label.
// CoarseClasses checks the first of several label bytes the same way, as
// CIFAR-100's coarse label (its superclass).
type Layout struct {
	LabelBytes           int
	Height, Width, Depth int
	Classes              int // 0: not checked
	CoarseClasses        int // 0: not checked
}

// The layouts of the two CIFAR data sets. CIFAR100's class is the fine
// label, of 100; its coarse label is one of 20 superclasses.
var (
	CIFAR10  = Layout{LabelBytes: LabelBytes, Height: Height, Width: Width, Depth: Depth, Classes: Classes}
	CIFAR100 = Layout{LabelBytes: CIFAR100LabelBytes, Height: Height, Width: Width, Depth: Depth, Classes: 100, CoarseClasses: 20}
)

// ImageBytes returns the size of the image part of a record.
func (l Layout) ImageBytes() int { return l.Height * l.Width * l.Depth }

// RecordBytes returns the size of a whole record: a fixed-length record
// reader's record_bytes.
func (l Layout) RecordBytes() int { return l.LabelBytes + l.ImageBytes() }

// Shape returns the shape of a decoded image: [Height, Width, Depth].
func (l Layout) Shape() tensor.Shape { return tensor.Shape{l.Height, l.Width, l.Depth} }

// Validate reports whether l describes a usable record.
func (l Layout) Validate() error {
	const limit = 1 << 28 // bytes per record; keeps every product in range
	if l.LabelBytes < 0 || l.Height <= 0 || l.Width <= 0 || l.Depth <= 0 || l.Classes < 0 || l.Classes > 256 ||
		l.LabelBytes > limit || l.Height > limit || l.Width > limit || l.Depth > limit ||
		int64(l.Height)*int64(l.Width) > limit || int64(l.Height)*int64(l.Width)*int64(l.Depth)+int64(l.LabelBytes) > limit {
		return fmt.Errorf("cifar10: invalid layout %+v", l)
	}
	if l.Classes > 0 && l.LabelBytes == 0 {
		return fmt.Errorf("cifar10: layout %+v checks classes but has no label bytes", l)
	}
	if l.CoarseClasses < 0 || l.CoarseClasses > 256 || l.CoarseClasses > 0 && l.LabelBytes < 2 {
		return fmt.Errorf("cifar10: layout %+v checks coarse classes but has fewer than two label bytes", l)
	}
	return nil
}

// checkLabels reports a label byte outside its classes.
func (l Layout) checkLabels(labels []byte) error {
	if len(labels) == 0 {
		return nil
	}
	if l.Classes > 0 && int(labels[len(labels)-1]) >= l.Classes {
		return fmt.Errorf("cifar10: %w: label %d, want 0 to %d", datasets.ErrLabel, labels[len(labels)-1], l.Classes-1)
	}
	if l.CoarseClasses > 0 && len(labels) >= 2 && int(labels[0]) >= l.CoarseClasses {
		return fmt.Errorf("cifar10: %w: coarse label %d, want 0 to %d", datasets.ErrLabel, labels[0], l.CoarseClasses-1)
	}
	return nil
}

// A Record is one record split into its parts, sharing the record's bytes.
type Record struct {
	Labels []byte // LabelBytes bytes: CIFAR-10's label; CIFAR-100's coarse, fine
	Image  []byte // the image as stored: Depth planes of Height×Width bytes
}

// Label returns the record's class: its last label byte (CIFAR-10's label,
// CIFAR-100's fine label), or -1 if the layout has no label bytes.
func (r Record) Label() int {
	if len(r.Labels) == 0 {
		return -1
	}
	return int(r.Labels[len(r.Labels)-1])
}

// Parse splits rec into its label bytes and image without copying. rec must
// be exactly RecordBytes long and carry a class in range.
func (l Layout) Parse(rec []byte) (Record, error) {
	if len(rec) != l.RecordBytes() {
		return Record{}, fmt.Errorf("cifar10: %w: a record of %d bytes, want %d", datasets.ErrSize, len(rec), l.RecordBytes())
	}
	r := Record{Labels: rec[:l.LabelBytes:l.LabelBytes], Image: rec[l.LabelBytes:]}
	if err := l.checkLabels(r.Labels); err != nil {
		return Record{}, err
	}
	return r, nil
}

// Decode parses rec and returns its class and its image as a uint8 tensor
// of shape [Height, Width, Depth], transposed from the stored channel-major
// order as TensorFlow's CIFAR-10 tutorial does.
func (l Layout) Decode(rec []byte) (label int, image tensor.Tensor, err error) {
	r, err := l.Parse(rec)
	if err != nil {
		return 0, tensor.Tensor{}, err
	}
	px := make([]uint8, l.ImageBytes())
	ToHWC(px, r.Image, l.Height, l.Width, l.Depth, 1)
	return r.Label(), tensor.New(px, l.Height, l.Width, l.Depth), nil
}

// DecodeFloat32 is Decode with float32 pixels multiplied by scale: 1 gives
// the tutorial's tf.cast(image, tf.float32) (values 0–255), 1.0/255 gives
// values in [0, 1].
func (l Layout) DecodeFloat32(rec []byte, scale float32) (label int, image tensor.Tensor, err error) {
	r, err := l.Parse(rec)
	if err != nil {
		return 0, tensor.Tensor{}, err
	}
	px := make([]float32, l.ImageBytes())
	ToHWC(px, r.Image, l.Height, l.Width, l.Depth, scale)
	return r.Label(), tensor.New(px, l.Height, l.Width, l.Depth), nil
}

// Decode is CIFAR10.Decode: a 3073-byte record to its label and a
// [32, 32, 3] uint8 image.
func Decode(rec []byte) (label int, image tensor.Tensor, err error) { return CIFAR10.Decode(rec) }

// A Pixel is an element type an image can be converted to.
type Pixel interface{ ~uint8 | ~float32 }

// ToHWC writes the channel-major image chw (depth planes of h×w bytes) into
// dst in height, width, channel order, each value multiplied by scale (which
// must be 1 for uint8). dst and chw must hold h×w×depth elements. It
// allocates nothing, so a decoder can fill a batch in place.
func ToHWC[T Pixel](dst []T, chw []byte, h, w, depth int, scale float32) {
	plane := h * w
	dst = dst[:plane*depth]
	chw = chw[:plane*depth]
	var zero T
	_, isByte := any(zero).(uint8)
	for c := range depth {
		src := chw[c*plane : (c+1)*plane]
		if isByte {
			for i, v := range src {
				dst[i*depth+c] = T(v)
			}
			continue
		}
		for i, v := range src {
			dst[i*depth+c] = T(float32(v) * scale)
		}
	}
}

// ToCHW is the inverse of ToHWC for bytes: it writes the HWC image hwc into
// dst in channel-major order, the order records store.
func ToCHW(dst, hwc []byte, h, w, depth int) {
	plane := h * w
	dst = dst[:plane*depth]
	hwc = hwc[:plane*depth]
	for c := range depth {
		out := dst[c*plane : (c+1)*plane]
		for i := range out {
			out[i] = hwc[i*depth+c]
		}
	}
}

// AppendRecord appends one record to dst: the label bytes, then the HWC
// image hwc transposed to channel-major order.
func (l Layout) AppendRecord(dst, labels, hwc []byte) ([]byte, error) {
	if len(labels) != l.LabelBytes || len(hwc) != l.ImageBytes() {
		return dst, fmt.Errorf("cifar10: %w: %d label bytes and %d image bytes, want %d and %d",
			datasets.ErrSize, len(labels), len(hwc), l.LabelBytes, l.ImageBytes())
	}
	if err := l.checkLabels(labels); err != nil {
		return dst, err
	}
	dst = append(dst, labels...)
	n := len(dst)
	dst = append(dst, hwc...) // grows dst; the bytes are overwritten below
	ToCHW(dst[n:], hwc, l.Height, l.Width, l.Depth)
	return dst, nil
}
