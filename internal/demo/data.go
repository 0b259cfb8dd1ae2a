package demo

import (
	"context"
	"fmt"
	"math"

	"github.com/sluiceml/sluice/datasets/cifar10"
	"github.com/sluiceml/sluice/datasets/digits"
)

// Data is an image-classification data set held in memory, ready to be
// written in the pipelines' input formats: uint8 images in height, width,
// channel order and one label byte each.
type Data struct {
	// Kind names where the data came from: "generated digits", "MNIST IDX",
	// "CIFAR-10 binary" or "TFRecord Examples".
	Kind string
	// Source describes the input files, for the summary ("" when generated).
	Source string
	// Layout is the shape of one image and the number of classes; it is
	// also the layout of the fixed-length records the evaluation reads.
	Layout      cifar10.Layout
	Train, Test Split
	// HeldOut is set when the source had no test split and every
	// holdOutEvery-th training image was set aside for testing.
	HeldOut bool
}

// A Split is one part of a data set: Len images of Layout.ImageBytes()
// bytes each, one after another, and their labels.
type Split struct {
	Images []byte
	Labels []byte
}

// Len returns the number of images.
func (s Split) Len() int { return len(s.Labels) }

// holdOutEvery: a source without a test split gives every holdOutEvery-th
// image to the test split (1 in 6, MNIST's own 10 000 of 70 000).
const holdOutEvery = 6

// digitsLayout is the layout of the generated digits and of MNIST: one
// label byte and a 28×28 grayscale image.
var digitsLayout = cifar10.Layout{LabelBytes: 1, Height: digits.Side, Width: digits.Side, Depth: 1, Classes: 10}

// Generate renders train+test digit images with datasets/digits. It
// stops soon after ctx is done.
func Generate(ctx context.Context, train, test int, seed uint64) (*Data, error) {
	if train <= 0 || test <= 0 {
		return nil, fmt.Errorf("demo: need at least one training and one test image, got %d and %d", train, test)
	}
	if train > math.MaxInt-test {
		return nil, fmt.Errorf("demo: %d training and %d test images are more than an int counts", train, test)
	}
	images, labels, err := digits.GenerateContext(ctx, train+test, seed)
	if err != nil {
		return nil, err
	}
	n := train * digits.ImageBytes
	return &Data{
		Kind:   KindGenerated,
		Layout: digitsLayout,
		Train:  Split{Images: images[:n:n], Labels: labels[:train:train]},
		Test:   Split{Images: images[n:], Labels: labels[train:]},
	}, nil
}

// limit keeps at most n images of s (n <= 0: all).
func (s Split) limit(n, imageBytes int) Split {
	if n <= 0 || n >= s.Len() {
		return s
	}
	return Split{Images: s.Images[:n*imageBytes], Labels: s.Labels[:n]}
}

// holdOut splits all into a training part and a test part made of every
// holdOutEvery-th image, so that the test part samples the whole input
// rather than its last files.
func holdOut(all Split, imageBytes int) (train, test Split) {
	n := all.Len()
	nTest := n / holdOutEvery
	train.Images = make([]byte, 0, (n-nTest)*imageBytes)
	train.Labels = make([]byte, 0, n-nTest)
	test.Images = make([]byte, 0, nTest*imageBytes)
	test.Labels = make([]byte, 0, nTest)
	for i := range n {
		img := all.Images[i*imageBytes : (i+1)*imageBytes]
		if i%holdOutEvery == holdOutEvery-1 {
			test.Images = append(test.Images, img...)
			test.Labels = append(test.Labels, all.Labels[i])
		} else {
			train.Images = append(train.Images, img...)
			train.Labels = append(train.Labels, all.Labels[i])
		}
	}
	return train, test
}

// check reports a data set the demo cannot train and test on.
func (d *Data) check() error {
	if err := d.Layout.Validate(); err != nil {
		return err
	}
	ib := d.Layout.ImageBytes()
	for _, s := range []struct {
		name  string
		split Split
	}{{"training", d.Train}, {"test", d.Test}} {
		if s.split.Len() == 0 {
			return fmt.Errorf("no %s images", s.name)
		}
		if len(s.split.Images) != s.split.Len()*ib {
			return fmt.Errorf("demo: %s split has %d bytes of images for %d labels of %d-byte images", s.name, len(s.split.Images), s.split.Len(), ib)
		}
		for i, l := range s.split.Labels {
			if int(l) >= d.Layout.Classes {
				return fmt.Errorf("%s image %d has label %d, but there are %d classes", s.name, i, l, d.Layout.Classes)
			}
		}
	}
	return nil
}
