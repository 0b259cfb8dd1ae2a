package sluice_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"sync"

	"github.com/sluiceml/sluice"
	"github.com/sluiceml/sluice/example"
	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tensor"
	"github.com/sluiceml/sluice/tfrecord"
)

// Two data sets sharing one filename queue, as workers on several hosts
// share a queue/natsqueue.Queue: each file is read by one of them, and
// together they read every record once.
func ExampleFilenameQueue() {
	dir, err := os.MkdirTemp("", "sluice-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()
	// The queue's producer lists the files and closes it.
	files, err := queue.NewFIFO(4, []tensor.DType{tensor.String})
	if err != nil {
		log.Fatal(err)
	}
	for i := range 4 {
		name := filepath.Join(dir, fmt.Sprintf("train-%d.tfrecord", i))
		f, err := os.Create(name)
		if err != nil {
			log.Fatal(err)
		}
		w := tfrecord.NewWriter(f, tfrecord.None)
		for range 25 {
			w.Write(example.New().Int64("label", int64(i)).Marshal())
		}
		w.Close()
		f.Close()
		files.Enqueue(ctx, queue.Element{tensor.StringScalar(name)})
	}
	files.Close(ctx)

	spec := example.Spec{"label": example.FixedLen(tensor.Int64)}
	var mu sync.Mutex
	total := 0
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			ds := sluice.Examples("", spec, sluice.FilenameQueue(files))
			for b, err := range ds.Batches(ctx, 10) {
				if err != nil {
					log.Fatal(err)
				}
				mu.Lock()
				total += b.Len()
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	fmt.Println(total, "records between the two")
	// Output: 100 records between the two
}
