package mnist_test

import (
	"bytes"
	"fmt"
	"log"

	"github.com/sluiceml/sluice/datasets/mnist"
)

func Example() {
	// Two 2×3 images and their labels, written as IDX and read back.
	var images, labels bytes.Buffer
	m := &mnist.Images{Count: 2, Rows: 2, Cols: 3, Pixels: []byte{0, 128, 255, 1, 2, 3, 9, 8, 7, 6, 5, 4}}
	if err := mnist.WriteImages(&images, m); err != nil {
		log.Fatal(err)
	}
	if err := mnist.WriteLabels(&labels, []byte{7, 2}); err != nil {
		log.Fatal(err)
	}

	got, err := mnist.ReadImages(&images)
	if err != nil {
		log.Fatal(err)
	}
	ls, err := mnist.ReadLabels(&labels)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(got.Tensor().Shape(), ls)
	fmt.Println(got.At(1))
	// Output:
	// [2,2,3] [7 2]
	// [9 8 7 6 5 4]
}

func ExampleNewImageReader() {
	var b bytes.Buffer
	mnist.WriteImages(&b, &mnist.Images{Count: 3, Rows: 1, Cols: 2, Pixels: []byte{1, 2, 3, 4, 5, 6}})
	data := b.Bytes()[:b.Len()-1] // truncate the last image

	r, err := mnist.NewImageReader(bytes.NewReader(data))
	if err != nil {
		log.Fatal(err)
	}
	for i, img := range r.All() {
		fmt.Println(i, img)
	}
	fmt.Println(r.Err())
	// Output:
	// 0 [1 2]
	// 1 [3 4]
	// record 2 at offset 20: size does not match header (unexpected EOF): header declares 3 images, the data ends after 1 of image 2's 2 bytes
}

func ExampleNewLabelReader() {
	var images, labels bytes.Buffer
	mnist.WriteImages(&images, &mnist.Images{Count: 2, Rows: 1, Cols: 2, Pixels: []byte{1, 2, 3, 4}})
	mnist.WriteLabels(&labels, []byte{7, 2})

	ir, err := mnist.NewImageReader(&images)
	if err != nil {
		log.Fatal(err)
	}
	lr, err := mnist.NewLabelReader(&labels)
	if err != nil {
		log.Fatal(err)
	}
	// The counts are compared before anything is read: a header can
	// declare any number of labels in four bytes.
	if ir.Count() != lr.Count() {
		log.Fatalf("%d images, %d labels", ir.Count(), lr.Count())
	}
	for i, img := range ir.All() {
		label, err := lr.Next()
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(i, img, label)
	}
	if err := ir.Err(); err != nil {
		log.Fatal(err)
	}
	// Output:
	// 0 [1 2] 7
	// 1 [3 4] 2
}
