package natsqueue_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/sluiceml/sluice/queue/natsqueue"
)

// Two workers share one epoch's queue of file names on a NATS server
// embedded in the process (a job would Dial its own cluster's URL). The
// producer enqueues the epoch's list and closes the queue; each worker
// takes names until end of input and acknowledges each file once read.
func Example() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "natsqueue-example")
	defer os.RemoveAll(dir)
	srv, err := server.NewServer(&server.Options{JetStream: true, StoreDir: dir, DontListen: true, NoSigs: true})
	if err != nil {
		panic(err)
	}
	srv.Start()
	defer func() { srv.Shutdown(); srv.WaitForShutdown() }()
	srv.ReadyForConnections(5e9)

	// Each worker has its own connection, as it would in its own process.
	var conns []*nats.Conn
	defer func() {
		for _, nc := range conns {
			nc.Close()
		}
	}()
	open := func() *natsqueue.Queue {
		nc, err := nats.Connect("", nats.InProcessServer(srv))
		if err != nil {
			panic(err)
		}
		conns = append(conns, nc)
		js, _ := jetstream.New(nc)
		// Calls fail with natsqueue.ErrUnreachable, rather than wait,
		// once the server has been silent for 10s.
		q, err := natsqueue.New(ctx, js, "train_files", natsqueue.Epoch(0), natsqueue.Capacity(8),
			natsqueue.UnreachableAfter(10*time.Second))
		if err != nil {
			panic(err)
		}
		return q
	}

	producer := open()
	files := []string{"part-0.tfrecord", "part-1.tfrecord", "part-2.tfrecord", "part-3.tfrecord", "part-4.tfrecord"}
	// A second producer enqueuing the same list would add nothing: the
	// message IDs de-duplicate it.
	if err := producer.EnqueueStrings(ctx, files...); err != nil {
		panic(err)
	}
	if err := producer.Close(ctx); err != nil {
		panic(err)
	}

	var mu sync.Mutex
	var read []string
	var wg sync.WaitGroup
	for range 2 {
		q := open()
		wg.Go(func() {
			for {
				e, err := q.Dequeue(ctx)
				if errors.Is(err, io.EOF) {
					return
				}
				if err != nil {
					panic(err)
				}
				name := string(e[0].Strings()[0])
				// ... read the file ...
				if err := q.WorkDone(ctx, name); err != nil {
					panic(err)
				}
				mu.Lock()
				read = append(read, name)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	slices.Sort(read)
	fmt.Println(read)
	_, err = producer.Dequeue(ctx)
	fmt.Println(err)
	// Output:
	// [part-0.tfrecord part-1.tfrecord part-2.tfrecord part-3.tfrecord part-4.tfrecord]
	// FIFOQueue 'train_files' is closed and has insufficient elements (requested 1, current size 0): EOF
}
