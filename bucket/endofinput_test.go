package bucket_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/sluiceml/sluice/bucket"
	"github.com/sluiceml/sluice/input"
	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tensor"
)

// BK-08 and the deliberate difference: at end of input every full batch
// is delivered; the examples left in unfilled buckets are dropped, or with
// AllowSmallerFinalBatch delivered as one smaller batch per bucket, after
// which Next reports end of input. TensorFlow issue 8182's case: 100
// examples in batches of 5 give all 20 batches here, with or without
// AllowSmallerFinalBatch (TensorFlow gave 17: closing its top queue at end
// of input loses what the buckets hold).
func TestBK08EndOfInput(t *testing.T) {
	for _, tc := range []struct {
		name      string
		n         int
		buckets   int
		sizes     []int
		route     func(v int) int
		threads   int
		allow     bool
		want      map[int][]int // bucket -> batch sizes in order
		delivered int
	}{
		{"issue 8182", 100, 2, []int{5}, func(v int) int { return boolInt(v%10 >= 7) }, 1, true,
			map[int][]int{0: {5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5}, 1: {5, 5, 5, 5, 5, 5}}, 100},
		{"issue 8182, full batches only", 100, 2, []int{5}, func(v int) int { return boolInt(v%10 >= 7) }, 1, false,
			map[int][]int{0: {5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5}, 1: {5, 5, 5, 5, 5, 5}}, 100},
		{"partial dropped", 100, 3, []int{5}, mod(3), 1, false,
			map[int][]int{0: {5, 5, 5, 5, 5, 5}, 1: {5, 5, 5, 5, 5, 5}, 2: {5, 5, 5, 5, 5, 5}}, 90},
		{"partial delivered", 100, 3, []int{5}, mod(3), 1, true,
			map[int][]int{0: {5, 5, 5, 5, 5, 5, 4}, 1: {5, 5, 5, 5, 5, 5, 3}, 2: {5, 5, 5, 5, 5, 5, 3}}, 100},
		{"partial delivered, 4 threads", 100, 3, []int{5}, mod(3), 4, true,
			map[int][]int{0: {5, 5, 5, 5, 5, 5, 4}, 1: {5, 5, 5, 5, 5, 5, 3}, 2: {5, 5, 5, 5, 5, 5, 3}}, 100},
		{"per-bucket sizes, allow", 10, 2, []int{3, 7}, mod(2), 1, true,
			map[int][]int{0: {3, 2}, 1: {5}}, 10},
		{"per-bucket sizes, dropped", 10, 2, []int{3, 7}, mod(2), 1, false,
			map[int][]int{0: {3}}, 3},
		// Bucket 2 of 3 never gets an example.
		{"empty bucket", 6, 3, []int{2}, mod(2), 1, true,
			map[int][]int{0: {2, 1}, 1: {2, 1}}, 6},
		{"no input", 0, 2, []int{2}, mod(2), 1, true, map[int][]int{}, 0},
		{"no input, dropped", 0, 2, []int{2}, mod(2), 1, false, map[int][]int{}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := input.NewPipeline()
			opts := []bucket.Option{bucket.Threads(tc.threads), bucket.Capacity(4)}
			if tc.allow {
				opts = append(opts, bucket.AllowSmallerFinalBatch())
			}
			b := bucket.Bucket(p, counter(tc.n, func(v int) (int, queue.Element) {
				return tc.route(v), queue.Element{tensor.Scalar(int64(v))}
			}), tc.sizes, tc.buckets, opts...)
			sizes := map[int][]int{}
			delivered := 0
			last := map[int]int64{}
			for _, g := range drain(t, p, nextOf(b)) {
				vs := g.batch.Component(0).Int64s()
				sizes[g.id] = append(sizes[g.id], len(vs))
				delivered += len(vs)
				if tc.threads == 1 {
					// One goroutine: each bucket's examples in input order.
					for _, v := range vs {
						if prev, ok := last[g.id]; ok && v <= prev {
							t.Errorf("bucket %d: %d after %d", g.id, v, prev)
						}
						last[g.id] = v
					}
				}
			}
			if fmt.Sprint(sizes) != fmt.Sprint(tc.want) {
				t.Errorf("batch sizes %v, want %v", sizes, tc.want)
			}
			if delivered != tc.delivered {
				t.Errorf("%d examples delivered, want %d", delivered, tc.delivered)
			}
		})
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// mod routes example v to bucket v % k.
func mod(k int) func(int) int { return func(v int) int { return v % k } }

// After end of input, Next keeps reporting it.
func TestEOFRepeats(t *testing.T) {
	p := input.NewPipeline()
	b := bucket.Bucket(p, counter(3, func(v int) (int, queue.Element) {
		return 0, queue.Element{tensor.Scalar(int64(v))}
	}), []int{2}, 1, bucket.AllowSmallerFinalBatch())
	got := drain(t, p, nextOf(b))
	if sizes := []int{got[0].batch.Len(), got[1].batch.Len()}; len(got) != 2 || !slices.Equal(sizes, []int{2, 1}) {
		t.Fatalf("got %d batches, want sizes [2 1]", len(got))
	}
	for range 2 {
		if _, _, err := b.Next(t.Context()); !isEOF(err) {
			t.Errorf("Next after end of input: %v, want io.EOF", err)
		}
	}
}
