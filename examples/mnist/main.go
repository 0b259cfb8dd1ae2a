// Command mnist reads MNIST Examples from TFRecord files into shuffled
// batches of 32 and prints each batch's size, first label and mean pixel:
// a complete program with package sluice, as a newcomer would write it.
//
//	go run ./examples/mnist ../shared/interop/mnist-1000.tfrecord
package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"

	"github.com/sluiceml/sluice"
	"github.com/sluiceml/sluice/example"
	"github.com/sluiceml/sluice/tensor"
)

func main() {
	if err := run(context.Background(), os.Args[1], os.Stdout); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, files string, w io.Writer) error {
	spec := example.Spec{
		"image_floats": example.FixedLen(tensor.Float32, 784),
		"image_class":  example.FixedLen(tensor.Int64),
	}
	ds := sluice.Examples(files, spec, sluice.Shuffle(1000), sluice.Seed(1))
	for b, err := range ds.Batches(ctx, 32) {
		if err != nil {
			return err
		}
		var sum float32
		for _, v := range b.Float32("image_floats") {
			sum += v
		}
		fmt.Fprintln(w, b.Len(), b.Int64("image_class")[0], sum/float32(b.Len()*784))
	}
	return nil
}
