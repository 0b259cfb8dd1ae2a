package coord

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tensor"
)

// With InTurn the steps run one call at a time, in order, whatever their
// timing; a step that ends leaves the rotation.
func TestInTurn(t *testing.T) {
	q, err := queue.NewFIFO(100, []tensor.DType{tensor.Int64})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var log []int
	running := 0
	steps := make([]Step, 3)
	for i := range steps {
		calls := 0
		limit := map[int]int{0: 5, 1: 3, 2: 5}[i]
		steps[i] = func(ctx context.Context) error {
			mu.Lock()
			running++
			if running > 1 {
				t.Errorf("step %d runs beside another", i)
			}
			mu.Unlock()
			time.Sleep(time.Duration(rand.IntN(300)) * time.Microsecond)
			mu.Lock()
			running--
			mu.Unlock()
			if calls == limit {
				return io.EOF
			}
			calls++
			mu.Lock()
			log = append(log, i)
			mu.Unlock()
			return nil
		}
	}
	r, err := NewQueueRunner(q, steps, InTurn())
	if err != nil {
		t.Fatal(err)
	}
	c := New()
	r.Start(t.Context(), c)
	if err := c.Join(t.Context(), time.Minute); err != nil {
		t.Fatal(err)
	}
	want := []int{0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 2, 0, 2}
	if fmt.Sprint(log) != fmt.Sprint(want) {
		t.Errorf("calls in the order %v, want %v", log, want)
	}
}
