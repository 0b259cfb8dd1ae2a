package sequence

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/sluiceml/sluice/tensor"
)

// TestSegmentKeys: the keys made at once are segmentKey's, and the last
// segment's next key is "STOP:" and the key, with the room given used
// when it is large enough; an arena's keys of small examples follow one
// another in its chunk, and none changes as later ones are made.
func TestSegmentKeys(t *testing.T) {
	tests := []struct {
		count int
		key   string
		room  int
	}{
		{1, "a", 8},
		{5, "example_7", 8},
		{8, "", 8},
		{9, "k", 8},
		{120, "日本:x", 0},
		{3, "b", 0},
		{99999, "last", 0},
		{2, "after the large one", 2},
	}
	var arena keyArena
	type made struct {
		keys []string
		stop string
		want []string
	}
	var all []made
	for _, a := range []*keyArena{nil, &arena} {
		prevEnd := uintptr(0) // where the arena's last small example's keys end
		for _, tt := range tests {
			room := make([]string, 0, tt.room)
			keys, stop := a.segmentKeys(tt.count, tt.key, room)
			if len(keys) != tt.count {
				t.Fatalf("%d %q: %d keys", tt.count, tt.key, len(keys))
			}
			want := make([]string, tt.count)
			for s, k := range keys {
				if want[s] = segmentKey(s, tt.count, tt.key); k != want[s] {
					t.Fatalf("%d %q: key %d is %q, want %q", tt.count, tt.key, s, k, want[s])
				}
			}
			if want := "STOP:" + tt.key; stop != want {
				t.Errorf("%d %q: stop key %q, want %q", tt.count, tt.key, stop, want)
			}
			inRoom := tt.room > 0 && &keys[0] == &room[:1][0]
			if want := tt.count <= tt.room; inRoom != want {
				t.Errorf("%d %q: keys in the room given %v, want %v", tt.count, tt.key, inRoom, want)
			}
			start := uintptr(unsafe.Pointer(unsafe.StringData(keys[0])))
			small := (15+len(tt.key))*tt.count+5+len(tt.key) <= keyChunk/4
			if a != nil && small && prevEnd != 0 && start != prevEnd {
				t.Errorf("%d %q: keys not after the last small example's in the arena's chunk", tt.count, tt.key)
			}
			if a != nil && small {
				prevEnd = uintptr(unsafe.Pointer(unsafe.StringData(stop))) + uintptr(len(stop))
			}
			all = append(all, made{keys, stop, want})
		}
	}
	for _, m := range all {
		if !slices.Equal(m.keys, m.want) || m.stop != "STOP:"+m.keys[0][15:] {
			t.Fatalf("keys changed: %q, %q", m.keys[:min(3, len(m.keys))], m.stop)
		}
	}
}

// dumpBatch formats everything a batch returns, to compare batches after
// their memory has been reused.
func dumpBatch(b *Batch) string {
	var s strings.Builder
	fmt.Fprintln(&s, b.BatchSize(), b.Key(), b.NextKey(), b.Sequence(), b.SequenceCount(), b.Length(), b.TotalLength(), b.InsertionIndex())
	tensorDump := func(kind, name string, t tensor.Tensor) {
		fmt.Fprintf(&s, "%s %s %v %v ", kind, name, t.DType(), t.Shape())
		if t.DType() == tensor.String {
			fmt.Fprintf(&s, "%q\n", t.Strings())
		} else {
			fmt.Fprintln(&s, t.Data())
		}
	}
	for _, k := range sortedKeys(b.seqs) {
		tensorDump("sequence", k, b.Sequences(k))
	}
	for _, k := range sortedKeys(b.ctx) {
		tensorDump("context", k, b.Context(k))
	}
	for _, k := range sortedKeys(b.sparseSeqs) {
		sp := b.SparseSequences(k)
		tensorDump("sparse sequence indices", k, sp.Indices)
		tensorDump("sparse sequence values", k, sp.Values)
		fmt.Fprintln(&s, sp.DenseShape)
	}
	for _, k := range sortedKeys(b.sparseCtx) {
		sp := b.SparseContext(k)
		tensorDump("sparse context indices", k, sp.Indices)
		tensorDump("sparse context values", k, sp.Values)
		fmt.Fprintln(&s, sp.DenseShape)
	}
	for _, name := range b.s.stateNames {
		tensorDump("state", name, b.State(name))
	}
	return s.String()
}

// TestNextIntoSameBatches: a consumer that hands back every batch gets
// the batches of one that keeps them, with the same states saved, for
// dense and sparse sequences and contexts, strings, several states,
// examples of different lengths and a smaller final batch.
func TestNextIntoSameBatches(t *testing.T) {
	states := map[string]tensor.Tensor{"a": tensor.Zeros(tensor.Float32, tensor.Shape{3}), "b": tensor.Scalar[float64](1),
		"c": tensor.StringScalar("first")}
	tests := []struct {
		name   string
		batch  int
		u      int
		opts   []StateSaverOption
		inputs func(i int) Input
	}{
		// Without AllowSmallerFinalBatch the last segments would wait
		// for a full batch for ever, as in TensorFlow.
		{"dense", 4, 2, []StateSaverOption{AllowSmallerFinalBatch()}, func(i int) Input {
			in := simpleInput(fmt.Sprint("ex", i), 2*(1+i%3), 2*(1+i%3))
			return in
		}},
		{"dense/shorter lengths", 5, 3, []StateSaverOption{AllowSmallerFinalBatch()}, func(i int) Input {
			in := simpleInput(fmt.Sprint("ex", i), 3*(1+i%4)-i%2, 3*(1+i%4))
			return in
		}},
		{"sparse", 3, 2, []StateSaverOption{AllowSmallerFinalBatch()}, func(i int) Input {
			return bswsInput(fmt.Sprint("ex", i), 1+i%4)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := func(into bool) []string {
				s := newSaver(t, tt.batch, tt.u, states, tt.opts...)
				for i := range 23 {
					mustPrefetch(t, s, tt.inputs(i))
				}
				if err := s.Close(t.Context()); err != nil {
					t.Fatal(err)
				}
				var out []string
				var b *Batch
				reused := 0
				for {
					var err error
					prev := b
					if into {
						b, err = s.NextInto(t.Context(), b)
					} else {
						b, err = s.Next(t.Context())
					}
					if isEOF(err) {
						break
					}
					if err != nil {
						t.Fatal(err)
					}
					if b == prev {
						reused++
					}
					out = append(out, dumpBatch(b))
					saveAll(t, b, float64(len(out)))
				}
				if into && reused < len(out)/2 {
					t.Errorf("NextInto reused %d of %d batches", reused, len(out))
				}
				return out
			}
			keep, reuse := run(false), run(true)
			if len(keep) < 3 {
				t.Fatalf("%d batches", len(keep))
			}
			if !slices.Equal(keep, reuse) {
				for i := range min(len(keep), len(reuse)) {
					if keep[i] != reuse[i] {
						t.Fatalf("batch %d: NextInto\n%s\nNext\n%s", i, reuse[i], keep[i])
					}
				}
				t.Fatalf("NextInto: %d batches, Next %d", len(reuse), len(keep))
			}
		})
	}
}

// TestNextIntoNotReused: a batch with a state not saved, or of another
// state saver, is not written over: NextInto returns a new batch and the
// old one keeps its values.
func TestNextIntoNotReused(t *testing.T) {
	s := newSaver(t, 2, 2, scalarState())
	other := newSaver(t, 2, 2, scalarState())
	for i := range 8 {
		mustPrefetch(t, s, simpleInput(fmt.Sprint("ex", i), 4, 4))
		mustPrefetch(t, other, simpleInput(fmt.Sprint("other", i), 4, 4))
	}
	foreign := mustNext(t, other)
	saveAll(t, foreign, 1)
	unsaved := mustNext(t, s)
	for _, dst := range []*Batch{foreign, unsaved} {
		was := dumpBatch(dst)
		b, err := s.NextInto(t.Context(), dst)
		if err != nil {
			t.Fatal(err)
		}
		if b == dst || dumpBatch(dst) != was {
			t.Fatalf("NextInto reused a batch it should not have")
		}
		saveAll(t, b, 1)
	}
}

// TestNextIntoConcurrent: with prefetchers and a consumer reusing its
// batch at their own pace, every segment comes once, with its example's
// values and the state its predecessor saved.
func TestNextIntoConcurrent(t *testing.T) {
	const examples, u = 200, 2
	s := newSaver(t, 4, u, scalarState(), Capacity(8), AllowSmallerFinalBatch())
	var wg sync.WaitGroup
	for w := range 2 {
		wg.Go(func() {
			for i := w; i < examples; i += 2 {
				in := simpleInput(fmt.Sprint("ex", i), 2*u, 2*u)
				in.Sequences["seq1"] = ramp(float64(i*1000), 2*u, 5)
				if err := s.Prefetch(t.Context(), in); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	go func() {
		wg.Wait()
		s.Close(context.Background())
	}()
	seen := map[string]bool{}
	var b *Batch
	for {
		var err error
		b, err = s.NextInto(t.Context(), b)
		if isEOF(err) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		seq := b.Sequences("seq1").Float64s()
		state := b.State("state1").Float32s()
		for i, k := range b.Key() {
			if seen[k] {
				t.Fatalf("segment %s twice", k)
			}
			seen[k] = true
			var ex int
			fmt.Sscanf(k[strings.Index(k, ":")+3:], "%d", &ex)
			seg := int(b.Sequence()[i])
			if first := seq[i*u*5]; first != float64(ex*1000+seg*u*5) {
				t.Fatalf("segment %s starts with %v", k, first)
			}
			if state[i] != float32(seg) {
				t.Fatalf("segment %s has state %v, want %d", k, state[i], seg)
			}
		}
		saveAll(t, b, 1)
	}
	wg.Wait()
	if len(seen) != examples*2 {
		t.Fatalf("%d segments, want %d", len(seen), examples*2)
	}
}

// TestNextIntoSteadyAllocs: with prefetchers that allocate nothing and a
// consumer that reuses its batch, what is left is a chunk of segment
// keys every few dozen examples (keyArena; a tenth of an example is
// allowed), besides the waits: nothing per segment, step or batch
// (examples, their handles, the barrier's entries, its batch and the
// states saved are all reused). A call that waits makes an attempt
// and its channel: the consumer's take once a batch, and, with the state
// saver at capacity, a prefetch once an example.
func TestNextIntoSteadyAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	const batch, u, segments, prefetchers, from, to = 16, 4, 4, 2, 100, 600
	const perExample, perBatch = 0.1, 0
	s := newSaver(t, batch, u, map[string]tensor.Tensor{"h": tensor.Zeros(tensor.Float32, tensor.Shape{8})}, Capacity(4*batch))
	// Inputs made beforehand, more than the state saver holds at once.
	const ring = 8 * batch
	x := tensor.Zeros(tensor.Float32, tensor.Shape{segments * u, 32})
	ctx, cancel := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	for w := range prefetchers {
		inputs := make([]Input, ring)
		for i := range inputs {
			inputs[i] = Input{Key: fmt.Sprint(w, "_", i), Length: segments * u,
				Sequences: map[string]tensor.Tensor{"x": x}, Context: map[string]tensor.Tensor{"y": tensor.Scalar[int64](1)}}
		}
		wg.Go(func() {
			for i := 0; ; i++ {
				if s.Prefetch(ctx, inputs[i%ring]) != nil {
					return
				}
			}
		})
	}
	defer func() {
		cancel()
		s.CloseNow(context.Background())
		wg.Wait()
	}()
	h := tensor.Zeros(tensor.Float32, tensor.Shape{batch, 8})
	var b *Batch
	var m0, m1 runtime.MemStats
	for i := range to {
		if i == from {
			runtime.ReadMemStats(&m0)
		}
		var err error
		if b, err = s.NextInto(ctx, b); err != nil {
			t.Fatal(err)
		}
		if err := b.SaveState(ctx, "h", h); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&m1)
	per := float64(m1.Mallocs-m0.Mallocs) / float64(to-from)
	const examples = batch / segments // a batch
	most := perExample*examples + perBatch + 2*float64(examples+1)
	if per > most {
		t.Errorf("%.1f allocations a batch of %d segments, want at most %.0f", per, batch, most)
	} else {
		t.Logf("%.1f allocations a batch of %d segments (%.2f a segment)", per, batch, per/batch)
	}
}
