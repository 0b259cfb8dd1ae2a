package bucket_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/sluiceml/sluice/bucket"
	"github.com/sluiceml/sluice/input"
	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tensor"
)

// BK-01: one queue per bucket, of Capacity or BucketCapacities[i]
// examples, and a top queue of Capacity batches, all reported by the
// pipeline's metrics.
func TestBK01Queues(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts []bucket.Option
		want map[string]int // queue name -> capacity
	}{
		{"default", nil, map[string]int{
			"bucket/bucket_queue_0": 32, "bucket/bucket_queue_1": 32, "bucket/bucket_queue_2": 32, "bucket/top_queue": 32}},
		{"capacity", []bucket.Option{bucket.Capacity(7), bucket.Name("b")}, map[string]int{
			"b/bucket_queue_0": 7, "b/bucket_queue_1": 7, "b/bucket_queue_2": 7, "b/top_queue": 7}},
		{"bucket capacities", []bucket.Option{bucket.BucketCapacities(1, 2, 3)}, map[string]int{
			"bucket/bucket_queue_0": 1, "bucket/bucket_queue_1": 2, "bucket/bucket_queue_2": 3, "bucket/top_queue": 32}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := input.NewPipeline()
			b := bucket.Bucket(p, counter(30, func(v int) (int, queue.Element) {
				return v % 3, queue.Element{tensor.Scalar(int64(v))}
			}), []int{2}, 3, tc.opts...)
			got := map[string]int{}
			for _, m := range p.Metrics() {
				got[m.Name] = m.Capacity
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("queues %v, want %v", got, tc.want)
			}
			if n := len(drain(t, p, nextOf(b))); n != 15 {
				t.Errorf("%d batches, want 15", n)
			}
		})
	}
}

// BK-03: every example into bucket 0 of 2, batch 32, 10 threads, dynamic
// pad: one batch from bucket 0 holding all 32 examples, the vectors padded
// to the longest (31) with zeros, the strings intact.
func TestBK03SingleBucketDynamicPad(t *testing.T) {
	p := input.NewPipeline()
	b := bucket.Bucket(p, counter(32, func(v int) (int, queue.Element) {
		return 0, queue.Element{
			tensor.Scalar(int32(v)),
			fill(v, v),
			tensor.Strings("a", "b", fmt.Sprint(v)),
		}
	}), []int{32}, 2, bucket.Threads(10), bucket.DynamicPad())
	got := drain(t, p, nextOf(b))
	if len(got) != 1 || got[0].id != 0 {
		t.Fatalf("got %d batches (%v), want one from bucket 0", len(got), got)
	}
	batch := got[0].batch
	ints, mat, strs := batch.Component(0), batch.Component(1), batch.Component(2)
	if !mat.Shape().Equal(tensor.Shape{32, 31}) || !strs.Shape().Equal(tensor.Shape{32, 3}) {
		t.Fatalf("shapes %v %v, want [32,31] [32,3]", mat.Shape(), strs.Shape())
	}
	// The threads race, so sort the rows by v as TensorFlow's test does.
	order := make([]int, 32)
	for i := range order {
		order[i] = i
	}
	vs := ints.Int32s()
	sort.Slice(order, func(i, j int) bool { return vs[order[i]] < vs[order[j]] })
	for v, row := range order {
		if int(vs[row]) != v {
			t.Fatalf("sorted ints[%d] = %d", v, vs[row])
		}
		want := make([]int64, 31)
		for k := range v {
			want[k] = int64(v)
		}
		if r := mat.Row(row).Int64s(); !slices.Equal(r, want) {
			t.Errorf("row for %d = %v, want %v", v, r, want)
		}
		s := strs.Row(row).Strings()
		if string(s[0]) != "a" || string(s[1]) != "b" || string(s[2]) != fmt.Sprint(v) {
			t.Errorf("strings for %d = %q", v, s)
		}
	}
}

// BK-04: batch sizes per bucket: [5, 10] with 0..4 into bucket 0 and
// 5..14 into bucket 1 gives one batch of each size.
func TestBK04PerBucketBatchSizes(t *testing.T) {
	p := input.NewPipeline()
	b := bucket.Bucket(p, counter(15, func(v int) (int, queue.Element) {
		return min(v/5, 1), queue.Element{tensor.Scalar(int64(v))}
	}), []int{5, 10}, 2)
	gs := drain(t, p, nextOf(b))
	if len(gs) != 2 {
		t.Fatalf("%d batches, want 2", len(gs))
	}
	slices.SortFunc(gs, func(x, y got) int { return x.id - y.id })
	for i, want := range [][]int64{{0, 1, 2, 3, 4}, {5, 6, 7, 8, 9, 10, 11, 12, 13, 14}} {
		if gs[i].id != i || !slices.Equal(gs[i].batch.Component(0).Int64s(), want) {
			t.Errorf("batch %d: bucket %d %v, want bucket %d %v", i, gs[i].id, gs[i].batch.Component(0).Int64s(), i, want)
		}
	}
}

// BK-05: evens into bucket 0, odds into bucket 1: each batch holds one
// parity only, padded to its own longest vector (62 and 63).
func TestBK05EvenOdd(t *testing.T) {
	p := input.NewPipeline()
	b := bucket.Bucket(p, counter(64, func(v int) (int, queue.Element) {
		return v % 2, queue.Element{tensor.Scalar(int64(v)), fill(v, v)}
	}), []int{32}, 2, bucket.DynamicPad())
	got := drain(t, p, nextOf(b))
	if len(got) != 2 {
		t.Fatalf("%d batches, want 2", len(got))
	}
	for _, g := range got {
		var want []int64
		for v := g.id; v < 64; v += 2 {
			want = append(want, int64(v))
		}
		if vs := g.batch.Component(0).Int64s(); !slices.Equal(vs, want) {
			t.Errorf("bucket %d holds %v, want %v", g.id, vs, want)
		}
		if w := g.batch.Component(1).Shape()[1]; w != 62+g.id {
			t.Errorf("bucket %d padded to width %d, want %d", g.id, w, 62+g.id)
		}
	}
}

// BK-06: keep_input = (bucket == 0) over 0..127 with even/odd buckets:
// two batches, both from bucket 0, holding exactly the evens.
func TestBK06KeepInput(t *testing.T) {
	p := input.NewPipeline()
	b := bucket.Bucket(p, counter(128, func(v int) (int, queue.Element) {
		return v % 2, queue.Element{tensor.Scalar(int64(v)), fill(v, v)}
	}), []int{32}, 2, bucket.DynamicPad(),
		bucket.KeepInput(func(id int, _ queue.Element) bool { return id == 0 }))
	got := drain(t, p, nextOf(b))
	if len(got) != 2 {
		t.Fatalf("%d batches, want 2", len(got))
	}
	var all []int64
	for _, g := range got {
		if g.id != 0 {
			t.Errorf("batch from bucket %d", g.id)
		}
		all = append(all, g.batch.Component(0).Int64s()...)
	}
	for i, v := range all {
		if v != int64(2*i) {
			t.Fatalf("kept %v, want 0, 2, ..., 126", all)
		}
	}
}

// BK-07: with many goroutines and buckets, every batch comes from the
// bucket its id names, and every example arrives once.
func TestBK07BatchesNeverMix(t *testing.T) {
	const n, buckets, size = 600, 3, 10
	p := input.NewPipeline()
	b := bucket.Bucket(p, counter(n, func(v int) (int, queue.Element) {
		return v % buckets, queue.Element{tensor.Scalar(int64(v))}
	}), []int{size}, buckets, bucket.Threads(4), bucket.Capacity(4))
	seen := make([]bool, n)
	for _, g := range drain(t, p, nextOf(b)) {
		vs := g.batch.Component(0).Int64s()
		if len(vs) != size {
			t.Errorf("batch of %d, want %d", len(vs), size)
		}
		for _, v := range vs {
			if int(v)%buckets != g.id {
				t.Errorf("%d in a batch of bucket %d", v, g.id)
			}
			if seen[v] {
				t.Errorf("%d seen twice", v)
			}
			seen[v] = true
		}
	}
	if i := slices.Index(seen, false); i >= 0 {
		t.Errorf("%d never arrived", i)
	}
}

// BK-09: TensorFlow's static batch dimension has no Go counterpart; the
// batch dimension of every batch is its bucket's batch size, except the
// last batch of a bucket with AllowSmallerFinalBatch.
func TestBK09BatchDimension(t *testing.T) {
	p := input.NewPipeline()
	b := bucket.Bucket(p, counter(23, func(v int) (int, queue.Element) {
		return v % 2, queue.Element{tensor.New([]float32{float32(v), 0})}
	}), []int{3, 4}, 2, bucket.AllowSmallerFinalBatch())
	sizes := map[int][]int{}
	for _, g := range drain(t, p, nextOf(b)) {
		x := g.batch.Component(0)
		if x.Rank() != 2 || x.Shape()[1] != 2 {
			t.Errorf("shape %v, want [n,2]", x.Shape())
		}
		sizes[g.id] = append(sizes[g.id], x.Len())
	}
	// Bucket 0 gets the 12 evens in threes, bucket 1 the 11 odds in fours.
	if want := map[int][]int{0: {3, 3, 3, 3}, 1: {4, 4, 3}}; fmt.Sprint(sizes) != fmt.Sprint(want) {
		t.Errorf("batch sizes %v, want %v", sizes, want)
	}
}

// Names lets a batch be read by component name. A step that declares its
// names (input.Named) has them matched to Names by name; one that does not
// must have Names sorted, else the stage fails rather than put one
// component's values under another's name.
func TestNames(t *testing.T) {
	// step returns "s" then "v", as Example parsing lays them out, or
	// the other way round, declared.
	step := func(declare bool) func(context.Context) (int, queue.Element, error) {
		var mu sync.Mutex
		next := 0
		return func(ctx context.Context) (int, queue.Element, error) {
			mu.Lock()
			defer mu.Unlock()
			if next == 4 {
				return 0, nil, io.EOF
			}
			v := next
			next++
			sv, vv := tensor.StringScalar(fmt.Sprint("s", v)), tensor.Scalar(int64(v))
			if declare {
				return 0, input.Named(ctx, queue.Element{vv, sv}, "v", "s"), nil
			}
			return 0, queue.Element{sv, vv}, nil
		}
	}
	stages := map[string]func(p *input.Pipeline, declare bool, opts ...bucket.Option) func(context.Context) (got, error){
		"Bucket": func(p *input.Pipeline, declare bool, opts ...bucket.Option) func(context.Context) (got, error) {
			return nextOf(bucket.Bucket(p, step(declare), []int{4}, 1, opts...))
		},
		"BySequenceLength": func(p *input.Pipeline, declare bool, opts ...bucket.Option) func(context.Context) (got, error) {
			return nextLen(bucket.BySequenceLength(p, step(declare), []int{10}, []int{4}, opts...))
		},
	}
	cases := []struct {
		name    string
		declare bool
		opts    []bucket.Option
		wantErr string
	}{
		{"undeclared, sorted Names", false, []bucket.Option{bucket.Names("s", "v")}, ""},
		{"declared, Names in another order", true, []bucket.Option{bucket.Names("s", "v")}, ""},
		{"declared, no Names", true, nil, ""},
		{"undeclared, unsorted Names", false, []bucket.Option{bucket.Names("v", "s")}, `Names ["v" "s"] is not in sorted order`},
		{"declared, other Names", true, []bucket.Option{bucket.Names("s", "w")}, `the step's components are named ["v" "s"], but the stage's names are ["s" "w"]`},
	}
	for name, build := range stages {
		for _, c := range cases {
			t.Run(name+"/"+c.name, func(t *testing.T) {
				p := input.NewPipeline()
				next := build(p, c.declare, c.opts...)
				if c.wantErr != "" {
					if err := p.Start(t.Context()); err != nil {
						t.Fatal(err)
					}
					_, err := next(t.Context())
					p.Stop(t.Context())
					if err == nil || !strings.Contains(err.Error(), c.wantErr) {
						t.Fatalf("error %v, want one saying %q", err, c.wantErr)
					}
					return
				}
				got := drain(t, p, next)
				if len(got) != 1 {
					t.Fatalf("%d batches, want 1", len(got))
				}
				if v := got[0].batch.Int64("v"); !slices.Equal(v, []int64{0, 1, 2, 3}) {
					t.Errorf("v = %v", v)
				}
				if s := got[0].batch.Strings("s"); !bytes.Equal(s[3], []byte("s3")) {
					t.Errorf("s = %q", s)
				}
			})
		}
	}
}
