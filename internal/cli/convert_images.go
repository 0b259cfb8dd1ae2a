package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/sluiceml/sluice/datasets"
	"github.com/sluiceml/sluice/datasets/cifar10"
	"github.com/sluiceml/sluice/datasets/mnist"
	"github.com/sluiceml/sluice/example"
	"github.com/sluiceml/sluice/storage"
	"github.com/sluiceml/sluice/tfrecord"
)

// imageExample appends one image as TensorFlow's convert_to_records.py
// writes it: height, width, depth, label and the raw pixels (height ×
// width × depth bytes, row-major, channels last).
func imageExample(b *example.Builder, dst []byte, h, w, d int, label int64, pixels []byte) []byte {
	return b.Reset().
		Int64(mnist.FeatureHeight, int64(h)).
		Int64(mnist.FeatureWidth, int64(w)).
		Int64(mnist.FeatureDepth, int64(d)).
		Int64(mnist.FeatureLabel, label).
		Bytes(mnist.FeatureImageRaw, pixels).
		AppendMarshal(dst)
}

// namedReader lets the datasets readers name the file in their errors
// when the file is read through a progress tee.
type namedReader struct {
	io.Reader
	name string
}

func (r namedReader) Name() string { return r.name }

// openTee opens name for streaming, counting its bytes in prog.
func openTee(ctx context.Context, name string, prog *progress) (namedReader, io.Closer, error) {
	if name == "-" {
		// Said as the other converters that cannot say it, rather than
		// "open -: no such file" (audit 110).
		return namedReader{}, nil, fmt.Errorf("--from mnist and --from cifar10 read files, not standard input: name the file (a pipe too, as <(zcat ...))")
	}
	f, err := storage.Open(ctx, name)
	if err != nil {
		return namedReader{}, nil, err
	}
	return namedReader{io.TeeReader(f, prog), name}, f, nil
}

func convertMNIST(ctx context.Context, names []string, o convertOptions, prog *progress, t *tally, write func([]byte) error) error {
	if len(names) != 1 || o.labels == "" {
		return fmt.Errorf("--from mnist takes one IDX image file and --labels FILE")
	}
	ir, ic, err := openTee(ctx, names[0], prog)
	if err != nil {
		return err
	}
	defer ic.Close()
	images, err := mnist.NewImageReader(ir)
	if err != nil {
		return err
	}
	// A header of a few bytes can declare an image of any size, which a
	// compressed file can hold in little space: it is refused as any
	// record over the limit is, before a byte of it is read.
	if limit := settingsFrom(ctx).maxRecord; int64(images.Rows())*int64(images.Cols()) > limit {
		return datasets.Errorf(names[0], 8, -1, tfrecord.ErrTooLarge,
			"images of %d×%d pixels are over the %d-byte limit (--max-record-size raises it)", images.Rows(), images.Cols(), limit)
	}
	lr, lc, err := openTee(ctx, o.labels, prog)
	if err != nil {
		return err
	}
	defer lc.Close()
	// Read a label an image, after the counts are compared: a header can
	// declare billions of labels too.
	labels, err := mnist.NewLabelReader(lr)
	if err != nil {
		return err
	}
	if images.Count() != labels.Count() {
		return fmt.Errorf("%s has %d images but %s has %d labels", names[0], images.Count(), o.labels, labels.Count())
	}
	b := example.New()
	var buf []byte
	for i := 0; ; i++ {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		pixels, err := images.Next()
		if err == io.EOF {
			// The label file's end is checked too: nothing after it.
			if _, err := labels.Next(); err != io.EOF {
				return err
			}
			return nil
		}
		if err != nil {
			return err
		}
		label, err := labels.Next()
		if err != nil {
			return err
		}
		t.read(len(pixels) + 1)
		buf = imageExample(b, buf[:0], images.Rows(), images.Cols(), 1, int64(label), pixels)
		if err := write(buf); err != nil {
			return err
		}
	}
}

func convertCIFAR(ctx context.Context, names []string, o convertOptions, prog *progress, t *tally, write func([]byte) error) error {
	l := cifar10.CIFAR10
	hwc := make([]byte, l.ImageBytes())
	b := example.New()
	var buf []byte
	for _, name := range names {
		if err := ctx.Err(); err != nil {
			return err
		}
		in, c, err := openTee(ctx, name, prog)
		if err != nil {
			return err
		}
		err = func() error {
			r, err := cifar10.NewReader(in, l)
			if err != nil {
				return err
			}
			for {
				rec, err := r.Next()
				if err == io.EOF {
					return nil
				}
				if err != nil {
					return err
				}
				// The file stores channel planes; the Example holds the
				// image channels-last, as its height, width, depth say.
				cifar10.ToHWC(hwc, rec.Image, l.Height, l.Width, l.Depth, 1)
				t.read(l.RecordBytes())
				buf = imageExample(b, buf[:0], l.Height, l.Width, l.Depth, int64(rec.Label()), hwc)
				if err := write(buf); err != nil {
					return err
				}
			}
		}()
		c.Close()
		if err != nil {
			return err
		}
	}
	return nil
}
