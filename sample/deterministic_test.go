package sample

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

	"github.com/sluiceml/sluice/input"
	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tensor"
)

// In a Deterministic pipeline, sampling by class with an unknown
// distribution gives the same batches on every run: its threads feed the
// class queues in turn, and the consumer's draws are seeded.
func TestUnknownDistDeterministic(t *testing.T) {
	run := func() string {
		var mu sync.Mutex
		n := int64(0)
		step := func(context.Context) (int, queue.Element, error) {
			mu.Lock()
			n++
			v := n
			mu.Unlock()
			// Between taking an example and enqueueing it: without turns,
			// threads overtake each other here.
			time.Sleep(time.Duration(rand.IntN(200)) * time.Microsecond)
			return int(v*5) % 2, queue.Element{tensor.Scalar(v)}, nil
		}
		p := input.NewPipeline(input.Deterministic(), input.Seed(3))
		batches := StratifiedSampleUnknownDist(p, step, []float64{.5, .5}, 4, Threads(3), ClassCapacity(64))
		if err := p.Start(t.Context()); err != nil {
			t.Fatal(err)
		}
		var s strings.Builder
		for range 20 {
			b, err := batches.Next(t.Context())
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintln(&s, b.Element()[0].Int64s(), b.Element()[1].Int64s())
		}
		p.Stop(t.Context())
		return s.String()
	}
	var runs []string
	for _, procs := range []int{1, 4} {
		prev := runtime.GOMAXPROCS(procs)
		runs = append(runs, run())
		runtime.GOMAXPROCS(prev)
	}
	if runs[0] != runs[1] {
		t.Fatalf("two runs differ:\n%s\n%s", runs[0], runs[1])
	}
}
