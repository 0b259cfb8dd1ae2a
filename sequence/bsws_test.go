package sequence

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/sluiceml/sluice/input"
	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tensor"
)

// The example of TensorFlow's batch_sequences_with_states_test, with fixed
// values in place of random ones: value length 4, dense seq1 [4,5] and
// seq2 [4,4,2], sparse seq3 [4,6] and seq4 [4,3,4], context1 [3,4] and a
// sparse context [5,12].
func bswsInput(key string, length int) Input {
	return Input{
		Key:       key,
		Length:    length,
		Sequences: map[string]tensor.Tensor{"seq1": ramp(0, 4, 5), "seq2": ramp(100, 4, 4, 2)},
		SparseSequences: map[string]tensor.Sparse{
			"seq3": {
				Indices:    tensor.New([]int64{0, 0, 1, 0, 1, 3, 1, 4, 3, 2, 3, 3}, 6, 2),
				Values:     tensor.New([]int64{0, 10, 13, 14, 32, 33}),
				DenseShape: tensor.Shape{4, 6},
			},
			"seq4": {
				Indices: tensor.New([]int64{0, 0, 1, 0, 1, 0, 0, 1, 2, 1, 0, 3,
					1, 1, 0, 1, 1, 1, 1, 1, 2, 1, 2, 2}, 8, 3),
				Values:     tensor.New([]int64{1, 10, 12, 103, 150, 149, 150, 122}),
				DenseShape: tensor.Shape{4, 3, 4},
			},
		},
		Context: map[string]tensor.Tensor{"context1": tensor.New([]int32{3, 4})},
		SparseContext: map[string]tensor.Sparse{"sp_context": {
			Indices:    tensor.New([]int64{1, 9, 2, 2, 2, 10}, 3, 2),
			Values:     tensor.New([]int64{7, 15, 2}),
			DenseShape: tensor.Shape{5, 12},
		}},
	}
}

func bswsStates() map[string]tensor.Tensor {
	return map[string]tensor.Tensor{"state1": ramp(0.25, 6, 7), "state2": ramp(-3, 8)}
}

// sparseWant is an expected sparse batch.
type sparseWant struct {
	indices []int64
	values  []int64
	dense   tensor.Shape
}

func checkSparseBatch(t *testing.T, what string, got tensor.Sparse, want sparseWant) {
	t.Helper()
	rank := len(want.dense)
	if !slices.Equal(got.Indices.Int64s(), want.indices) || !got.Indices.Shape().Equal(tensor.Shape{len(want.values), rank}) ||
		!slices.Equal(got.Values.Int64s(), want.values) || !got.DenseShape.Equal(want.dense) {
		t.Errorf("%s: indices %v %v values %v dense %v, want %v %v %v", what, got.Indices.Shape(), got.Indices.Int64s(),
			got.Values.Int64s(), got.DenseShape, want.indices, want.values, want.dense)
	}
}

// BSWS-05: value length 4, u=2, length 3, batch 2, capacity 2: the two
// segments of two examples, with pad on, pad off, and unique keys made
// from a fixed key. BSWS-07: the sparse sequences and context.
func TestBSWS05TwoSteps(t *testing.T) {
	random := func(i int64) string { return fmt.Sprintf("key_%d", i) }
	for _, tt := range []struct {
		name string
		key  func(int64) string
		opts []BatchOption
	}{
		{"pad", random, []BatchOption{Pad(true)}},
		{"no pad", random, []BatchOption{Pad(false)}},
		{"make keys unique", func(int64) string { return "fixed_key" }, []BatchOption{Pad(false), MakeKeysUnique(), Seed(9)}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			bs := runTwoStepsTF(t, 2, 3, tt.key, tt.opts...)
			checkStep(t, bs[0], 1, "00000_of_00002", "00001_of_00002", []int32{2, 2}, 0, 2)
			checkStep(t, bs[1], 2, "00001_of_00002", "STOP", []int32{1, 1}, 1, 2)
			if bs[0].Key()[0] == bs[0].Key()[1] {
				t.Errorf("one batch has the key %q twice", bs[0].Key()[0])
			}
			// BSWS-07: seq3's entries at times 0,1 go to segment 0, those at
			// time 3 to segment 1 at local time 1; seq4 has nothing after
			// time 1, so its second segment is empty with the full shape.
			checkSparseBatch(t, "seq3 batch 1", bs[0].SparseSequences("seq3"), sparseWant{
				[]int64{0, 0, 0, 0, 1, 0, 0, 1, 3, 0, 1, 4, 1, 0, 0, 1, 1, 0, 1, 1, 3, 1, 1, 4},
				[]int64{0, 10, 13, 14, 0, 10, 13, 14}, tensor.Shape{2, 2, 6}})
			checkSparseBatch(t, "seq3 batch 2", bs[1].SparseSequences("seq3"), sparseWant{
				[]int64{0, 1, 2, 0, 1, 3, 1, 1, 2, 1, 1, 3}, []int64{32, 33, 32, 33}, tensor.Shape{2, 2, 6}})
			checkSparseBatch(t, "seq4 batch 1", bs[0].SparseSequences("seq4"), seq4Batch1(2))
			checkSparseBatch(t, "seq4 batch 2", bs[1].SparseSequences("seq4"), sparseWant{[]int64{}, []int64{}, tensor.Shape{2, 2, 3, 4}})
			for i, b := range bs {
				checkSparseBatch(t, fmt.Sprintf("sp_context batch %d", i+1), b.SparseContext("sp_context"), sparseWant{
					[]int64{0, 1, 9, 0, 2, 2, 0, 2, 10, 1, 1, 9, 1, 2, 2, 1, 2, 10}, []int64{7, 15, 2, 7, 15, 2}, tensor.Shape{2, 5, 12}})
			}
			if tt.name == "make keys unique" {
				for _, k := range bs[0].Key() {
					suffix := strings.TrimPrefix(k, "00000_of_00002:fixed_key")
					if suffix == k || suffix == "" || strings.Trim(suffix, "0123456789") != "" {
						t.Errorf("key %q does not end in fixed_key and a number", k)
					}
				}
			}
		})
	}
}

func seq4Batch1(u int) sparseWant {
	var idx []int64
	for b := range int64(2) {
		idx = append(idx, b, 0, 0, 1, b, 0, 1, 0, b, 0, 1, 2, b, 1, 0, 3, b, 1, 1, 0, b, 1, 1, 1, b, 1, 1, 2, b, 1, 2, 2)
	}
	v := []int64{1, 10, 12, 103, 150, 149, 150, 122}
	return sparseWant{idx, append(slices.Clone(v), v...), tensor.Shape{2, u, 3, 4}}
}

// runTwoStepsTF is runTwoSteps saving state1+1 and state2-1 after each
// batch, as TensorFlow's test does.
func runTwoStepsTF(t *testing.T, u, length int, key func(int64) string, opts ...BatchOption) [2]*Batch {
	t.Helper()
	ctx := context.Background()
	p := input.NewPipeline(input.Seed(1))
	var n atomic.Int64
	step := func(context.Context) (Input, error) { return bswsInput(key(n.Add(1)), length), nil }
	s := BatchSequencesWithStates(p, step, bswsStates(), u, 2, append([]BatchOption{Threads(3), Capacity(2)}, opts...)...)
	if err := p.Start(ctx); err != nil {
		t.Fatal(err)
	}
	var out [2]*Batch
	for i := range out {
		b, err := s.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		s1, s2 := b.State("state1").Clone(), b.State("state2").Clone()
		for j := range s1.Float64s() {
			s1.Float64s()[j]++
		}
		for j := range s2.Float64s() {
			s2.Float64s()[j]--
		}
		if err := b.SaveState(ctx, "state1", s1); err != nil {
			t.Fatal(err)
		}
		if err := b.SaveState(ctx, "state2", s2); err != nil {
			t.Fatal(err)
		}
		out[i] = b
	}
	if err := p.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	return out
}

// checkStep checks a batch of runTwoStepsTF: key prefixes, lengths, the
// dense sequences (rows r0..r0+u of the padded example), context and
// states (initial + add, initial - add).
func checkStep(t *testing.T, b *Batch, step int, keyPrefix, nextPrefix string, length []int32, add float64, u int) {
	t.Helper()
	if p := prefix(b.Key()); len(p) != 1 || !p[keyPrefix] {
		t.Errorf("step %d: key prefixes %v, want %s", step, p, keyPrefix)
	}
	if p := prefix(b.NextKey()); len(p) != 1 || !p[nextPrefix] {
		t.Errorf("step %d: next key prefixes %v, want %s", step, p, nextPrefix)
	}
	if !slices.Equal(b.Length(), length) {
		t.Errorf("step %d: length %v, want %v", step, b.Length(), length)
	}
	if !tensor.Equal(b.Context("context1"), tensor.New([]int32{3, 4, 3, 4}, 2, 2)) {
		t.Errorf("step %d: context1 %v", step, b.Context("context1"))
	}
	for name, init := range bswsStates() {
		sign := 1.0
		if name == "state2" {
			sign = -1
		}
		want := tensor.Zeros(tensor.Float64, init.Shape().Prepend(2))
		for j := range want.Float64s() {
			want.Float64s()[j] = init.Float64s()[j%init.NumElements()] + sign*add
		}
		if !tensor.Equal(b.State(name), want) {
			t.Errorf("step %d: %s = %v, want %v", step, name, b.State(name), want)
		}
	}
	r0 := (step - 1) * u
	for name, full := range map[string]tensor.Tensor{"seq1": ramp(0, 4, 5), "seq2": ramp(100, 4, 4, 2)} {
		shape := full.Shape().Clone()
		shape[0] = 2 * u
		padded, _ := tensor.PadTo(full, shape) // BSWS-06's zero rows
		seg := padded.Slice(r0, r0+u)
		want, _ := tensor.Stack([]tensor.Tensor{seg, seg})
		if !tensor.Equal(b.Sequences(name), want) {
			t.Errorf("step %d: %s = %v, want %v", step, name, b.Sequences(name), want)
		}
	}
}

// BSWS-06: u=3 and value length 4 with padding: the second segment is row
// 3 and two zero rows; the length is inferred.
func TestBSWS06AdvancedPadding(t *testing.T) {
	bs := runTwoStepsTF(t, 3, InferLength, func(i int64) string { return fmt.Sprintf("key_%d", i) })
	checkStep(t, bs[0], 1, "00000_of_00002", "00001_of_00002", []int32{3, 3}, 0, 3)
	checkStep(t, bs[1], 2, "00001_of_00002", "STOP", []int32{1, 1}, 1, 3)
	if !slices.Equal(bs[0].TotalLength(), []int32{4, 4}) {
		t.Errorf("total length %v, want the inferred [4 4]", bs[0].TotalLength())
	}
	checkSparseBatch(t, "seq3 batch 1", bs[0].SparseSequences("seq3"), sparseWant{
		[]int64{0, 0, 0, 0, 1, 0, 0, 1, 3, 0, 1, 4, 1, 0, 0, 1, 1, 0, 1, 1, 3, 1, 1, 4},
		[]int64{0, 10, 13, 14, 0, 10, 13, 14}, tensor.Shape{2, 3, 6}})
	checkSparseBatch(t, "seq3 batch 2", bs[1].SparseSequences("seq3"), sparseWant{
		[]int64{0, 0, 2, 0, 0, 3, 1, 0, 2, 1, 0, 3}, []int64{32, 33, 32, 33}, tensor.Shape{2, 3, 6}})
	checkSparseBatch(t, "seq4 batch 1", bs[0].SparseSequences("seq4"), seq4Batch1(3))
	checkSparseBatch(t, "seq4 batch 2", bs[1].SparseSequences("seq4"), sparseWant{[]int64{}, []int64{}, tensor.Shape{2, 3, 3, 4}})
}

// BSWS-04: without padding, a value length that is not a multiple of
// num_unroll stops the pipeline with TensorFlow's message and the key.
func TestBSWS04NotAMultiple(t *testing.T) {
	ctx := context.Background()
	p := input.NewPipeline()
	step := func(context.Context) (Input, error) { return bswsInput("key_1", 3), nil }
	s := BatchSequencesWithStates(p, step, bswsStates(), 3, 2, Capacity(2), Pad(false))
	if err := p.Start(ctx); err != nil {
		t.Fatal(err)
	}
	_, err := s.Next(ctx)
	wantErr(t, err, queue.ErrInvalidArgument, "should be a multiple of: 3, but saw value: 4. Consider setting pad=True.")
	wantErr(t, err, nil, `example "key_1"`)
	wantErr(t, p.Join(ctx), queue.ErrInvalidArgument, "should be a multiple of: 3, but saw value: 4. Consider setting pad=True.")
}

// BSWS-02, BSWS-03: padding to a multiple of num_unroll.
func TestBSWS02BSWS03Padding(t *testing.T) {
	seqs := map[string]tensor.Tensor{
		"key_1": tensor.New([]int32{1, 2}),
		"key_2": tensor.New([]float32{0.5, -1}),
		"key_3": tensor.Strings("a", "b"),
		"key_4": tensor.New([]int32{1, 2, 3, 4, 5, 6}, 2, 3),
	}
	in := Input{Key: "k", Length: InferLength, Sequences: seqs}
	if err := padInput(&in, 5); err != nil {
		t.Fatal(err)
	}
	want := map[string]tensor.Tensor{
		"key_1": tensor.New([]int32{1, 2, 0, 0, 0}),
		"key_2": tensor.New([]float32{0.5, -1, 0, 0, 0}),
		"key_3": tensor.Strings("a", "b", "", "", ""),
		"key_4": tensor.New([]int32{1, 2, 3, 4, 5, 6, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 5, 3),
	}
	for k, w := range want {
		if !tensor.Equal(in.Sequences[k], w) {
			t.Errorf("%s padded to %v, want %v", k, in.Sequences[k], w)
		}
	}
	if in.Length != 2 {
		t.Errorf("inferred length %d, want 2", in.Length)
	}
	if !tensor.Equal(seqs["key_1"], tensor.New([]int32{1, 2})) {
		t.Error("padding modified the caller's tensor")
	}

	bad := Input{Key: "k", Sequences: map[string]tensor.Tensor{"key_1": tensor.New([]int32{1, 2, 3}), "key_2": tensor.New([]float32{1.5, 2.5})}}
	wantErr(t, padInput(&bad, 2), queue.ErrInvalidArgument, "All sequence lengths must match, but received lengths: [3 2]")

	same := Input{Key: "k", Length: 1, Sequences: map[string]tensor.Tensor{"a": tensor.New([]int32{1, 2, 3, 4})},
		SparseSequences: map[string]tensor.Sparse{"s": {Indices: tensor.New([]int64{3}, 1, 1), Values: tensor.New([]int64{7}), DenseShape: tensor.Shape{4}}}}
	a := same.Sequences["a"]
	if err := padInput(&same, 2); err != nil || !tensor.Equal(same.Sequences["a"], a) || same.Length != 1 {
		t.Errorf("already a multiple: %v %v length %d", err, same.Sequences["a"], same.Length)
	}
	if err := padInput(&same, 3); err != nil || !same.SparseSequences["s"].DenseShape.Equal(tensor.Shape{6}) {
		t.Errorf("sparse dense shape padded to %v (%v), want [6]", same.SparseSequences["s"].DenseShape, err)
	}
	// SAMPLING.md section 5: (4,3) -> 6, (4,2) -> 4, (7,5) -> 10, 0 stays 0.
	for _, tt := range [][3]int{{4, 3, 6}, {4, 2, 4}, {7, 5, 10}, {0, 3, 0}} {
		in := Input{Key: "k", Length: InferLength, Sequences: map[string]tensor.Tensor{"a": tensor.Zeros(tensor.Float32, tensor.Shape{tt[0]})}}
		if err := padInput(&in, tt[1]); err != nil || in.Sequences["a"].Len() != tt[2] {
			t.Errorf("pad %d to a multiple of %d: %d, want %d (%v)", tt[0], tt[1], in.Sequences["a"].Len(), tt[2], err)
		}
	}
}

// BSWS-01: the defaults, and 3 prefetch goroutines.
func TestBSWS01Defaults(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := input.NewPipeline()
		var active, most atomic.Int64
		step := func(ctx context.Context) (Input, error) {
			n := active.Add(1)
			for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
			}
			<-ctx.Done()
			active.Add(-1)
			return Input{}, ctx.Err()
		}
		s := BatchSequencesWithStates(p, step, bswsStates(), 2, 4)
		if s.Capacity() != 1000 || !s.AllowSmallerFinalBatch() || s.Name() != "batch_sequences_with_states" {
			t.Errorf("capacity %d, small batch %v, name %q", s.Capacity(), s.AllowSmallerFinalBatch(), s.Name())
		}
		if err := p.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if most.Load() != 3 {
			t.Errorf("%d prefetch goroutines, want 3", most.Load())
		}
		if err := p.Stop(t.Context()); err != nil {
			t.Fatal(err)
		}
		// The pipeline reports the capacity queue among its queues.
		found := false
		for _, m := range p.Metrics() {
			found = found || m.Name == "batch_sequences_with_states/capacity_queue" && m.Capacity == 1000
		}
		if !found {
			t.Errorf("metrics %v lack the capacity queue", p.Metrics())
		}
	})
	p := input.NewPipeline()
	if s := BatchSequencesWithStates(p, nil, bswsStates(), 2, 4, Capacity(3)); s != nil {
		t.Error("a state saver with capacity < batch size was built")
	}
	wantErr(t, p.Start(context.Background()), queue.ErrInvalidArgument, "capacity must be larger or equal to batch_size")
}

// The end of input cascades: every example is delivered, then Next reports
// end of input, and the pipeline joins cleanly.
func TestBSWSEndOfInput(t *testing.T) {
	ctx := context.Background()
	const examples = 50
	p := input.NewPipeline()
	var n atomic.Int64
	step := func(context.Context) (Input, error) {
		i := n.Add(1)
		if i > examples {
			return Input{}, io.EOF
		}
		l := int(i % 9)
		return Input{Key: fmt.Sprint(i), Length: InferLength,
			Sequences: map[string]tensor.Tensor{"x": tensor.Zeros(tensor.Float32, tensor.Shape{l, 2})}}, nil
	}
	// Examples of length 0 would be rejected (padded length 0), so make
	// them length 9.
	inner := step
	step = func(ctx context.Context) (Input, error) {
		in, err := inner(ctx)
		if err == nil && in.Sequences["x"].Len() == 0 {
			in.Sequences["x"] = tensor.Zeros(tensor.Float32, tensor.Shape{9, 2})
		}
		return in, err
	}
	s := BatchSequencesWithStates(p, step, map[string]tensor.Tensor{"h": tensor.Scalar[float32](0)}, 4, 3, Capacity(5))
	if err := p.Start(ctx); err != nil {
		t.Fatal(err)
	}
	segments, finished := 0, map[string]bool{}
	for b, err := range s.All(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		segments += b.BatchSize()
		for _, k := range b.NextKey() {
			if strings.HasPrefix(k, "STOP:") {
				finished[k] = true
			}
		}
		saveAll(t, b, 1)
	}
	if _, err := s.Next(ctx); !errors.Is(err, io.EOF) {
		t.Errorf("Next after the end = %v, want end of input", err)
	}
	if len(finished) != examples {
		t.Errorf("%d examples finished, want %d", len(finished), examples)
	}
	want := 0
	for i := 1; i <= examples; i++ {
		l := i % 9
		if l == 0 {
			l = 9
		}
		want += (l + 3) / 4
	}
	if segments != want {
		t.Errorf("%d segments, want %d", segments, want)
	}
	if err := p.Join(ctx); err != nil {
		t.Fatal(err)
	}
}

// BSWS-08: with a seed, the unique keys are the same on every run.
func TestBSWS08UniqueKeysSeeded(t *testing.T) {
	run := func(seed uint64) []string {
		bs := runTwoStepsTF(t, 2, 3, func(int64) string { return "fixed_key" }, Threads(1), MakeKeysUnique(), Seed(seed))
		return bs[0].Key()
	}
	a, b, c := run(9), run(9), run(10)
	if !slices.Equal(a, b) {
		t.Errorf("seed 9 gave keys %v, then %v", a, b)
	}
	if slices.Equal(a, c) {
		t.Errorf("seeds 9 and 10 gave the same keys %v", a)
	}
}

// BSWS-01: BatchSequencesWithStates delivers a smaller final batch by
// default and DropRemainder turns it off (allow_small_batch=False);
// NewStateSaver is the other way round. The last of the two options wins.
func TestSmallerFinalBatchOptions(t *testing.T) {
	eof := func(context.Context) (Input, error) { return Input{}, io.EOF }
	cases := []struct {
		name        string
		opts        []Option
		bsws, saver bool
	}{
		{"defaults", nil, true, false},
		{"AllowSmallerFinalBatch", []Option{AllowSmallerFinalBatch()}, true, true},
		{"DropRemainder", []Option{DropRemainder()}, false, false},
		{"allow then drop", []Option{AllowSmallerFinalBatch(), DropRemainder()}, false, false},
		{"drop then allow", []Option{DropRemainder(), AllowSmallerFinalBatch()}, true, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var bopts []BatchOption
			var sopts []StateSaverOption
			for _, o := range c.opts {
				bopts, sopts = append(bopts, o), append(sopts, o)
			}
			s := BatchSequencesWithStates(input.NewPipeline(), eof, bswsStates(), 2, 4, bopts...)
			if s == nil || s.AllowSmallerFinalBatch() != c.bsws {
				t.Errorf("BatchSequencesWithStates: smaller final batch %v, want %v", s != nil && s.AllowSmallerFinalBatch(), c.bsws)
			}
			ss, err := NewStateSaver(4, 2, bswsStates(), sopts...)
			if err != nil {
				t.Fatal(err)
			}
			if ss.AllowSmallerFinalBatch() != c.saver {
				t.Errorf("NewStateSaver: smaller final batch %v, want %v", ss.AllowSmallerFinalBatch(), c.saver)
			}
		})
	}
}
