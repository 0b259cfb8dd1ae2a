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

// BSL-02: boundaries [3,4,5,10] and lengths from {1,3,4,5,6,10}: length
// 1 goes into bucket 0, 3 into 1, 4 into 2, 5 and 6 into 3, 10 into 4;
// batches of 8 hold data [8,4] and labels [8,3] whose rows agree with
// their lengths; 500 inputs give at least TensorFlow's 50 batches.
func TestBSL02Buckets(t *testing.T) {
	lengths := []int{1, 3, 4, 5, 6, 10}
	bucketOf := map[int]int{1: 0, 3: 1, 4: 2, 5: 3, 6: 3, 10: 4}
	p := input.NewPipeline()
	b := bucket.BySequenceLength(p, lengthCounter(500, func(v int) (int, queue.Element) {
		n := lengths[v%len(lengths)]
		data := []int64{int64(n), int64(n), int64(n), int64(n)}
		label := []string{fmt.Sprint(n), fmt.Sprint(n), fmt.Sprint(n)}
		return n, queue.Element{tensor.New(data), tensor.Strings(label...)}
	}), []int{3, 4, 5, 10}, []int{8}, bucket.Threads(3), bucket.Names("data", "label"))
	got := drain(t, p, nextLen(b))
	// 84, 84, 83, 166 and 83 examples per bucket: 10+10+10+20+10 batches.
	if len(got) != 60 {
		t.Errorf("%d batches, want 60", len(got))
	}
	for _, g := range got {
		if len(g.lengths) != 8 {
			t.Fatalf("lengths %v, want 8 of them", g.lengths)
		}
		data, label := g.batch.Tensor("data"), g.batch.Tensor("label")
		if !data.Shape().Equal(tensor.Shape{8, 4}) || !label.Shape().Equal(tensor.Shape{8, 3}) {
			t.Fatalf("shapes %v %v, want [8,4] [8,3]", data.Shape(), label.Shape())
		}
		for i, n := range g.lengths {
			if bucketOf[n] != bucketOf[g.lengths[0]] {
				t.Errorf("lengths %v mix buckets", g.lengths)
			}
			if d := data.Row(i).Int64s(); d[0] != int64(n) || d[3] != int64(n) {
				t.Errorf("row %d: length %d, data %v", i, n, d)
			}
			if l := label.Row(i).Strings(); string(l[2]) != fmt.Sprint(n) {
				t.Errorf("row %d: length %d, label %q", i, n, l)
			}
		}
	}
}

// BSL-01, BSL-03 with dynamic pad: sentences of lengths 0..39 bucketed by
// [10, 20, 30] come back with their lengths, without the length among the
// components, padded only to the longest sentence of their batch.
func TestBSL03DynamicPad(t *testing.T) {
	for _, allow := range []bool{false, true} {
		t.Run(fmt.Sprint("allow=", allow), func(t *testing.T) {
			p := input.NewPipeline()
			opts := []bucket.Option{bucket.DynamicPad()}
			if allow {
				opts = append(opts, bucket.AllowSmallerFinalBatch())
			}
			// Lengths 0..39, each three times, shuffled by a stride.
			b := bucket.BySequenceLength(p, lengthCounter(120, func(v int) (int, queue.Element) {
				n := (v * 7) % 40
				tokens := make([]int32, n)
				for i := range tokens {
					tokens[i] = int32(n)
				}
				return n, queue.Element{tensor.New(tokens, n)}
			}), []int{10, 20, 30}, []int{4}, opts...)
			total := 0
			for _, g := range drain(t, p, nextLen(b)) {
				x := g.batch.Component(0)
				if len(g.batch.Element()) != 1 {
					t.Fatalf("%d components, want 1 (the length is returned apart)", len(g.batch.Element()))
				}
				lo := slices.Min(g.lengths) / 10 * 10
				longest := slices.Max(g.lengths)
				if longest >= lo+10 {
					t.Errorf("lengths %v span buckets", g.lengths)
				}
				if !x.Shape().Equal(tensor.Shape{len(g.lengths), longest}) {
					t.Errorf("lengths %v: shape %v, want [%d,%d]", g.lengths, x.Shape(), len(g.lengths), longest)
				}
				for i, n := range g.lengths {
					row := x.Row(i).Int32s()
					for k, tok := range row {
						if want := int32(n) * int32(boolInt(k < n)); tok != want {
							t.Fatalf("row of length %d: %v", n, row)
						}
					}
				}
				total += len(g.lengths)
			}
			// 30 examples per bucket: 7 full batches each, and 2 left.
			if want := map[bool]int{false: 112, true: 120}[allow]; total != want {
				t.Errorf("%d examples, want %d", total, want)
			}
		})
	}
}

// Per-bucket batch sizes and keep_input with BySequenceLength: KeepInput
// gets the length.
func TestBySequenceLengthSizesAndKeep(t *testing.T) {
	p := input.NewPipeline()
	b := bucket.BySequenceLength(p, lengthCounter(40, func(v int) (int, queue.Element) {
		return v, queue.Element{tensor.Scalar(int64(v))}
	}), []int{10, 20}, []int{2, 5, 10},
		bucket.KeepInput(func(n int, _ queue.Element) bool { return n%2 == 0 }))
	sizes := map[int][]int{}
	for _, g := range drain(t, p, nextLen(b)) {
		for i, n := range g.lengths {
			if n%2 != 0 {
				t.Errorf("odd length %d kept", n)
			}
			if v := g.batch.Component(0).Int64s()[i]; v != int64(n) {
				t.Errorf("length %d with example %d", n, v)
			}
		}
		first := g.lengths[0] / 10
		sizes[min(first, 2)] = append(sizes[min(first, 2)], len(g.lengths))
	}
	// Evens: 5 below 10 (2,2 and 1 dropped), 5 in 10..19 (one 5), 10 at
	// 20 and above (one 10).
	if want := map[int][]int{0: {2, 2}, 1: {5}, 2: {10}}; fmt.Sprint(sizes) != fmt.Sprint(want) {
		t.Errorf("batch sizes %v, want %v", sizes, want)
	}
}

// BySequenceLength's queues are named as TensorFlow names them, under its
// own scope and then bucket's.
func TestBySequenceLengthQueueNames(t *testing.T) {
	for _, tc := range []struct {
		opts []bucket.Option
		want []string
	}{
		{nil, []string{"bucket_by_sequence_length/bucket/bucket_queue_0", "bucket_by_sequence_length/bucket/bucket_queue_1",
			"bucket_by_sequence_length/bucket/top_queue"}},
		{[]bucket.Option{bucket.Name("words")}, []string{"words/bucket/bucket_queue_0", "words/bucket/bucket_queue_1",
			"words/bucket/top_queue"}},
	} {
		p := input.NewPipeline()
		b := bucket.BySequenceLength(p, lengthCounter(0, nil), []int{5}, []int{1}, tc.opts...)
		var names []string
		for _, m := range p.Metrics() {
			names = append(names, m.Name)
		}
		if !slices.Equal(names, tc.want) || b.Queue().Name() != tc.want[2] {
			t.Errorf("queues %q (top %q), want %q", names, b.Queue().Name(), tc.want)
		}
		drain(t, p, nextLen(b))
	}
}
