package demo

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sluiceml/sluice/dataerr"
	"github.com/sluiceml/sluice/datasets"
	"github.com/sluiceml/sluice/datasets/cifar10"
	"github.com/sluiceml/sluice/datasets/digits"
	"github.com/sluiceml/sluice/datasets/mnist"
	"github.com/sluiceml/sluice/internal/demo/demotest"
)

func mustLoad(t *testing.T, dir string, o LoadOptions) *Data {
	t.Helper()
	d, err := Load(context.Background(), dir, o)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestLoadMNIST(t *testing.T) {
	for _, gz := range []bool{false, true} {
		dir := t.TempDir()
		if err := demotest.WriteMNIST(dir, 60, 20, gz, 1); err != nil {
			t.Fatal(err)
		}
		d := mustLoad(t, dir, LoadOptions{})
		want := cifar10.Layout{LabelBytes: 1, Height: 28, Width: 28, Depth: 1, Classes: 10}
		if d.Kind != KindMNIST || d.Layout != want || d.Train.Len() != 60 || d.Test.Len() != 20 || d.HeldOut {
			t.Fatalf("gz %v: %s %+v %d/%d held out %v", gz, d.Kind, d.Layout, d.Train.Len(), d.Test.Len(), d.HeldOut)
		}
		images, labels := demotest.Digits(80, 1)
		if !bytes.Equal(d.Train.Images, images[:60*784]) || !bytes.Equal(d.Test.Labels, labels[60:]) {
			t.Fatalf("gz %v: images or labels differ from those written", gz)
		}
		if !strings.Contains(d.Source, "t10k-images-idx3-ubyte") {
			t.Errorf("source %q", d.Source)
		}
	}
}

// Without test files, every sixth image is held out for testing.
func TestLoadMNISTTrainOnly(t *testing.T) {
	dir := t.TempDir()
	if err := demotest.WriteMNIST(dir, 60, 0, true, 1); err != nil {
		t.Fatal(err)
	}
	d := mustLoad(t, dir, LoadOptions{})
	if !d.HeldOut || d.Train.Len() != 50 || d.Test.Len() != 10 {
		t.Fatalf("held out %v, %d/%d", d.HeldOut, d.Train.Len(), d.Test.Len())
	}
	images, labels := demotest.Digits(60, 1)
	if d.Test.Labels[0] != labels[5] || !bytes.Equal(d.Test.Images[:784], images[5*784:6*784]) {
		t.Fatal("the first test image is not the sixth image")
	}
}

func TestLoadCIFAR10(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "cifar-10-batches-bin") // as the archive unpacks
	os.Mkdir(sub, 0o755)
	if err := demotest.WriteCIFAR10(sub, 50, 10, 5, 2); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{dir, sub} {
		d := mustLoad(t, dir, LoadOptions{})
		if d.Kind != KindCIFAR10 || d.Layout != cifar10.CIFAR10 || d.Train.Len() != 50 || d.Test.Len() != 10 {
			t.Fatalf("%s: %s %+v %d/%d", dir, d.Kind, d.Layout, d.Train.Len(), d.Test.Len())
		}
		// Images are held channels-last: the digit's pixel (14, 14) is at
		// (16, 16) in all three channels.
		images, labels := demotest.Digits(60, 2)
		img := d.Test.Images[3*3072 : 4*3072]
		want := images[53*784+14*28+14]
		if at := (16*32 + 16) * 3; img[at] != want || img[at+1] != want || img[at+2] != want || d.Test.Labels[3] != labels[53] {
			t.Fatalf("%s: pixel %v, want %d", dir, img[(16*32+16)*3:][:3], want)
		}
	}
}

func TestLoadTFRecordEncodings(t *testing.T) {
	images, labels := demotest.Digits(90, 3)
	for _, tc := range []struct {
		enc  demotest.Encoding
		kind imageKind
	}{{demotest.Floats, floatImage}, {demotest.Int64s, int64Image}, {demotest.PNG, encodedImage}, {demotest.Raw, rawImage}} {
		dir := t.TempDir()
		if err := demotest.WriteTFRecord(dir, "digits", 90, 3, tc.enc, "pixels", "class", 3); err != nil {
			t.Fatal(err)
		}
		d := mustLoad(t, dir, LoadOptions{ImageFeature: "pixels", LabelFeature: "class"})
		want := cifar10.Layout{LabelBytes: 1, Height: 28, Width: 28, Depth: 1, Classes: 10}
		if d.Kind != KindTFRecord || d.Layout != want || !d.HeldOut || d.Train.Len() != 75 || d.Test.Len() != 15 {
			t.Fatalf("%v: %s %+v %d/%d", tc.kind, d.Kind, d.Layout, d.Train.Len(), d.Test.Len())
		}
		if !strings.Contains(d.Source, tc.kind.String()) {
			t.Errorf("%v: source %q", tc.kind, d.Source)
		}
		// The first training images are images 0-4, then 6.
		for i, src := range []int{0, 1, 2, 3, 4, 6} {
			got, want := d.Train.Images[i*784:(i+1)*784], images[src*784:(src+1)*784]
			for j := range got {
				if diff := int(got[j]) - int(want[j]); diff < -1 || diff > 1 {
					t.Fatalf("%v: image %d pixel %d is %d, want %d", tc.kind, src, j, got[j], want[j])
				}
			}
			if d.Train.Labels[i] != labels[src] {
				t.Fatalf("%v: label %d", tc.kind, i)
			}
		}
	}
}

// Files whose names say test make the test split; the image feature
// defaults to "image", then "image_raw".
func TestLoadTFRecordSplitsAndDefaults(t *testing.T) {
	dir := t.TempDir()
	if err := demotest.WriteTFRecord(dir, "train", 40, 2, demotest.Raw, "image_raw", "label", 4); err != nil {
		t.Fatal(err)
	}
	if err := demotest.WriteTFRecord(dir, "test", 20, 1, demotest.Raw, "image_raw", "label", 5); err != nil {
		t.Fatal(err)
	}
	d := mustLoad(t, dir, LoadOptions{})
	if d.HeldOut || d.Train.Len() != 40 || d.Test.Len() != 20 || !strings.Contains(d.Source, `image "image_raw"`) {
		t.Fatalf("%d/%d held out %v, %q", d.Train.Len(), d.Test.Len(), d.HeldOut, d.Source)
	}
	_, err := Load(context.Background(), dir, LoadOptions{ImageFeature: "image"})
	if err == nil || !strings.Contains(err.Error(), `no image feature "image" (features: depth, height, image_raw, label, width); name it with --image-feature`) {
		t.Fatalf("named feature missing: %v", err)
	}
	_, err = Load(context.Background(), dir, LoadOptions{LabelFeature: "digit"})
	if err == nil || !strings.Contains(err.Error(), `no label feature "digit"`) {
		t.Fatalf("label missing: %v", err)
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("hello"), 0o644)
	_, err := Load(context.Background(), dir, LoadOptions{})
	if err == nil || !strings.HasPrefix(err.Error(), dir+": no MNIST IDX files") || strings.Contains(err.Error(), "\n") {
		t.Errorf("unrecognised: %v", err)
	}
	missing := filepath.Join(dir, "missing")
	if _, err := Load(context.Background(), missing, LoadOptions{}); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("missing dir: %v", err)
	}

	// An image file without its labels.
	mn := t.TempDir()
	demotest.WriteMNIST(mn, 20, 0, false, 1)
	os.Remove(filepath.Join(mn, "train-labels-idx1-ubyte"))
	if _, err := Load(context.Background(), mn, LoadOptions{}); err == nil || !strings.Contains(err.Error(), "no label file") {
		t.Errorf("no labels: %v", err)
	}

	// A truncated CIFAR file is named.
	cf := t.TempDir()
	demotest.WriteCIFAR10(cf, 10, 5, 1, 1)
	name := filepath.Join(cf, "data_batch_1.bin")
	b, _ := os.ReadFile(name)
	os.WriteFile(name, b[:len(b)-7], 0o644)
	if _, err := Load(context.Background(), cf, LoadOptions{}); err == nil || !strings.Contains(err.Error(), name) {
		t.Errorf("truncated CIFAR: %v", err)
	}
}

func TestShapeOf(t *testing.T) {
	for n, want := range map[int][3]int{784: {28, 28, 1}, 3072: {32, 32, 3}, 10: {1, 10, 1}, 12: {2, 2, 3}} {
		l := shapeOf(n, nil)
		if got := [3]int{l.Height, l.Width, l.Depth}; got != want {
			t.Errorf("%d: %v, want %v", n, got, want)
		}
	}
}

// Generate splits one stream of digits into training and test images.
func TestGenerate(t *testing.T) {
	d, err := Generate(context.Background(), 30, 10, 9)
	if err != nil {
		t.Fatal(err)
	}
	images, _, _ := digits.Generate(40, 9)
	if d.Train.Len() != 30 || d.Test.Len() != 10 || !bytes.Equal(d.Test.Images, images[30*784:]) || d.check() != nil {
		t.Fatal("split")
	}
}

// A folder holding MNIST both gzipped and unpacked, as `gunzip -k` leaves
// it, is read once, from the unpacked files; a gzipped label file serves
// an unpacked image file.
func TestLoadMNISTPlainAndGzip(t *testing.T) {
	dir := t.TempDir()
	if err := demotest.WriteMNIST(dir, 60, 10, false, 1); err != nil {
		t.Fatal(err)
	}
	if err := demotest.WriteMNIST(dir, 60, 10, true, 1); err != nil {
		t.Fatal(err)
	}
	// Only the gzipped test labels are left.
	if err := os.Remove(filepath.Join(dir, "t10k-labels-idx1-ubyte")); err != nil {
		t.Fatal(err)
	}
	d := mustLoad(t, dir, LoadOptions{})
	if d.Train.Len() != 60 || d.Test.Len() != 10 {
		t.Errorf("train %d test %d images, want 60 and 10", d.Train.Len(), d.Test.Len())
	}
	for _, want := range []string{"train-images-idx3-ubyte,", "t10k-images-idx3-ubyte,", "t10k-labels-idx1-ubyte.gz"} {
		if !strings.Contains(d.Source, want) {
			t.Errorf("source %q lacks %q", d.Source, want)
		}
	}
	if strings.Contains(d.Source, "images-idx3-ubyte.gz") {
		t.Errorf("source %q: a gzipped image file was read too", d.Source)
	}
}

// Load stops when its context is done, with the context's cause rather
// than an error about the data it was reading, in every format.
func TestLoadCancelled(t *testing.T) {
	dir := t.TempDir()
	write := []func(string) error{
		func(d string) error { return demotest.WriteMNIST(d, 60, 10, true, 1) },
		func(d string) error { return demotest.WriteCIFAR10(d, 30, 10, 2, 1) },
		func(d string) error {
			return demotest.WriteTFRecord(d, "train", 30, 2, demotest.Raw, "image", "label", 1)
		},
	}
	stop := errors.New("stop")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(stop)
	for i, w := range write {
		d := filepath.Join(dir, string(rune('a'+i)))
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := w(d); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(ctx, d, LoadOptions{}); !errors.Is(err, stop) {
			t.Errorf("source %d: error %v, want %v", i, err, stop)
		}
		if _, err := Load(context.Background(), d, LoadOptions{}); err != nil {
			t.Errorf("source %d: %v", i, err)
		}
	}
}

// An IDX label beyond the data set's classes is an error naming the file,
// the offset and the label's index, not a silent extra class; EMNIST's
// files may have up to 62 classes.
func TestLoadMNISTLabelRange(t *testing.T) {
	tests := []struct {
		prefix string
		label  byte
		ok     bool
	}{
		{"train", 9, true},
		{"train", 10, false},
		{"train", 255, false},
		{"emnist-byclass-train", 61, true},
		{"emnist-byclass-train", 62, false},
	}
	for _, tt := range tests {
		dir := t.TempDir()
		labels := []byte{1, 2, 3, tt.label, 4, 5}
		var img, lab bytes.Buffer
		if err := mnist.WriteImages(&img, &mnist.Images{Count: len(labels), Rows: 2, Cols: 2, Pixels: make([]byte, 4*len(labels))}); err != nil {
			t.Fatal(err)
		}
		if err := mnist.WriteLabels(&lab, labels); err != nil {
			t.Fatal(err)
		}
		labelFile := filepath.Join(dir, tt.prefix+"-labels-idx1-ubyte")
		if err := os.WriteFile(filepath.Join(dir, tt.prefix+"-images-idx3-ubyte"), img.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(labelFile, lab.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		d, err := Load(context.Background(), dir, LoadOptions{})
		if tt.ok {
			if err != nil {
				t.Errorf("%s, label %d: %v", tt.prefix, tt.label, err)
			} else if d.Layout.Classes != int(tt.label)+1 {
				t.Errorf("%s, label %d: %d classes", tt.prefix, tt.label, d.Layout.Classes)
			}
			continue
		}
		var de *dataerr.Error
		if !errors.Is(err, datasets.ErrLabel) || !errors.As(err, &de) || de.File != labelFile || de.Offset != 11 || de.Record != 3 {
			t.Errorf("%s, label %d: error %v, want ErrLabel at %s offset 11 record 3", tt.prefix, tt.label, err, labelFile)
		}
	}
}
