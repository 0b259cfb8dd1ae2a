// Command mnist reads MNIST Examples from TFRecord files into shuffled
// batches of 32 and prints each batch's size, first label and mean pixel:
// a complete program with package sluice, as a newcomer would write it.
//
//	go run ./examples/mnist ../shared/interop/mnist-1000.tfrecord
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/sluiceml/sluice"
	"github.com/sluiceml/sluice/example"
	"github.com/sluiceml/sluice/tensor"
)

func main() {
	// Ctrl-C cancels ctx, which ends the loop over the batches and every
	// goroutine of the pipeline with it.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := mainCode(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// mainCode runs the program with the arguments after the command's name
// and returns its exit status: 2 for a usage error, 130 (as a shell
// reports SIGINT) when ctx was cancelled.
func mainCode(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) != 1 {
		fmt.Fprintln(stderr, "usage: mnist FILES\n\nFILES names TFRecord files of MNIST Examples (features image_floats and\nimage_class), a pattern such as 'data/train-*.tfrecord' or one file.")
		return 2
	}
	err := run(ctx, args[0], stdout)
	switch {
	case err == nil:
		return 0
	case ctx.Err() != nil && errors.Is(err, context.Cause(ctx)):
		fmt.Fprintln(stderr, "mnist: interrupted")
		return 130
	default:
		fmt.Fprintln(stderr, "mnist:", err)
		return 1
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
