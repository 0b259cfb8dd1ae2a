package sluice_test

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	pngenc "image/png"
	"log"
	"os"
	"path/filepath"

	"github.com/sluiceml/sluice"
	"github.com/sluiceml/sluice/decode"
	"github.com/sluiceml/sluice/example"
	"github.com/sluiceml/sluice/tensor"
	"github.com/sluiceml/sluice/tfrecord"
)

// Reading TFRecord files of Examples, some gzip-compressed, into batches
// of named features for two epochs, records shuffled.
func ExampleExamples() {
	dir, err := os.MkdirTemp("", "sluice-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	// Two files of 50 Examples: a 4-pixel "image" and a "label".
	for i, c := range []tfrecord.Compression{tfrecord.None, tfrecord.Gzip} {
		f, err := os.Create(filepath.Join(dir, fmt.Sprintf("train-%d.tfrecord", i)))
		if err != nil {
			log.Fatal(err)
		}
		w := tfrecord.NewWriter(f, c)
		for j := range 50 {
			v := float32(j) / 50
			w.Write(example.New().Floats("image", []float32{v, v, v, v}).Int64("label", int64(j%10)).Marshal())
		}
		w.Close()
		f.Close()
	}

	ctx := context.Background()
	spec := example.Spec{
		"image": example.FixedLen(tensor.Float32, 4),
		"label": example.FixedLen(tensor.Int64),
	}
	ds := sluice.Examples(filepath.Join(dir, "train-*.tfrecord"), spec,
		sluice.Epochs(2), sluice.Shuffle(64), sluice.Seed(42))
	var batches, examples int
	var labels [10]int
	for b, err := range ds.Batches(ctx, 32) {
		if err != nil {
			log.Fatal(err) // the first error of any stage, with the file and offset
		}
		_ = b.Float32("image") // 4 values per example, row after row
		for _, l := range b.Int64("label") {
			labels[l]++
		}
		batches++
		examples += b.Len()
	}
	fmt.Println(batches, "batches,", examples, "examples")
	fmt.Println("examples per label:", labels)
	// Output:
	// 7 batches, 200 examples
	// examples per label: [20 20 20 20 20 20 20 20 20 20]
}

// Reading CSV files with a header line into named columns; an empty field
// takes its column's default.
func ExampleCSV() {
	dir, err := os.MkdirTemp("", "sluice-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, "iris.csv"), []byte(
		"sepal_length,sepal_width,species\n"+
			"5.1,3.5,setosa\n"+
			"7.0,,versicolor\n"+
			"6.3,3.3,virginica\n"), 0o644)

	ctx := context.Background()
	ds := sluice.CSV(filepath.Join(dir, "*.csv"), []sluice.Column{
		sluice.Col("sepal_length", decode.RequiredFloat32()),
		sluice.Col("sepal_width", decode.Float32Column(-1)),
		sluice.Col("species", decode.RequiredString()),
	}, sluice.SkipHeaderLines(1), sluice.Readers(1))
	for b, err := range ds.Batches(ctx, 2) {
		if err != nil {
			log.Fatal(err)
		}
		for i, s := range b.Bytes("species") {
			fmt.Printf("%s %.1f %.1f\n", s, b.Float32("sepal_length")[i], b.Float32("sepal_width")[i])
		}
	}
	// Output:
	// setosa 5.1 3.5
	// versicolor 7.0 -1.0
	// virginica 6.3 3.3
}

// Reading TFRecord files whose records are not Examples (here JSON) as
// they are, in batches of bytes.
func ExampleRecords() {
	dir, err := os.MkdirTemp("", "sluice-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	f, err := os.Create(filepath.Join(dir, "events.tfrecord.zst"))
	if err != nil {
		log.Fatal(err)
	}
	w := tfrecord.NewWriter(f, tfrecord.Zstd)
	for i := range 5 {
		w.Write(fmt.Appendf(nil, `{"event": %d}`, i))
	}
	w.Close()
	f.Close()

	ds := sluice.Records(filepath.Join(dir, "events.*"), sluice.Readers(1))
	for b, err := range ds.Batches(context.Background(), 2) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%q\n", b.Bytes(sluice.RecordFeature))
	}
	// Output:
	// ["{\"event\": 0}" "{\"event\": 1}"]
	// ["{\"event\": 2}" "{\"event\": 3}"]
	// ["{\"event\": 4}"]
}

// Decoding images kept in Examples, of any size, into pixels of one
// shape: here 2 × 2 RGB, cropped around the center of a 4 × 3 PNG.
func ExampleDecodeImage() {
	dir, err := os.MkdirTemp("", "sluice-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	img := image.NewRGBA(image.Rect(0, 0, 3, 4)) // 3 wide, 4 high
	for y := range 4 {
		for x := range 3 {
			img.Set(x, y, color.RGBA{uint8(10*y + x), 0, 0, 255})
		}
	}
	var png bytes.Buffer
	if err := pngenc.Encode(&png, img); err != nil {
		log.Fatal(err)
	}
	f, err := os.Create(filepath.Join(dir, "images.tfrecord"))
	if err != nil {
		log.Fatal(err)
	}
	w := tfrecord.NewWriter(f, tfrecord.None)
	w.Write(example.New().Bytes("image", png.Bytes()).Int64("label", 7).Marshal())
	w.Close()
	f.Close()

	spec := example.Spec{"image": example.FixedLen(tensor.String), "label": example.FixedLen(tensor.Int64)}
	ds := sluice.Examples(filepath.Join(dir, "*.tfrecord"), spec, sluice.DecodeImage("image", 2, 2, 3))
	for b, err := range ds.Batches(context.Background(), 1) {
		if err != nil {
			log.Fatal(err)
		}
		px := b.Dense("image")
		var red []uint8
		for i := 0; i < len(px.Uint8s()); i += 3 {
			red = append(red, px.Uint8s()[i])
		}
		fmt.Println(px.Shape(), "red:", red)
	}
	// Output:
	// [1,2,2,3] red: [10 11 20 21]
}

// Reading fixed-length records, as CIFAR-10's binary files hold them: a
// label byte, then the image as three planes (red, green, blue), read
// pixel by pixel with Transpose as TensorFlow's tf.transpose would. Here
// an image is 1×2 pixels.
func ExampleFixedLengthRecords() {
	dir, err := os.MkdirTemp("", "sluice-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	var data []byte
	for label := range byte(6) {
		r, g, b := 10*label, 10*label+1, 10*label+2
		data = append(data, label, r, r, g, g, b, b)
	}
	os.WriteFile(filepath.Join(dir, "data_batch_1.bin"), data, 0o644)

	ctx := context.Background()
	ds := sluice.FixedLengthRecords(filepath.Join(dir, "data_batch_*.bin"), 7, []sluice.Field{
		{Name: "label", Offset: 0, Size: 1, DType: tensor.Uint8},
		{Name: "image", Offset: 1, Size: 6, DType: tensor.Uint8, Shape: []int{3, 1, 2}, Transpose: []int{1, 2, 0}},
	}, sluice.Readers(1))
	for b, err := range ds.Batches(ctx, 4) {
		if err != nil {
			log.Fatal(err)
		}
		img := b.Dense("image")
		fmt.Println(b.Uint8("label"), img.Shape(), img.Uint8s()[:6])
	}
	// Output:
	// [0 1 2 3] [4,1,2,3] [0 1 2 0 1 2]
	// [4 5] [2,1,2,3] [40 41 42 40 41 42]
}

// Reading TFRecord files of SequenceExamples: a context feature per
// record, and feature lists of any number of steps, padded in each batch
// to its longest record, with every record's count of steps.
func ExampleSequenceExamples() {
	dir, err := os.MkdirTemp("", "sluice-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	// Five sentences: a label, and a feature list of one word id per step.
	f, err := os.Create(filepath.Join(dir, "sentences.tfrecord"))
	if err != nil {
		log.Fatal(err)
	}
	w := tfrecord.NewWriter(f, tfrecord.Gzip)
	for i, words := range [][]int64{{4, 8}, {15}, {16, 23, 42}, {7}, {1, 2}} {
		steps := make([]example.Feature, len(words))
		for j, id := range words {
			steps[j] = example.Int64List(id)
		}
		w.Write(example.NewSequence().Context("label", example.Int64List(int64(i%2))).
			List("words", steps...).Marshal())
	}
	w.Close()
	f.Close()

	ctx := context.Background()
	ds := sluice.SequenceExamples(filepath.Join(dir, "*.tfrecord"),
		example.Spec{"label": example.FixedLen(tensor.Int64)},
		example.Spec{"words": example.FixedLenSequence(tensor.Int64)},
		sluice.Readers(1))
	for b, err := range ds.Batches(ctx, 3) {
		if err != nil {
			log.Fatal(err)
		}
		words := b.Dense("words") // [records, most steps in the batch]
		fmt.Println("labels", b.Int64("label"), "words", words.Shape(), words.Int64s(), "lengths", b.Lengths("words"))
	}
	// Output:
	// labels [0 1 0] words [3,3] [4 8 0 15 0 0 16 23 42] lengths [2 1 3]
	// labels [1 0] words [2,2] [7 0 1 2] lengths [1 2]
}
