// Command mnist reads MNIST-like Examples from TFRecord files into
// shuffled batches of 32 and prints each batch's size, first label and
// mean pixel: a complete program with package sluice, as a newcomer would
// write it. Its Examples are those TensorFlow's convert_to_records.py
// writes, and `sluice demo --dir` and `sluice convert --from mnist` too:
// image_raw, the 28×28 pixels as bytes, and an int64 label.
//
//	go run ./cmd/sluice demo --dir data
//	go run ./examples/mnist 'data/train-*.tfrecord.gz'
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
		fmt.Fprintln(stderr, "usage: mnist FILES\n\nFILES names TFRecord files of MNIST Examples (features image_raw, 784\npixel bytes, and label), a pattern such as 'data/train-*.tfrecord.gz' or\none file: `sluice demo --dir data` writes such files.")
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
		"image_raw": example.FixedLen(tensor.String), // 28×28 uint8 pixels
		"label":     example.FixedLen(tensor.Int64),
	}
	ds := sluice.Examples(files, spec, sluice.Shuffle(1000), sluice.Seed(1))
	for b, err := range ds.Batches(ctx, 32) {
		if err != nil {
			return err
		}
		sum, n := 0, 0
		for _, img := range b.Bytes("image_raw") {
			for _, p := range img {
				sum += int(p)
			}
			n += len(img)
		}
		fmt.Fprintf(w, "%d %d %.1f\n", b.Len(), b.Int64("label")[0], float64(sum)/float64(max(n, 1)))
	}
	return nil
}
