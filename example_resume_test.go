package sluice_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"

	"github.com/sluiceml/sluice"
	"github.com/sluiceml/sluice/example"
	"github.com/sluiceml/sluice/tensor"
	"github.com/sluiceml/sluice/tfrecord"
)

// writeLabels writes files of Examples whose "label" counts up from 0,
// n per file, and returns their glob pattern.
func writeLabels(dir string, files, n int) string {
	for i := range files {
		f, err := os.Create(filepath.Join(dir, fmt.Sprintf("part-%d.tfrecord", i)))
		if err != nil {
			log.Fatal(err)
		}
		w := tfrecord.NewWriter(f)
		for j := range n {
			w.Write(example.New().Int64("label", int64(i*n+j)).Marshal())
		}
		w.Close()
		f.Close()
	}
	return filepath.Join(dir, "part-*.tfrecord")
}

// A deterministic data set saves a checkpoint between two batches; a new
// iteration resumed from it (in this process or another, after a crash)
// delivers exactly the batches the first would have delivered next.
func ExampleIterator_Checkpoint() {
	dir, err := os.MkdirTemp("", "sluice-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()
	spec := example.Spec{"label": example.FixedLen(tensor.Int64)}
	ds := sluice.Examples(writeLabels(dir, 2, 10), spec, sluice.Deterministic(), sluice.Shuffle(8), sluice.Seed(7))

	it, err := ds.Iterator(ctx, 4)
	if err != nil {
		log.Fatal(err)
	}
	for range 2 {
		b, _ := it.Next()
		fmt.Println("first run:", b.Int64("label"))
	}
	saved, err := it.Checkpoint() // store it beside the model's weights
	if err != nil {
		log.Fatal(err)
	}
	it.Close()

	resumed, err := ds.Iterator(ctx, 4, sluice.Resume(saved))
	if err != nil {
		log.Fatal(err)
	}
	defer resumed.Close()
	for {
		b, err := resumed.Next()
		if err == io.EOF {
			break
		} else if err != nil {
			log.Fatal(err)
		}
		fmt.Println("resumed:  ", b.Int64("label"))
	}
	// Output:
	// first run: [12 10 16 19]
	// first run: [17 13 3 0]
	// resumed:   [5 1 2 4]
	// resumed:   [18 7 9 15]
	// resumed:   [14 8 6 11]
}

// Every record of every file in a new order each epoch, read where it is
// (through an index of the files' record offsets, built and cached on
// first use), not through a shuffle buffer.
func ExampleGlobalShuffle() {
	dir, err := os.MkdirTemp("", "sluice-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	os.Setenv("SLUICE_INDEX_DIR", filepath.Join(dir, "index")) // the cache, here in the temporary folder
	defer os.Unsetenv("SLUICE_INDEX_DIR")
	ctx := context.Background()
	spec := example.Spec{"label": example.FixedLen(tensor.Int64)}
	ds := sluice.Examples(writeLabels(dir, 3, 4), spec, sluice.GlobalShuffle(), sluice.Epochs(2), sluice.Seed(1))
	for b, err := range ds.Batches(ctx, 6) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(b.Int64("label"))
	}
	// Output:
	// [10 11 9 5 7 1]
	// [4 2 3 6 8 0]
	// [0 4 8 1 6 7]
	// [3 2 5 10 9 11]
}
