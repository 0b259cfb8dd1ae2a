package bucket_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/sluiceml/sluice/bucket"
	"github.com/sluiceml/sluice/input"
	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tensor"
)

// dump formats a batch's components, shapes and values, to compare
// batches after their memory has been reused.
func dump(lengths []int, b input.Batch) string {
	var s strings.Builder
	fmt.Fprint(&s, lengths)
	for i, c := range b.Element() {
		fmt.Fprintf(&s, " %d:%v%v", i, c.Shape(), c.DType())
		if c.DType() == tensor.String {
			fmt.Fprintf(&s, "%q", c.Strings())
		} else {
			fmt.Fprint(&s, c.Data())
		}
	}
	return s.String()
}

// memory returns where the values of a batch's first component start.
func memory(b input.Batch) uintptr {
	return reflect.ValueOf(b.Component(0).Data()).Pointer()
}

// A stage under test: how it is built and how each way of reading it
// takes a batch (keep: Next; reuse: NextInto, handing back the last).
type intoStage struct {
	next func(ctx context.Context, dst input.Batch, into bool) ([]int, input.Batch, error)
}

func bucketStage(b *bucket.Buckets) intoStage {
	return intoStage{func(ctx context.Context, dst input.Batch, into bool) ([]int, input.Batch, error) {
		var id int
		var batch input.Batch
		var err error
		if into {
			id, batch, err = b.NextInto(ctx, dst)
		} else {
			id, batch, err = b.Next(ctx)
		}
		return []int{id}, batch, err
	}}
}

func lengthStage(b *bucket.SequenceBuckets) intoStage {
	return intoStage{func(ctx context.Context, dst input.Batch, into bool) ([]int, input.Batch, error) {
		if into {
			return b.NextInto(ctx, dst)
		}
		return b.Next(ctx)
	}}
}

// TestNextIntoSameBatches: a consumer that hands back every batch gets
// the batches, bit for bit, of one that keeps them, for fixed and padded
// shapes, numbers and strings, with and without short final batches, and
// for Bucket and BySequenceLength (a deterministic pipeline's batches
// come in one order).
func TestNextIntoSameBatches(t *testing.T) {
	const n = 300
	// Example v: a sequence of length 1 + v*7%23 (all of them 3 long
	// without padding), bucket v%3 for Bucket.
	length := func(v int, pad bool) int {
		if !pad {
			return 3
		}
		return 1 + v*7%23
	}
	numbers := func(pad bool) func(v int) (int, queue.Element) {
		return func(v int) (int, queue.Element) {
			l := length(v, pad)
			return l, queue.Element{fill(v, l), tensor.Scalar(float32(v))}
		}
	}
	words := func(pad bool) func(v int) (int, queue.Element) {
		return func(v int) (int, queue.Element) {
			l := length(v, pad)
			w := make([]string, l)
			for i := range w {
				w[i] = fmt.Sprint(v, "/", i)
			}
			return l, queue.Element{tensor.Strings(w...)}
		}
	}
	byID := func(make func(v int) (int, queue.Element)) func(v int) (int, queue.Element) {
		return func(v int) (int, queue.Element) {
			_, e := make(v)
			return v % 3, e
		}
	}
	tests := []struct {
		name  string
		build func(p *input.Pipeline, opts ...bucket.Option) intoStage
		opts  []bucket.Option
	}{
		{"bucket/fixed", func(p *input.Pipeline, opts ...bucket.Option) intoStage {
			return bucketStage(bucket.Bucket(p, counter(n, byID(numbers(false))), []int{4, 5, 6}, 3, opts...))
		}, nil},
		{"bucket/fixed/smaller", func(p *input.Pipeline, opts ...bucket.Option) intoStage {
			return bucketStage(bucket.Bucket(p, counter(n, byID(numbers(false))), []int{7}, 3, opts...))
		}, []bucket.Option{bucket.AllowSmallerFinalBatch()}},
		{"bucket/padded", func(p *input.Pipeline, opts ...bucket.Option) intoStage {
			return bucketStage(bucket.Bucket(p, counter(n, byID(numbers(true))), []int{4, 5, 6}, 3, opts...))
		}, []bucket.Option{bucket.DynamicPad(), bucket.AllowSmallerFinalBatch()}},
		{"bucket/strings", func(p *input.Pipeline, opts ...bucket.Option) intoStage {
			return bucketStage(bucket.Bucket(p, counter(n, byID(words(true))), []int{4}, 3, opts...))
		}, []bucket.Option{bucket.DynamicPad()}},
		{"length/padded", func(p *input.Pipeline, opts ...bucket.Option) intoStage {
			return lengthStage(bucket.BySequenceLength(p, lengthCounter(n, numbers(true)), []int{5, 10, 20}, []int{3, 4, 5, 6}, opts...))
		}, []bucket.Option{bucket.DynamicPad(), bucket.AllowSmallerFinalBatch()}},
		{"length/fixed", func(p *input.Pipeline, opts ...bucket.Option) intoStage {
			return lengthStage(bucket.BySequenceLength(p, lengthCounter(n, numbers(false)), []int{2, 4}, []int{8}, opts...))
		}, []bucket.Option{bucket.AllowSmallerFinalBatch()}},
		{"length/strings", func(p *input.Pipeline, opts ...bucket.Option) intoStage {
			return lengthStage(bucket.BySequenceLength(p, lengthCounter(n, words(true)), []int{8}, []int{5}, opts...))
		}, []bucket.Option{bucket.DynamicPad(), bucket.Names("words")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := func(into bool) []string {
				p := input.NewPipeline(input.Deterministic())
				s := tt.build(p, append([]bucket.Option{bucket.Threads(2), bucket.Capacity(8)}, tt.opts...)...)
				var out []string
				var b input.Batch
				seen := map[uintptr]bool{} // the memory of batches handed back
				reused := 0
				drain(t, p, func(ctx context.Context) (got, error) {
					if into && b.Len() > 0 {
						seen[memory(b)] = true
					}
					lengths, batch, err := s.next(ctx, b, into)
					if err == nil {
						b = batch
						out = append(out, dump(lengths, batch))
						if seen[memory(batch)] {
							reused++
						}
					}
					return got{}, err
				})
				if into && reused < len(out)/2 {
					t.Errorf("NextInto: %d of %d batches over the memory of one handed back", reused, len(out))
				}
				return out
			}
			keep, reuse := run(false), run(true)
			if len(keep) == 0 {
				t.Fatal("no batches")
			}
			if len(reuse) != len(keep) {
				t.Fatalf("NextInto: %d batches, Next %d", len(reuse), len(keep))
			}
			for i := range keep {
				if reuse[i] != keep[i] {
					t.Fatalf("batch %d: NextInto\n%s\nNext\n%s", i, reuse[i], keep[i])
				}
			}
		})
	}
}

// TestNextIntoKeepsOtherBatches: handing a batch back recycles that batch
// only. Batches the consumer keeps (from Next, or from NextInto with a
// zero Batch) and a batch of another stage handed back keep their values
// while the stage goes on.
func TestNextIntoKeepsOtherBatches(t *testing.T) {
	const n = 400
	example := func(v int) (int, queue.Element) { return v % 2, queue.Element{fill(v, 1+v%5)} }
	p := input.NewPipeline()
	s := bucket.Bucket(p, counter(n, example), []int{4}, 2, bucket.DynamicPad(), bucket.Capacity(2))
	other := bucket.Bucket(p, counter(8, example), []int{4}, 2, bucket.DynamicPad())
	ctx := t.Context()
	if err := p.Start(ctx); err != nil {
		t.Fatal(err)
	}
	_, foreign, err := other.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	foreignWas := dump(nil, foreign)
	type kept struct {
		b    input.Batch
		want string
	}
	var keep []kept
	var last input.Batch
	seen := map[int]bool{}
	for i := 0; ; i++ {
		var b input.Batch
		var err error
		switch i % 4 {
		case 0:
			_, b, err = s.Next(ctx)
		case 1:
			_, b, err = s.NextInto(ctx, input.Batch{})
		case 2:
			_, b, err = s.NextInto(ctx, foreign)
		default:
			_, b, err = s.NextInto(ctx, last)
		}
		if isEOF(err) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		// Every example whole and delivered once, whatever memory its
		// batch reused.
		c := b.Component(0)
		w := c.Shape()[1]
		for r := range c.Len() {
			row := c.Int64s()[r*w : (r+1)*w]
			v := int(row[0])
			if seen[v] {
				t.Fatalf("example %d delivered twice", v)
			}
			seen[v] = true
			for j, x := range row {
				want := int64(v)
				if j >= 1+v%5 {
					want = 0 // padding
				}
				if x != want {
					t.Fatalf("example %d: row %v", v, row)
				}
			}
		}
		if i%4 == 3 {
			last = b
			continue
		}
		keep = append(keep, kept{b, dump(nil, b)})
		if i%4 == 2 {
			last = b
			keep = keep[:len(keep)-1] // handed back next
		}
	}
	if len(keep) < n/4/2 {
		t.Fatalf("%d batches kept", len(keep))
	}
	for _, k := range append(keep, kept{foreign, foreignWas}) {
		if got := dump(nil, k.b); got != k.want {
			t.Fatalf("a kept batch changed: %s, was %s", got, k.want)
		}
	}
	if err := p.Stop(ctx); err != nil {
		t.Fatal(err)
	}
}

// waitAllocs bounds the allocations a batch of a stage in its steady state
// that allocates nothing per example: a call that waits makes an attempt
// and its channel, and each of the goroutines (the consumer, the movers
// and the steps' runners) waits at most once a batch.
func waitAllocs(goroutines int) float64 { return float64(2 * goroutines) }

// steadyAllocs takes batches from..to-1 with next, after taking the first
// from of them to reach the steady state, and returns the allocations a
// batch among them.
func steadyAllocs(t *testing.T, next func(ctx context.Context) error, from, to int) float64 {
	t.Helper()
	var m0, m1 runtime.MemStats
	for i := range to {
		if i == from {
			runtime.ReadMemStats(&m0)
		}
		if err := next(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&m1)
	return float64(m1.Mallocs-m0.Mallocs) / float64(to-from)
}

// TestNextIntoSteadyAllocs: once running, a bucketing stage whose step
// allocates nothing and whose consumer hands back every batch allocates
// nothing per example, padded or not (issue 18: at most 0.05
// allocations an example); all that is left is the goroutines' waits.
// Each bucket's padded batches keep one shape here (every batch holds
// its bucket's longest sequence), as they mostly do in a bucket: a new
// shape costs a tensor over the old memory.
func TestNextIntoSteadyAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	const from, to = 200, 1200
	// Lengths 1..30 in turn, each made once: with boundaries [10, 20]
	// and batches of 9, 10 and 11, every batch of a bucket holds one of
	// each of its lengths.
	seqs := make([]queue.Element, 31)
	for l := 1; l <= 30; l++ {
		seqs[l] = queue.Element{fill(l, l), tensor.Scalar(float32(l))}
	}
	endless := func() func(context.Context) (int, queue.Element, error) {
		v := 0
		return func(context.Context) (int, queue.Element, error) {
			v = v%30 + 1
			return v, seqs[v], nil
		}
	}
	// Four components, so that a batch made anew (2 allocations each)
	// would exceed the bound.
	fixed := make([]queue.Element, 2)
	for i := range fixed {
		fixed[i] = queue.Element{tensor.Zeros(tensor.Float32, tensor.Shape{16}), tensor.Zeros(tensor.Int64, tensor.Shape{}),
			tensor.Zeros(tensor.Uint8, tensor.Shape{4, 4}), tensor.Zeros(tensor.Int32, tensor.Shape{2})}
	}
	tests := []struct {
		name    string
		buckets int
		build   func(p *input.Pipeline) func(context.Context) error
	}{
		{"BySequenceLength/DynamicPad", 3, func(p *input.Pipeline) func(context.Context) error {
			s := bucket.BySequenceLength(p, endless(), []int{10, 20}, []int{9, 10, 11},
				bucket.DynamicPad(), bucket.Capacity(4), bucket.BucketCapacities(32, 32, 32))
			var b input.Batch
			return func(ctx context.Context) (err error) {
				_, b, err = s.NextInto(ctx, b)
				return err
			}
		}},
		{"Bucket", 2, func(p *input.Pipeline) func(context.Context) error {
			v := 0
			step := func(context.Context) (int, queue.Element, error) {
				v++
				return v % 2, fixed[v%2], nil
			}
			s := bucket.Bucket(p, step, []int{32}, 2, bucket.Capacity(4), bucket.BucketCapacities(64, 64))
			var b input.Batch
			return func(ctx context.Context) (err error) {
				_, b, err = s.NextInto(ctx, b)
				return err
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := input.NewPipeline()
			next := tt.build(p)
			if err := p.Start(t.Context()); err != nil {
				t.Fatal(err)
			}
			defer func() {
				if err := p.Stop(context.Background()); err != nil && !errors.Is(err, io.EOF) {
					t.Error(err)
				}
			}()
			// The consumer, a mover per bucket, one step runner.
			per, most := steadyAllocs(t, next, from, to), waitAllocs(1+tt.buckets+1)
			if per > most {
				t.Errorf("%.2f allocations a batch in the steady state, want at most %.0f (nothing but the waits)", per, most)
			} else {
				t.Logf("%.2f allocations a batch", per)
			}
		})
	}
}
