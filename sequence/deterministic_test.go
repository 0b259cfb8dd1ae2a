package sequence_test

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
	"github.com/sluiceml/sluice/sequence"
	"github.com/sluiceml/sluice/tensor"
)

// In a Deterministic pipeline, BatchSequencesWithStates' prefetch threads
// insert examples in turn: the batches are the same on every run.
func TestBatchSequencesDeterministic(t *testing.T) {
	run := func() string {
		var mu sync.Mutex
		next := 0
		step := func(context.Context) (sequence.Input, error) {
			time.Sleep(time.Duration(rand.IntN(200)) * time.Microsecond)
			mu.Lock()
			i := next
			next++
			mu.Unlock()
			if i >= 40 {
				return sequence.Input{}, io.EOF
			}
			seq := make([]int64, 1+i%5)
			for j := range seq {
				seq[j] = int64(100*i + j)
			}
			return sequence.Input{Key: fmt.Sprintf("ex%02d", i), Length: sequence.InferLength,
				Sequences: map[string]tensor.Tensor{"x": tensor.New(seq)}}, nil
		}
		p := input.NewPipeline(input.Deterministic())
		batches := sequence.BatchSequencesWithStates(p, step, map[string]tensor.Tensor{"n": tensor.Scalar[int32](0)}, 2, 3, sequence.Threads(3))
		if err := p.Start(t.Context()); err != nil {
			t.Fatal(err)
		}
		var s strings.Builder
		for {
			b, err := batches.Next(t.Context())
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintln(&s, b.Key(), b.Sequences("x").Int64s())
			if err := b.SaveState(t.Context(), "n", b.State("n")); err != nil {
				t.Fatal(err)
			}
		}
		if err := p.Join(t.Context()); err != nil {
			t.Fatal(err)
		}
		return s.String()
	}
	var runs []string
	for _, procs := range []int{1, 4} {
		prev := runtime.GOMAXPROCS(procs)
		runs = append(runs, run())
		runtime.GOMAXPROCS(prev)
	}
	if runs[0] != runs[1] {
		t.Errorf("two runs differ:\n%s\n%s", runs[0], runs[1])
	}
}
