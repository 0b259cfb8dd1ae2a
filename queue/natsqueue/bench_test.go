package natsqueue_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sluiceml/sluice/queue/natsqueue"
)

// BenchmarkFileNames measures file names through the JetStream queue: one
// producer enqueues b.N names while 1, 4 or 16 workers, each on its own
// connection, dequeue and acknowledge them, as readers finishing one file
// after another would. The server is embedded and reached over loopback
// TCP, so the figures are the queue's protocol cost, not a network's.
func BenchmarkFileNames(b *testing.B) {
	s := runServer(b, b.TempDir(), -1)
	url := s.ClientURL()
	for _, workers := range []int{1, 4, 16} {
		b.Run(fmt.Sprintf("consumers=%d", workers), func(b *testing.B) {
			name := uniqueName("bench")
			producer := open(b, connect(b, url), name, natsqueue.Capacity(1024))
			qs := make([]*natsqueue.Queue, workers)
			for i := range qs {
				qs[i] = open(b, connect(b, url), name, natsqueue.Capacity(1024))
			}
			names := make([]string, b.N)
			for i := range names {
				names[i] = fmt.Sprintf("gs://bucket/train/part-%08d.tfrecord", i)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var done atomic.Int64
			var wg sync.WaitGroup
			b.ReportAllocs()
			b.ResetTimer()
			start := time.Now()
			wg.Go(func() {
				if err := producer.EnqueueStrings(ctx, names...); err != nil && ctx.Err() == nil {
					b.Error(err)
				}
			})
			for _, q := range qs {
				wg.Go(func() {
					for {
						e, err := q.Dequeue(ctx)
						if err != nil {
							if ctx.Err() == nil {
								b.Error(err)
							}
							return
						}
						if err := q.WorkDone(ctx, string(e[0].Strings()[0])); err != nil {
							b.Error(err)
							return
						}
						if done.Add(1) == int64(b.N) {
							cancel() // the last name: stop the waiting workers
						}
					}
				})
			}
			wg.Wait()
			b.StopTimer()
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "names/s")
		})
	}
}

// BenchmarkEnqueue measures the producer alone: an epoch's list of b.N
// file names stored with one EnqueueStrings call, as a filename producer
// does at the start of each epoch.
func BenchmarkEnqueue(b *testing.B) {
	s := runServer(b, b.TempDir(), -1)
	q := open(b, connect(b, s.ClientURL()), uniqueName("enqueue"), natsqueue.Capacity(1<<30))
	names := make([]string, b.N)
	for i := range names {
		names[i] = fmt.Sprintf("gs://bucket/train/part-%08d.tfrecord", i)
	}
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	if err := q.EnqueueStrings(context.Background(), names...); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "names/s")
}
