package bucket_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sluiceml/sluice/bucket"
	"github.com/sluiceml/sluice/input"
	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tensor"
)

// In a Deterministic pipeline the bucketing stage delivers the same
// batches in the same order on every run, whatever GOMAXPROCS and the
// timing of its threads, short final batches included.
func TestDeterministic(t *testing.T) {
	run := func(allowSmaller bool) string {
		var mu sync.Mutex
		n := int64(0)
		step := func(context.Context) (int, queue.Element, error) {
			time.Sleep(time.Duration(rand.IntN(100)) * time.Microsecond)
			mu.Lock()
			defer mu.Unlock()
			if n == 100 {
				return 0, nil, io.EOF
			}
			n++
			return int(n*7) % 3, queue.Element{tensor.Scalar(n)}, nil
		}
		p := input.NewPipeline(input.Deterministic())
		opts := []bucket.Option{bucket.Threads(3)}
		if allowSmaller {
			opts = append(opts, bucket.AllowSmallerFinalBatch())
		}
		batches := bucket.Bucket(p, step, []int{4, 5, 6}, 3, opts...)
		if err := p.Start(t.Context()); err != nil {
			t.Fatal(err)
		}
		var s strings.Builder
		total := 0
		for {
			id, b, err := batches.Next(t.Context())
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintln(&s, id, b.Component(0).Int64s())
			total += b.Len()
		}
		if err := p.Join(t.Context()); err != nil {
			t.Fatal(err)
		}
		if allowSmaller && total != 100 {
			t.Fatalf("%d examples, want 100", total)
		}
		return s.String()
	}
	for _, allowSmaller := range []bool{false, true} {
		var runs []string
		for _, procs := range []int{1, 4, 2} {
			prev := runtime.GOMAXPROCS(procs)
			runs = append(runs, run(allowSmaller))
			runtime.GOMAXPROCS(prev)
		}
		for i, r := range runs[1:] {
			if r != runs[0] {
				t.Fatalf("AllowSmallerFinalBatch %v: run %d differs:\n%s\nrun 0:\n%s", allowSmaller, i+1, r, runs[0])
			}
		}
	}
}
