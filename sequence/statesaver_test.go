package sequence

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tensor"
)

// SQ-01: capacity below the batch size is a build error; the default
// capacity is unbounded.
func TestSQ01Capacity(t *testing.T) {
	_, err := NewStateSaver(32, 2, scalarState(), Capacity(10))
	wantErr(t, err, queue.ErrInvalidArgument, "capacity must be larger or equal to batch_size")

	s := newSaver(t, 1, 2, scalarState())
	if s.Capacity() != 0 {
		t.Errorf("default Capacity() = %d, want 0 (unbounded)", s.Capacity())
	}
	for i := range 2000 { // would block with any small bound
		mustPrefetch(t, s, simpleInput(fmt.Sprintf("%05d", i), 1, 2))
	}
	if s.CapacityQueue().Size() != 2000 {
		t.Errorf("active examples = %d, want 2000", s.CapacityQueue().Size())
	}
}

// SQ-02, SQ-03: checks on the initial states, names and shapes.
func TestSQ02SQ03InputChecks(t *testing.T) {
	for _, tt := range []struct {
		name   string
		states map[string]tensor.Tensor
		want   string
	}{
		{"SQ-02 empty states", map[string]tensor.Tensor{}, "initial_states may not be empty"},
		{"SQ-02 colon", map[string]tensor.Tensor{"a:b": tensor.Scalar[float32](0)}, "state name may not have a colon: 'a:b'"},
		{"SQ-03 no tensor", map[string]tensor.Tensor{"a": {}}, "Shape for state a is not fully defined"},
		{"BAR-01 empty state", map[string]tensor.Tensor{"a": tensor.Zeros(tensor.Float32, tensor.Shape{0})}, "Empty tensors are not supported"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewStateSaver(2, 2, tt.states)
			wantErr(t, err, queue.ErrInvalidArgument, tt.want)
		})
	}

	good := func() Input { return simpleInput("k", 2, 4) }
	for _, tt := range []struct {
		name   string
		modify func(*Input)
		want   string
	}{
		{"SQ-02 no sequences", func(in *Input) { in.Sequences = nil }, "must have at least one sequence tensor"},
		{"SQ-02 sequence colon", func(in *Input) { in.Sequences["a:b"] = in.Sequences["seq1"] }, "sequence key may not have a colon: 'a:b'"},
		{"SQ-02 context colon", func(in *Input) { in.Context["c:d"] = tensor.Scalar[int64](1) }, "context key may not have a colon: 'c:d'"},
		{"SQ-03 scalar sequence", func(in *Input) { in.Sequences["seq1"] = tensor.Scalar[float32](1) }, "Shape for sequence seq1 is not fully defined"},
		{"SQ-03 missing context", func(in *Input) { in.Context["context1"] = tensor.Tensor{} }, "Shape for context context1 is not fully defined"},
		{"negative length", func(in *Input) { in.Length = -1 }, "Input length must be non-negative"},
		{"bad sparse", func(in *Input) {
			in.SparseSequences = map[string]tensor.Sparse{"sp": {
				Indices: tensor.New([]int64{9, 0}, 1, 2), Values: tensor.New([]int64{1}), DenseShape: tensor.Shape{4, 3}}}
		}, "out of bounds"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := newSaver(t, 2, 2, scalarState())
			in := good()
			tt.modify(&in)
			err := s.Prefetch(context.Background(), in)
			wantErr(t, err, queue.ErrInvalidArgument, tt.want)
			wantErr(t, err, nil, `example "k"`) // errors name the key
		})
	}
}

// SQ-04, SQ-05, SQ-06: the padded length's checks, with TensorFlow's
// messages.
func TestSQ04SQ05SQ06PaddedLength(t *testing.T) {
	seq := func(rows int, dims ...int) tensor.Tensor {
		return tensor.Zeros(tensor.Float32, append(tensor.Shape{rows}, dims...))
	}
	for _, tt := range []struct {
		name string
		in   Input
		want string
	}{
		{"SQ-04 not a multiple", Input{Key: "key", Length: 1, Sequences: map[string]tensor.Tensor{"seq1": seq(3, 5)}},
			"should be a multiple of: 17, but saw value: 3"},
		{"SQ-04 zero", Input{Key: "key", Length: 0, Sequences: map[string]tensor.Tensor{"seq1": seq(0, 5)}},
			"should be a multiple of: 17, but saw value: 0"},
		{"SQ-05 lengths differ", Input{Key: "key", Length: 1, Sequences: map[string]tensor.Tensor{"seq1": seq(17, 5), "seq2": seq(34)}},
			"Dimension 0 of tensor labeled sorted_sequences_seq2 should be: 17, shape received: 34"},
		{"SQ-06 length too long", Input{Key: "key", Length: 18, Sequences: map[string]tensor.Tensor{"seq1": seq(17, 5)}},
			"Input length should be <= than length from sequences: 18 vs. 17"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := newSaver(t, 32, 17, scalarState())
			err := s.Prefetch(context.Background(), tt.in)
			wantErr(t, err, queue.ErrInvalidArgument, tt.want)
			if s.Barrier().IncompleteSize()+s.Barrier().ReadySize() != 0 || s.CapacityQueue().Size() != 0 {
				t.Error("a rejected example left something in the state saver")
			}
		})
	}
}

// SQ-07: segmentation, keys, next keys and lengths (SAMPLING.md section 5:
// L=3,u=2 -> [2,1]; L=7,u=3 -> [3,3,1]).
func TestSQ07Segments(t *testing.T) {
	for _, tt := range []struct {
		length, padded, u int
		lengths           []int32
	}{
		{3, 4, 2, []int32{2, 1}},
		{7, 9, 3, []int32{3, 3, 1}},
		{0, 3, 3, []int32{0}},
		{2, 6, 2, []int32{2, 0, 0}},
	} {
		t.Run(fmt.Sprintf("L=%d,u=%d", tt.length, tt.u), func(t *testing.T) {
			s := newSaver(t, 1, tt.u, scalarState())
			mustPrefetch(t, s, simpleInput("ex", tt.length, tt.padded))
			count := tt.padded / tt.u
			for seg := range count {
				b := mustNext(t, s)
				wantKey := fmt.Sprintf("%05d_of_%05d:ex", seg, count)
				wantNext := fmt.Sprintf("%05d_of_%05d:ex", seg+1, count)
				if seg == count-1 {
					wantNext = "STOP:ex"
				}
				if b.Key()[0] != wantKey || b.NextKey()[0] != wantNext {
					t.Errorf("segment %d: key %q next %q, want %q %q", seg, b.Key()[0], b.NextKey()[0], wantKey, wantNext)
				}
				if b.Sequence()[0] != int32(seg) || b.SequenceCount()[0] != int32(count) ||
					b.Length()[0] != tt.lengths[seg] || b.TotalLength()[0] != int32(tt.length) {
					t.Errorf("segment %d: sequence %d count %d length %d total %d", seg,
						b.Sequence()[0], b.SequenceCount()[0], b.Length()[0], b.TotalLength()[0])
				}
				got := b.Sequences("seq1").Float32s()
				for i, x := range got {
					if want := float32(seg*tt.u*5 + i); x != want {
						t.Fatalf("segment %d: seq1[%d] = %v, want %v", seg, i, x, want)
					}
				}
				if c := b.Context("context1"); string(c.Strings()[11]) != "ex" || !c.Shape().Equal(tensor.Shape{1, 3, 4}) {
					t.Errorf("segment %d: context %v", seg, c)
				}
				saveAll(t, b, 1)
			}
		})
	}
}

// SQ-08: TensorFlow's worked example, step by step.
func TestSQ08WorkedExample(t *testing.T) {
	ctx := context.Background()
	init1, init2 := ramp(0.5, 6, 7), ramp(100, 8)
	s := newSaver(t, 2, 2, map[string]tensor.Tensor{"state1": init1, "state2": init2}, Capacity(100))
	seq1, seq2 := ramp(0, 4, 5), ramp(1000, 4, 4, 2)
	context1 := tensor.New([]int32{3, 4})
	for _, k := range []string{"k0", "k1"} {
		mustPrefetch(t, s, Input{Key: k, Length: 3,
			Sequences: map[string]tensor.Tensor{"seq1": seq1, "seq2": seq2},
			Context:   map[string]tensor.Tensor{"context1": context1}})
	}
	tile := func(t0 tensor.Tensor, add float64) tensor.Tensor {
		rows := []tensor.Tensor{t0.Clone(), t0.Clone()}
		for _, r := range rows {
			for i := range r.Float64s() {
				r.Float64s()[i] += add
			}
		}
		out, _ := tensor.Stack(rows)
		return out
	}
	check := func(step int, b *Batch, keyPrefix, nextPrefix []string, rows [2]int, add float64, length int32) {
		t.Helper()
		for i, k := range []string{"k0", "k1"} {
			if b.Key()[i] != keyPrefix[0]+k || b.NextKey()[i] != nextPrefix[0]+k {
				t.Errorf("step %d entry %d: key %q next %q", step, i, b.Key()[i], b.NextKey()[i])
			}
		}
		want1 := tile(seq1.Slice(rows[0], rows[1]), 0)
		want2 := tile(seq2.Slice(rows[0], rows[1]), 0)
		if !tensor.Equal(b.Sequences("seq1"), want1) || !tensor.Equal(b.Sequences("seq2"), want2) {
			t.Errorf("step %d: sequences %v %v", step, b.Sequences("seq1"), b.Sequences("seq2"))
		}
		if !tensor.Equal(b.Context("context1"), tensor.New([]int32{3, 4, 3, 4}, 2, 2)) {
			t.Errorf("step %d: context %v", step, b.Context("context1"))
		}
		if !tensor.Equal(b.State("state1"), tile(init1, add)) || !tensor.Equal(b.State("state2"), tile(init2, -add)) {
			t.Errorf("step %d: states %v %v", step, b.State("state1"), b.State("state2"))
		}
		if !slices.Equal(b.Length(), []int32{length, length}) {
			t.Errorf("step %d: length %v", step, b.Length())
		}
	}
	save := func(b *Batch) {
		t.Helper()
		s1, s2 := b.State("state1").Clone(), b.State("state2").Clone()
		for i := range s1.Float64s() {
			s1.Float64s()[i]++
		}
		for i := range s2.Float64s() {
			s2.Float64s()[i]--
		}
		if err := b.SaveState(ctx, "state1", s1); err != nil {
			t.Fatal(err)
		}
		if err := b.SaveState(ctx, "state2", s2); err != nil {
			t.Fatal(err)
		}
	}
	b := mustNext(t, s)
	check(1, b, []string{"00000_of_00002:"}, []string{"00001_of_00002:"}, [2]int{0, 2}, 0, 2)
	save(b)
	b = mustNext(t, s)
	check(2, b, []string{"00001_of_00002:"}, []string{"STOP:"}, [2]int{2, 4}, 1, 1)
	save(b)
	if n := s.Barrier().ReadySize(); n != 0 {
		t.Errorf("ready size after the example = %d, want 0", n)
	}
	if n := s.Barrier().IncompleteSize(); n != 0 {
		t.Errorf("incomplete size after the example = %d, want 0", n)
	}
	if n := s.CapacityQueue().Size(); n != 0 {
		t.Errorf("active examples = %d, want 0", n)
	}
}

// SQ-09: initial states go only to segment 0; segment k+1 is ready only
// after SaveState on segment k, and without it Next waits.
func TestSQ09SaveStateGatesNextSegment(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := newSaver(t, 1, 2, scalarState())
		mustPrefetch(t, s, simpleInput("a", 6, 6))
		if s.Barrier().ReadySize() != 1 || s.Barrier().IncompleteSize() != 2 {
			t.Fatalf("ready %d incomplete %d, want 1 and 2", s.Barrier().ReadySize(), s.Barrier().IncompleteSize())
		}
		b := mustNext(t, s)
		got := make(chan *Batch, 1)
		go func() {
			b, err := s.Next(ctx)
			if err != nil {
				t.Error(err)
			}
			got <- b
		}()
		synctest.Wait()
		select {
		case <-got:
			t.Fatal("Next returned segment 1 before segment 0's state was saved")
		default:
		}
		if err := b.SaveState(ctx, "state1", tensor.New([]float32{41})); err != nil {
			t.Fatal(err)
		}
		b = <-got
		if b.Sequence()[0] != 1 || b.State("state1").Float32s()[0] != 41 {
			t.Errorf("segment %d state %v, want 1 and 41", b.Sequence()[0], b.State("state1"))
		}
		s.CloseNow(ctx)
	})
}

// SQ-10: SaveState's checks.
func TestSQ10SaveStateErrors(t *testing.T) {
	ctx := context.Background()
	s := newSaver(t, 1, 17, scalarState())
	in := Input{Key: "key", Length: 1, Sequences: map[string]tensor.Tensor{"seq1": tensor.Zeros(tensor.Float32, tensor.Shape{34, 5})}}
	mustPrefetch(t, s, in)
	b := mustNext(t, s)
	for _, tt := range []struct {
		name   string
		state  string
		value  tensor.Tensor
		target error
		want   string
	}{
		{"unknown state", "state2", tensor.New([]float32{1}), ErrUnknownState, "state was not declared: state2"},
		{"wrong rank", "state1", tensor.New([]float32{1}, 1, 1), queue.ErrInvalidArgument, "convert_state1 should be: 1, shape received: [1,1]"},
		{"wrong size", "state1", tensor.New([]float32{1, 2}), queue.ErrInvalidArgument, "convert_state1 should be: [1], shape received: [2]"},
		{"wrong type", "state1", tensor.New([]float64{1}), queue.ErrInvalidArgument, "convert_state1 should be: float, type received: double"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			wantErr(t, b.SaveState(ctx, tt.state, tt.value), tt.target, tt.want)
		})
	}
	if b.State("state2").IsValid() {
		t.Error("State of an undeclared name is a tensor")
	}
	if err := b.SaveState(ctx, "state1", tensor.New([]float32{1})); err != nil {
		t.Fatal(err)
	}
	wantErr(t, b.SaveState(ctx, "state1", tensor.New([]float32{1})), queue.ErrInvalidArgument, "state1 was already saved for this batch")
}

// SQ-11: segments are served in insertion order, an example's second
// segment before newer examples.
func TestSQ11InsertionOrder(t *testing.T) {
	const batch, u = 32, 17
	s := newSaver(t, batch, u, scalarState())
	seq := tensor.Zeros(tensor.Float32, tensor.Shape{2 * u, 5})
	ctx1 := tensor.Zeros(tensor.String, tensor.Shape{3, 4})
	for i := range batch * 100 {
		mustPrefetch(t, s, Input{Key: fmt.Sprintf("%05d", i), Length: i % (2 * u),
			Sequences: map[string]tensor.Tensor{"seq1": seq}, Context: map[string]tensor.Tensor{"context1": ctx1}})
	}
	for step := range 200 {
		b := mustNext(t, s)
		true0 := step / 2 * batch
		keys := make([]int, batch)
		for i, k := range b.Key() {
			fmt.Sscanf(k[strings.LastIndex(k, ":")+1:], "%d", &keys[i])
		}
		idx := b.InsertionIndex()
		if slices.Min(keys) != true0 || slices.Max(keys) != true0+batch-1 {
			t.Fatalf("batch %d: keys %d..%d, want %d..%d", step, slices.Min(keys), slices.Max(keys), true0, true0+batch-1)
		}
		if lo, hi := uint64(slices.Min(idx))+1<<63, uint64(slices.Max(idx))+1<<63; lo != uint64(true0) || hi != uint64(true0+batch-1) {
			t.Fatalf("batch %d: insertion index+2^63 %d..%d, want %d..%d", step, lo, hi, true0, true0+batch-1)
		}
		saveAll(t, b, 1)
	}
	if s.Barrier().ReadySize() != 0 || s.Barrier().IncompleteSize() != 0 {
		t.Errorf("left: ready %d incomplete %d", s.Barrier().ReadySize(), s.Barrier().IncompleteSize())
	}
}

// SQ-12: a batch size chosen per call, including 0.
func TestSQ12VariableBatchSize(t *testing.T) {
	const u = 17
	s := newSaver(t, 1, u, scalarState())
	for i := range 128 {
		mustPrefetch(t, s, simpleInput(fmt.Sprintf("%05d", i), i%(2*u), 2*u))
	}
	want := [][]uint64{{}, {0}, {0, 1}, {1, 2, 3}, {2, 3, 4, 5}, {4, 5, 6, 7, 8},
		{6, 7, 8, 9, 10, 11}, {9, 10, 11, 12, 13, 14, 15}}
	for n := range 8 {
		b, err := s.NextN(context.Background(), n)
		if err != nil {
			t.Fatal(err)
		}
		got := []uint64{}
		for _, x := range b.InsertionIndex() {
			got = append(got, uint64(x)+1<<63)
		}
		slices.Sort(got)
		if !slices.Equal(got, want[n]) {
			t.Errorf("batch size %d: indices+2^63 %v, want %v", n, got, want[n])
		}
		if b.BatchSize() != n || len(b.Key()) != n ||
			!b.Context("context1").Shape().Equal(tensor.Shape{n, 3, 4}) ||
			!b.Sequences("seq1").Shape().Equal(tensor.Shape{n, u, 5}) ||
			!b.State("state1").Shape().Equal(tensor.Shape{n}) {
			t.Errorf("batch size %d: shapes context %v seq %v state %v", n,
				b.Context("context1").Shape(), b.Sequences("seq1").Shape(), b.State("state1").Shape())
		}
		saveAll(t, b, 1)
	}
}

// SQ-13: capacity bounds the active examples; a Prefetch blocks until an
// example's last segment is taken.
func TestSQ13CapacityBlocks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := newSaver(t, 2, 2, scalarState(), Capacity(2))
		mustPrefetch(t, s, simpleInput("a", 4, 4))
		mustPrefetch(t, s, simpleInput("b", 4, 4))
		done := make(chan error, 1)
		go func() { done <- s.Prefetch(ctx, simpleInput("c", 4, 4)) }()
		synctest.Wait()
		select {
		case err := <-done:
			t.Fatalf("third Prefetch returned (%v) with capacity 2 full", err)
		default:
		}
		b := mustNext(t, s) // first segments: a and b stay active
		saveAll(t, b, 1)
		synctest.Wait()
		select {
		case <-done:
			t.Fatal("Prefetch returned before an example finished")
		default:
		}
		b = mustNext(t, s) // last segments: a and b finish
		saveAll(t, b, 1)
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if n := s.CapacityQueue().Size(); n != 1 {
			t.Errorf("active examples = %d, want 1", n)
		}

		// A blocked Prefetch returns when its context ends.
		mustPrefetch(t, s, simpleInput("d", 4, 4))
		cctx, cancel := context.WithCancel(ctx)
		go func() { done <- s.Prefetch(cctx, simpleInput("e", 4, 4)) }()
		synctest.Wait()
		cancel()
		wantErr(t, <-done, context.Canceled, `example "e"`)
		if n := s.CapacityQueue().Size(); n != 2 {
			t.Errorf("active examples after a cancelled Prefetch = %d, want 2", n)
		}
		s.CloseNow(ctx)
	})
}

// SQ-14: Close lets started examples finish; CloseNow
// they cannot, and Next reports end of input.
func TestSQ14Close(t *testing.T) {
	ctx := context.Background()
	t.Run("plain", func(t *testing.T) {
		s := newSaver(t, 2, 2, scalarState())
		mustPrefetch(t, s, simpleInput("a", 4, 4))
		mustPrefetch(t, s, simpleInput("b", 4, 4))
		mustPrefetch(t, s, simpleInput("c", 2, 2))
		b := mustNext(t, s)
		if err := s.Close(ctx); err != nil {
			t.Fatal(err)
		}
		wantErr(t, s.Prefetch(ctx, simpleInput("d", 4, 4)), queue.ErrClosed, "is closed")
		saveAll(t, b, 1)
		b = mustNext(t, s) // a and b's second segments complete after the close
		if !slices.Equal(b.Key(), []string{"00001_of_00002:a", "00001_of_00002:b"}) {
			t.Errorf("keys %v", b.Key())
		}
		saveAll(t, b, 1)
		// Without small batches, c alone cannot make a batch.
		_, err := s.Next(ctx)
		if !isEOF(err) {
			t.Fatalf("Next = %v, want end of input", err)
		}
		wantErr(t, err, nil, "is closed and has insufficient elements (requested 2, total size 1)")
		wantErr(t, s.Close(ctx), queue.ErrClosed, "already closed")
		if err := s.CloseNow(ctx); err != nil {
			t.Errorf("CloseNow after a plain one: %v", err)
		}
	})
	t.Run("plain, small batch", func(t *testing.T) {
		s := newSaver(t, 2, 2, scalarState(), AllowSmallerFinalBatch())
		mustPrefetch(t, s, simpleInput("a", 4, 4))
		mustPrefetch(t, s, simpleInput("b", 2, 2))
		mustPrefetch(t, s, simpleInput("c", 2, 2))
		s.Close(ctx)
		var keys []string
		for {
			b, err := s.Next(ctx)
			if isEOF(err) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			keys = append(keys, strings.Join(b.Key(), ","))
			saveAll(t, b, 1)
		}
		want := []string{"00000_of_00002:a,00000_of_00001:b", "00001_of_00002:a,00000_of_00001:c"}
		if !slices.Equal(keys, want) {
			t.Errorf("batches %q, want %q", keys, want)
		}
	})
	t.Run("cancel", func(t *testing.T) {
		s := newSaver(t, 2, 2, scalarState(), AllowSmallerFinalBatch())
		mustPrefetch(t, s, simpleInput("a", 4, 4))
		mustPrefetch(t, s, simpleInput("b", 4, 4))
		b := mustNext(t, s)
		if err := s.CloseNow(ctx); err != nil {
			t.Fatal(err)
		}
		wantErr(t, b.SaveState(ctx, "state1", b.State("state1")), queue.ErrClosed, "is closed")
		_, err := s.Next(ctx)
		if !isEOF(err) {
			t.Fatalf("Next = %v, want end of input", err)
		}
		wantErr(t, s.CloseNow(ctx), queue.ErrClosed, "already closed")
	})
	t.Run("blocked calls", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := newSaver(t, 2, 2, scalarState(), Capacity(2))
			mustPrefetch(t, s, simpleInput("a", 2, 2))
			mustPrefetch(t, s, simpleInput("b", 2, 2))
			prefetched := make(chan error, 1)
			go func() { prefetched <- s.Prefetch(ctx, simpleInput("c", 2, 2)) }()
			synctest.Wait()
			// A Close waits for the blocked Prefetch, which gets in
			// once a batch frees capacity.
			closed := make(chan error, 1)
			go func() { closed <- s.Close(ctx) }()
			synctest.Wait()
			select {
			case <-closed:
				t.Fatal("Close did not wait for the blocked Prefetch")
			default:
			}
			b := mustNext(t, s) // a and b finish
			saveAll(t, b, 1)
			if err := <-prefetched; err != nil {
				t.Fatalf("blocked Prefetch: %v", err)
			}
			if err := <-closed; err != nil {
				t.Fatal(err)
			}
			// c can only come as a small batch, which is not allowed: a
			// blocked Next is not left waiting.
			_, err := s.Next(ctx)
			wantErr(t, err, nil, "requested 2, total size 1")

			// A CloseNow fails a blocked Prefetch and a blocked Next.
			s2 := newSaver(t, 2, 2, scalarState(), Capacity(2))
			mustPrefetch(t, s2, simpleInput("a", 4, 4))
			mustPrefetch(t, s2, simpleInput("b", 4, 4))
			go func() { prefetched <- s2.Prefetch(ctx, simpleInput("c", 2, 2)) }()
			mustNext(t, s2) // a and b's first batch: room for c's prefetch
			next := make(chan error, 1)
			go func() { _, err := s2.Next(ctx); next <- err }()
			synctest.Wait()
			if err := s2.CloseNow(ctx); err != nil {
				t.Fatal(err)
			}
			wantErr(t, <-prefetched, queue.ErrCancelled, `example "c"`)
			if err := <-next; !isEOF(err) {
				t.Errorf("blocked Next after a CloseNow = %v, want end of input", err)
			}
		})
	})
}

// SQ-16: the barrier and capacity queue are named under the state saver's
// name.
func TestSQ16Names(t *testing.T) {
	s := newSaver(t, 2, 2, scalarState(), Name("unique_scope_name_for_sqss"))
	for _, name := range []string{s.Barrier().Name(), s.CapacityQueue().Name()} {
		if !strings.HasPrefix(name, "unique_scope_name_for_sqss/") {
			t.Errorf("name %q is not under the state saver's name", name)
		}
	}
	r, err := s.QueueRunner(2, func(context.Context) (Input, error) { return Input{}, nil })
	if err != nil || r.Name() != "unique_scope_name_for_sqss" {
		t.Errorf("runner %v, %v", r, err)
	}
	if d := newSaver(t, 1, 1, scalarState()); !strings.HasPrefix(d.Barrier().Name(), "InputQueueingStateSaver/") {
		t.Errorf("default barrier name %q", d.Barrier().Name())
	}
}

// The first example fixes the layout; later examples must match it.
func TestLayoutMismatch(t *testing.T) {
	s := newSaver(t, 2, 2, scalarState())
	mustPrefetch(t, s, simpleInput("a", 2, 2))
	for _, tt := range []struct {
		name   string
		modify func(*Input)
		want   string
	}{
		{"shape", func(in *Input) { in.Sequences["seq1"] = tensor.Zeros(tensor.Float32, tensor.Shape{2, 4}) }, "sequence seq1 is float32 [?,4], want float32 [?,5]"},
		{"type", func(in *Input) { in.Context["context1"] = tensor.Zeros(tensor.Int64, tensor.Shape{3, 4}) }, "context context1 is int64 [3,4], want string [3,4]"},
		{"names", func(in *Input) { in.Sequences["seq0"] = in.Sequences["seq1"] }, "differ from the first example's"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in := simpleInput("b", 2, 2)
			tt.modify(&in)
			err := s.Prefetch(context.Background(), in)
			wantErr(t, err, queue.ErrInvalidArgument, tt.want)
			wantErr(t, err, nil, `example "b"`)
		})
	}
}

// Blocking calls return when their context ends, leaving the state saver
// as it was.
func TestNextContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newSaver(t, 2, 2, scalarState())
		mustPrefetch(t, s, simpleInput("a", 2, 2))
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_, err := s.Next(ctx)
		wantErr(t, err, context.DeadlineExceeded, "cancelled")
		if s.Barrier().ReadySize() != 1 {
			t.Errorf("ready size %d after a timed-out Next, want 1", s.Barrier().ReadySize())
		}
		mustPrefetch(t, s, simpleInput("b", 2, 2))
		if b := mustNext(t, s); b.BatchSize() != 2 {
			t.Errorf("batch of %d", b.BatchSize())
		}
	})
}
