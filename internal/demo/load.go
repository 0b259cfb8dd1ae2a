package demo

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sluiceml/sluice/datasets"
	"github.com/sluiceml/sluice/datasets/cifar10"
	"github.com/sluiceml/sluice/datasets/mnist"
	"github.com/sluiceml/sluice/decode"
	"github.com/sluiceml/sluice/example/pb"
	"github.com/sluiceml/sluice/tfrecord"
	"google.golang.org/protobuf/proto"
)

// The kinds of data Load recognises.
const (
	KindGenerated = "generated digits"
	KindMNIST     = "MNIST IDX"
	KindCIFAR10   = "CIFAR-10 binary"
	KindTFRecord  = "TFRecord Examples"
)

// Default feature names of TFRecord data.
const (
	DefaultImageFeature = "image"
	DefaultLabelFeature = "label"
)

// LoadOptions says how to read a data directory.
type LoadOptions struct {
	// ImageFeature and LabelFeature name the features of TFRecord
	// Examples. An empty ImageFeature is "image", or "image_raw" (as
	// TensorFlow's convert_to_records.py names it) when the Examples have
	// no "image"; an empty LabelFeature is "label".
	ImageFeature, LabelFeature string
}

// Load reads the image-classification data in dir, recognising its kind
// from the files' names:
//
//   - MNIST IDX: *-images-idx3-ubyte and the matching *-labels-idx1-ubyte,
//     plain or gzip (train-* is training data, t10k-* or *test* is test data);
//     of a file there both plain and gzipped, as `gunzip -k` leaves it, the
//     plain one is read; labels must be 0–9, or up to 61 in EMNIST's
//     emnist-* files;
//   - CIFAR-10 binary: data_batch_*.bin and test_batch.bin, in dir or in its
//     cifar-10-batches-bin folder, as the archive unpacks;
//   - TFRecord Examples: *.tfrecord, *.tfrecords, *.tfrec, compressed or not
//     (files whose names contain test, eval or valid are test data), with an
//     image feature and an int64 label feature (see loadTFRecord).
//
// A source without test data gives every sixth image to the test split.
// The first kind found, in this order, is used. Load stops soon after ctx
// is done, returning context.Cause(ctx).
func Load(ctx context.Context, dir string, o LoadOptions) (*Data, error) {
	d, err := load(ctx, dir, o)
	if ctx.Err() != nil {
		// The error of a read cut short says more about the cut than
		// about the data.
		return nil, context.Cause(ctx)
	}
	if err != nil {
		return nil, err
	}
	if err := d.check(); err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	return d, nil
}

func load(ctx context.Context, dir string, o LoadOptions) (*Data, error) {
	names, err := listFiles(dir)
	if err != nil {
		return nil, err
	}
	if d, err := loadMNIST(ctx, dir, names); d != nil || err != nil {
		return d, err
	}
	if d, err := loadCIFAR(ctx, dir, names); d != nil || err != nil {
		return d, err
	}
	if sub := filepath.Join(dir, "cifar-10-batches-bin"); slices.Contains(names, "cifar-10-batches-bin/") {
		subNames, err := listFiles(sub)
		if err != nil {
			return nil, err
		}
		if d, err := loadCIFAR(ctx, sub, subNames); d != nil || err != nil {
			return d, err
		}
	}
	if d, err := loadTFRecord(ctx, dir, names, o); d != nil || err != nil {
		return d, err
	}
	return nil, fmt.Errorf("%s: no MNIST IDX files (*-images-idx3-ubyte[.gz]), CIFAR-10 binaries (data_batch_*.bin, test_batch.bin) or TFRecord files (*.tfrecord[.gz]) found", dir)
}

// listFiles returns the sorted names in dir, folders with a trailing slash.
func listFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() {
			n += "/"
		}
		names = append(names, n)
	}
	return names, nil
}

// isTestName reports whether a file name marks test data.
func isTestName(name string) bool {
	n := strings.ToLower(name)
	return strings.HasPrefix(n, "t10k") || strings.Contains(n, "test") || strings.Contains(n, "eval") || strings.Contains(n, "valid")
}

// splits collects images into a training and a test split, then holds
// out test images if there were none.
type splits struct {
	train, test Split
}

func (s *splits) add(test bool, label byte, img []byte) {
	p := &s.train
	if test {
		p = &s.test
	}
	p.Images = append(p.Images, img...)
	p.Labels = append(p.Labels, label)
}

func (s *splits) data(kind, source string, l cifar10.Layout) *Data {
	d := &Data{Kind: kind, Source: source, Layout: l, Train: s.train, Test: s.test}
	if d.Test.Len() == 0 {
		d.Train, d.Test = holdOut(s.train, l.ImageBytes())
		d.HeldOut = true
	} else if d.Train.Len() == 0 {
		d.Train, d.Test = holdOut(s.test, l.ImageBytes())
		d.HeldOut = true
	}
	return d
}

// classes returns one more than the largest label, at least 2.
func (s *splits) classes() int {
	c := 2
	for _, l := range [][]byte{s.train.Labels, s.test.Labels} {
		for _, v := range l {
			c = max(c, int(v)+1)
		}
	}
	return c
}

// loadMNIST reads the IDX image files in names and their label files.
func loadMNIST(ctx context.Context, dir string, names []string) (*Data, error) {
	var s splits
	rows, cols := 0, 0
	var used []string
	for _, n := range names {
		if !strings.Contains(n, "idx3-ubyte") || strings.HasSuffix(n, "/") {
			continue
		}
		// `gunzip -k` leaves X beside X.gz: the same data, to be read once.
		if plain, ok := strings.CutSuffix(n, ".gz"); ok && slices.Contains(names, plain) {
			continue
		}
		labelName := strings.TrimSuffix(strings.Replace(strings.Replace(n, "idx3", "idx1", 1), "images", "labels", 1), ".gz")
		if !slices.Contains(names, labelName) {
			if !slices.Contains(names, labelName+".gz") {
				return nil, fmt.Errorf("%s: no label file %s[.gz] for it", filepath.Join(dir, n), filepath.Join(dir, labelName))
			}
			labelName += ".gz"
		}
		var images *mnist.Images
		err := readFile(ctx, filepath.Join(dir, n), func(r io.Reader) (err error) {
			images, err = mnist.ReadImages(r)
			return err
		})
		if err != nil {
			return nil, err
		}
		var labels []byte
		err = readFile(ctx, filepath.Join(dir, labelName), func(r io.Reader) (err error) {
			labels, err = mnist.ReadLabels(r)
			return err
		})
		if err != nil {
			return nil, err
		}
		if err := checkMNISTLabels(filepath.Join(dir, labelName), labels); err != nil {
			return nil, err
		}
		if images.Count != len(labels) {
			return nil, fmt.Errorf("%s has %d images but %s has %d labels", filepath.Join(dir, n), images.Count, filepath.Join(dir, labelName), len(labels))
		}
		if rows == 0 {
			rows, cols = images.Rows, images.Cols
		} else if images.Rows != rows || images.Cols != cols {
			return nil, fmt.Errorf("%s holds %d×%d images, but %s %d×%d", filepath.Join(dir, n), images.Rows, images.Cols, filepath.Join(dir, used[0]), rows, cols)
		}
		test := isTestName(n)
		for i := range images.Count {
			s.add(test, labels[i], images.At(i))
		}
		used = append(used, n, labelName)
	}
	if used == nil {
		return nil, nil
	}
	l := cifar10.Layout{LabelBytes: 1, Height: rows, Width: cols, Depth: 1}
	l.Classes = s.classes()
	return s.data(KindMNIST, describe(dir, used), l), nil
}

// The classes of the MNIST family: MNIST, Fashion-MNIST and KMNIST have
// ten; EMNIST, whose files are named emnist-*, has up to 62 (ByClass).
const (
	mnistClasses  = 10
	emnistClasses = 62
)

// checkMNISTLabels reports a label beyond its data set's classes. The
// classes are otherwise counted from the largest label, so one corrupt
// byte (255) would silently make a model of 256 classes.
func checkMNISTLabels(path string, labels []byte) error {
	classes := mnistClasses
	if strings.HasPrefix(strings.ToLower(filepath.Base(path)), "emnist-") {
		classes = emnistClasses
	}
	for i, l := range labels {
		if int(l) >= classes {
			const headerBytes = 8
			return datasets.Errorf(path, headerBytes+int64(i), int64(i), datasets.ErrLabel,
				"label %d, want 0 to %d (MNIST and Fashion-MNIST have %d classes; EMNIST, in emnist-* files, up to %d)",
				l, classes-1, mnistClasses, emnistClasses)
		}
	}
	return nil
}

// loadCIFAR reads CIFAR-10's data_batch_*.bin and test_batch.bin.
func loadCIFAR(ctx context.Context, dir string, names []string) (*Data, error) {
	var s splits
	var used []string
	l := cifar10.CIFAR10
	hwc := make([]byte, l.ImageBytes())
	for _, n := range names {
		test := n == "test_batch.bin"
		if !test && !(strings.HasPrefix(n, "data_batch_") && strings.HasSuffix(n, ".bin")) {
			continue
		}
		err := readFile(ctx, filepath.Join(dir, n), func(f io.Reader) error {
			r, err := cifar10.NewReader(f, l)
			if err != nil {
				return err
			}
			for _, rec := range r.All() {
				cifar10.ToHWC(hwc, rec.Image, l.Height, l.Width, l.Depth, 1)
				s.add(test, byte(rec.Label()), hwc)
			}
			return r.Err()
		})
		if err != nil {
			return nil, err
		}
		used = append(used, n)
	}
	if used == nil {
		return nil, nil
	}
	return s.data(KindCIFAR10, describe(dir, used), l), nil
}

// readFile calls read with the file at path, buffered, named (so that the
// datasets readers name it in their errors) and cut short with
// context.Cause(ctx) once ctx is done: a file of tens of megabytes takes
// long enough to read that an interrupted demo should not wait for it.
func readFile(ctx context.Context, path string, read func(io.Reader) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return read(ctxReader{ctx: ctx, r: bufio.NewReaderSize(f, 1<<16), name: path})
}

// ctxReader reads r until ctx is done.
type ctxReader struct {
	ctx  context.Context
	r    io.Reader
	name string
}

func (r ctxReader) Read(p []byte) (int, error) {
	if r.ctx.Err() != nil {
		return 0, context.Cause(r.ctx)
	}
	return r.r.Read(p)
}

func (r ctxReader) Name() string { return r.name }

// describe names the files a data set was read from.
func describe(dir string, used []string) string {
	if len(used) > 4 {
		return fmt.Sprintf("%s (%s, … %d files)", dir, strings.Join(used[:2], ", "), len(used))
	}
	return fmt.Sprintf("%s (%s)", dir, strings.Join(used, ", "))
}

// isTFRecordName reports whether a file name looks like TFRecord data.
func isTFRecordName(name string) bool {
	n := strings.ToLower(name)
	return !strings.HasSuffix(n, "/") && (strings.Contains(n, ".tfrecord") || strings.Contains(n, ".tfrec"))
}

// imageKind is how an Example holds its image.
type imageKind int

const (
	floatImage   imageKind = iota + 1 // float_list of pixel values
	int64Image                        // int64_list of pixel values
	encodedImage                      // bytes_list: one PNG, JPEG, GIF or BMP
	rawImage                          // bytes_list: height×width×depth uint8 pixels
)

func (k imageKind) String() string {
	return [...]string{"", "float list", "int64 list", "encoded image", "raw bytes"}[k]
}

// tfrecordLoader reads Examples into splits.
type tfrecordLoader struct {
	image, label string
	imageSet     bool // the image feature was named by the caller

	kind    imageKind
	layout  cifar10.Layout
	decoder *decode.Image
	s       splits
	values  [2][]float32 // float and int64 images before scaling, per split
	first   string       // the record that fixed kind and layout
}

// loadTFRecord reads every TFRecord file in names. The image feature may
// be a float list or an int64 list of pixel values, or a bytes list
// holding one encoded image (PNG, JPEG, GIF, BMP: decoded, and every image
// must have the first one's size) or the raw uint8 pixels. For lists and
// raw bytes the shape comes from int64 features height, width and depth
// when present (as convert_to_records.py writes them), otherwise from the
// length: a square, or a square of three channels, or one row. Float
// values, and int64 values outside 0–255, are scaled linearly from the data
// set's smallest and largest value to 0–255: the pipelines carry 8-bit
// pixels, as MNIST and CIFAR-10 do. The label must be one int64 from 0 to 255.
func loadTFRecord(ctx context.Context, dir string, names []string, o LoadOptions) (*Data, error) {
	ld := &tfrecordLoader{image: o.ImageFeature, label: o.LabelFeature, imageSet: o.ImageFeature != ""}
	if ld.image == "" {
		ld.image = DefaultImageFeature
	}
	if ld.label == "" {
		ld.label = DefaultLabelFeature
	}
	var used []string
	for _, n := range names {
		if !isTFRecordName(n) {
			continue
		}
		if err := ld.readFile(ctx, filepath.Join(dir, n), isTestName(n)); err != nil {
			return nil, err
		}
		used = append(used, n)
	}
	if used == nil {
		return nil, nil
	}
	if ld.kind == 0 {
		return nil, fmt.Errorf("%s: the TFRecord files hold no records", dir)
	}
	ld.scale()
	ld.layout.Classes = ld.s.classes()
	return ld.s.data(KindTFRecord, fmt.Sprintf("%s; image %q as %s", describe(dir, used), ld.image, ld.kind), ld.layout), nil
}

func (ld *tfrecordLoader) readFile(ctx context.Context, path string, test bool) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	br := bufio.NewReaderSize(ctxReader{ctx: ctx, r: f, name: path}, 1<<16)
	prefix, _ := br.Peek(16)
	r := tfrecord.NewReader(br, tfrecord.DetectCompression(prefix), tfrecord.Name(path))
	var ex pb.Example
	for i := 0; ; i++ {
		rec, err := r.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		key := fmt.Sprintf("%s: record %d", path, i)
		if err := proto.Unmarshal(rec, &ex); err != nil {
			return fmt.Errorf("%s: not a tf.train.Example: %v", key, err)
		}
		if err := ld.add(key, ex.GetFeatures().GetFeature(), test); err != nil {
			return err
		}
	}
}

// add appends one Example's image and label.
func (ld *tfrecordLoader) add(key string, fs map[string]*pb.Feature, test bool) error {
	if ld.kind == 0 {
		if err := ld.firstRecord(key, fs); err != nil {
			return err
		}
	}
	lf := fs[ld.label].GetInt64List().GetValue()
	if len(lf) != 1 || lf[0] < 0 || lf[0] > 255 {
		return fmt.Errorf("%s: label feature %q must hold one int64 from 0 to 255 (name another with --label-feature)", key, ld.label)
	}
	label := byte(lf[0])
	f := fs[ld.image]
	n := ld.layout.ImageBytes()
	switch ld.kind {
	case floatImage, int64Image:
		var vals []float32
		if ld.kind == floatImage {
			vals = f.GetFloatList().GetValue()
		} else {
			for _, v := range f.GetInt64List().GetValue() {
				vals = append(vals, float32(v))
			}
		}
		if len(vals) != n {
			return fmt.Errorf("%s: image feature %q has %d values, the first image %d (%s)", key, ld.image, len(vals), n, ld.first)
		}
		idx := 0
		if test {
			idx = 1
		}
		ld.values[idx] = append(ld.values[idx], vals...)
		// Pixels are filled in by scale once the range is known.
		ld.s.add(test, label, nil)
	case encodedImage, rawImage:
		b := f.GetBytesList().GetValue()
		if len(b) != 1 {
			return fmt.Errorf("%s: image feature %q holds %d byte strings, want 1", key, ld.image, len(b))
		}
		px := b[0]
		if ld.kind == encodedImage {
			t, err := ld.decoder.Decode(px, key)
			if err != nil {
				return err
			}
			px = t.Uint8s()
			if sh := t.Shape(); len(px) != n {
				return fmt.Errorf("%s: image is %v, the first image %d×%d×%d (%s)", key, sh, ld.layout.Height, ld.layout.Width, ld.layout.Depth, ld.first)
			}
		} else if len(px) != n {
			return fmt.Errorf("%s: image feature %q has %d bytes, the first image %d (%s)", key, ld.image, len(px), n, ld.first)
		}
		ld.s.add(test, label, px)
	}
	return nil
}

// firstRecord decides the image's feature name, kind and shape.
func (ld *tfrecordLoader) firstRecord(key string, fs map[string]*pb.Feature) error {
	f, ok := fs[ld.image]
	if !ok && !ld.imageSet {
		if g, ok2 := fs[mnist.FeatureImageRaw]; ok2 {
			ld.image, f, ok = mnist.FeatureImageRaw, g, true
		}
	}
	if !ok {
		return fmt.Errorf("%s: no image feature %q (features: %s); name it with --image-feature", key, ld.image, featureNames(fs))
	}
	if _, ok := fs[ld.label]; !ok {
		return fmt.Errorf("%s: no label feature %q (features: %s); name it with --label-feature", key, ld.label, featureNames(fs))
	}
	ld.first = key
	n := 0
	switch {
	case f.GetFloatList() != nil:
		ld.kind, n = floatImage, len(f.GetFloatList().GetValue())
	case f.GetInt64List() != nil:
		ld.kind, n = int64Image, len(f.GetInt64List().GetValue())
	case f.GetBytesList() != nil && len(f.GetBytesList().GetValue()) == 1:
		b := f.GetBytesList().GetValue()[0]
		if decode.ImageFormat(b) == "" {
			ld.kind, n = rawImage, len(b)
			break
		}
		ld.kind = encodedImage
		d, err := decode.NewImage(0)
		if err != nil {
			return err
		}
		t, err := d.Decode(b, key)
		if err != nil {
			return err
		}
		sh := t.Shape()
		// Two-channel (gray and alpha) and four-channel images are
		// decoded as gray and as RGB.
		ch := map[int]int{1: 1, 2: 1, 3: 3, 4: 3}[sh[2]]
		if ld.decoder, err = decode.NewImage(ch); err != nil {
			return err
		}
		ld.layout = cifar10.Layout{LabelBytes: 1, Height: sh[0], Width: sh[1], Depth: ch}
		return nil
	default:
		return fmt.Errorf("%s: image feature %q is empty", key, ld.image)
	}
	if n == 0 {
		return fmt.Errorf("%s: image feature %q is empty", key, ld.image)
	}
	ld.layout = shapeOf(n, fs)
	return nil
}

// shapeOf gives n pixel values a height, width and depth: from the
// Example's height, width and depth features when they multiply to n,
// else a square, a square of three channels, or one row.
func shapeOf(n int, fs map[string]*pb.Feature) cifar10.Layout {
	dim := func(name string, def int64) int64 {
		v := fs[name].GetInt64List().GetValue()
		if len(v) == 1 && v[0] > 0 && v[0] <= math.MaxInt32 {
			return v[0]
		}
		return def
	}
	h, w, d := dim(mnist.FeatureHeight, 0), dim(mnist.FeatureWidth, 0), dim(mnist.FeatureDepth, 1)
	if h > 0 && w > 0 && h*w*d == int64(n) {
		return cifar10.Layout{LabelBytes: 1, Height: int(h), Width: int(w), Depth: int(d)}
	}
	if s := isqrt(n); s*s == n {
		return cifar10.Layout{LabelBytes: 1, Height: s, Width: s, Depth: 1}
	}
	if s := isqrt(n / 3); n%3 == 0 && s*s == n/3 {
		return cifar10.Layout{LabelBytes: 1, Height: s, Width: s, Depth: 3}
	}
	return cifar10.Layout{LabelBytes: 1, Height: 1, Width: n, Depth: 1}
}

func isqrt(n int) int { return int(math.Sqrt(float64(n)) + 0.5) }

// featureNames lists an Example's feature names, sorted.
func featureNames(fs map[string]*pb.Feature) string {
	var names []string
	for k := range fs {
		names = append(names, k)
	}
	slices.Sort(names)
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// scale turns the collected float and int64 pixel values into bytes. Int64
// values that all lie in 0–255 are kept; anything else is mapped linearly
// from the smallest to the largest value.
func (ld *tfrecordLoader) scale() {
	if ld.kind != floatImage && ld.kind != int64Image {
		return
	}
	lo, hi := float32(math.Inf(1)), float32(math.Inf(-1))
	for _, vs := range ld.values {
		for _, v := range vs {
			if v == v { // not NaN
				lo, hi = min(lo, v), max(hi, v)
			}
		}
	}
	offset, factor := float32(0), float32(1)
	if ld.kind == floatImage || lo < 0 || hi > 255 {
		offset = lo
		if hi > lo {
			factor = 255 / (hi - lo)
		}
	}
	for i, sp := range []*Split{&ld.s.train, &ld.s.test} {
		sp.Images = make([]byte, len(ld.values[i]))
		for j, v := range ld.values[i] {
			if x := (v - offset) * factor; x > 0 { // NaN: 0
				sp.Images[j] = byte(min(x, 255) + 0.5)
			}
		}
		ld.values[i] = nil
	}
}
