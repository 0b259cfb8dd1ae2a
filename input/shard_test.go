package input

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/sluiceml/sluice/queue"
)

// Shard gives each of n workers a disjoint part of the file list; the n
// parts cover it exactly once per epoch, shuffled or not, whatever each
// worker's seed.
func TestShardProducer(t *testing.T) {
	files := make([]string, 10)
	for i := range files {
		files[i] = fmt.Sprintf("file-%02d", i)
	}
	for _, shuffle := range []bool{false, true} {
		for _, n := range []int{1, 3, 10} {
			seen := make(map[string]int)
			for i := range n {
				p := NewPipeline(Seed(uint64(100 + i))) // different seeds on different workers
				q := p.StringInputProducer(files, NumEpochs(2), Shuffle(shuffle), Shard(i, n))
				start(t, p)
				got := strs(dequeueAll(t, q))
				per := len(got) / 2
				for e, epoch := range [][]string{got[:per], got[per:]} {
					sorted := slices.Sorted(slices.Values(epoch))
					var want []string
					for j := i; j < len(files); j += n {
						want = append(want, files[j])
					}
					if !slices.Equal(sorted, want) {
						t.Fatalf("shuffle %v, worker %d of %d, epoch %d: %q, want %q", shuffle, i, n, e, epoch, want)
					}
				}
				for _, f := range got {
					seen[f]++
				}
			}
			for _, f := range files {
				if seen[f] != 2 {
					t.Fatalf("shuffle %v, %d workers: %s delivered %d times in 2 epochs", shuffle, n, f, seen[f])
				}
			}
		}
	}
}

func TestShardProducerInvalid(t *testing.T) {
	for _, tc := range []struct {
		index, count int
		msg          string
	}{
		{0, 0, "shard count must be positive, not 0"},
		{2, 2, "shard index must be between 0 and 1, not 2"},
		{3, 4, "shard 3 of 4 is empty: the input has only 3 items"},
	} {
		p := NewPipeline()
		p.StringInputProducer([]string{"a", "b", "c"}, Shard(tc.index, tc.count))
		// Every refusal wraps the sentinel of arguments out of range.
		if err := p.Start(t.Context()); err == nil || !strings.Contains(err.Error(), tc.msg) || !errors.Is(err, queue.ErrInvalidArgument) {
			t.Errorf("Shard(%d, %d): Start = %v (want %q wrapping queue.ErrInvalidArgument)", tc.index, tc.count, err, tc.msg)
		}
	}
}
