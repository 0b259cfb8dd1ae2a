package sequence

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/sluiceml/sluice/tensor"
)

// stored is what an SQ-15 inserter put in for one key.
type stored struct {
	length         int
	seq1, seq3     tensor.Tensor
	context1       tensor.Tensor
	state1, state2 tensor.Tensor
}

// sq15Saver returns a state saver and a function that inserts `each`
// varying-length examples from one goroutine, recording them.
func sq15Saver(t *testing.T, batch, u int, opts ...StateSaverOption) (*StateSaver, func(which, each int), *sync.Map) {
	s := newSaver(t, batch, u, map[string]tensor.Tensor{
		"state1": tensor.Zeros(tensor.Float32, tensor.Shape{6, 7}),
		"state2": tensor.Scalar[int32](0),
	}, opts...)
	var originals sync.Map
	insert := func(which, each int) {
		r := rand.New(rand.NewPCG(uint64(which), 7))
		for i := range each {
			pad := u * (1 + i%10)
			key := fmt.Sprintf("key_%02d_%04d", which, i)
			st1 := make([]float32, 42)
			for j := range st1 {
				st1[j] = float32(r.IntN(1000))
			}
			seq1 := make([]float32, pad*5)
			for j := range seq1 {
				seq1[j] = r.Float32()
			}
			seq3 := make([]float64, pad)
			for j := range seq3 {
				seq3[j] = r.Float64()
			}
			v := stored{
				length:   r.IntN(pad + 1),
				seq1:     tensor.New(seq1, pad, 5),
				seq3:     tensor.New(seq3, pad),
				context1: tensor.Strings(key, fmt.Sprint(i)),
				state1:   tensor.New(st1, 6, 7),
				state2:   tensor.Scalar(int32(r.IntN(100))),
			}
			originals.Store(key, v)
			err := s.Prefetch(context.Background(), Input{Key: key, Length: v.length,
				Sequences:     map[string]tensor.Tensor{"seq1": v.seq1, "seq3": v.seq3},
				Context:       map[string]tensor.Tensor{"context1": v.context1},
				InitialStates: map[string]tensor.Tensor{"state1": v.state1, "state2": v.state2}})
			if err != nil {
				t.Errorf("Prefetch(%s): %v", key, err)
				return
			}
		}
	}
	return s, insert, &originals
}

// checkEntries verifies every entry of b against what was inserted
// (SQ-15), then saves state1+1 and state2-1.
func checkEntries(t *testing.T, b *Batch, u int, originals *sync.Map) error {
	for i, key := range b.Key() {
		name := key[strings.Index(key, ":")+1:]
		o, ok := originals.Load(name)
		if !ok {
			return fmt.Errorf("entry %d: key %q was never inserted", i, key)
		}
		v := o.(stored)
		seq := int(b.Sequence()[i])
		if want := fmt.Sprintf("%05d_of_%05d:%s", seq, b.SequenceCount()[i], name); key != want {
			return fmt.Errorf("key %q, want %q", key, want)
		}
		next := b.NextKey()[i]
		if next[strings.Index(next, ":")+1:] != name {
			return fmt.Errorf("next key %q does not end in %q", next, name)
		}
		if int(b.TotalLength()[i]) != v.length || int(b.Length()[i]) != max(0, min(u, v.length-seq*u)) {
			return fmt.Errorf("%s: total %d length %d", key, b.TotalLength()[i], b.Length()[i])
		}
		for j, x := range b.State("state1").Row(i).Float32s() {
			if x != v.state1.Float32s()[j]+float32(seq) {
				return fmt.Errorf("%s: state1[%d] = %v, want %v+%d", key, j, x, v.state1.Float32s()[j], seq)
			}
		}
		if got := b.State("state2").Int32s()[i]; got != v.state2.Int32s()[0]-int32(seq) {
			return fmt.Errorf("%s: state2 = %d, want %d-%d", key, got, v.state2.Int32s()[0], seq)
		}
		if !tensor.Equal(b.Context("context1").Row(i), v.context1) {
			return fmt.Errorf("%s: context %v", key, b.Context("context1").Row(i))
		}
		if !tensor.Equal(b.Sequences("seq1").Row(i), v.seq1.Slice(seq*u, (seq+1)*u)) ||
			!tensor.Equal(b.Sequences("seq3").Row(i), v.seq3.Slice(seq*u, (seq+1)*u)) {
			return fmt.Errorf("%s: sequences do not match", key)
		}
	}
	s1, s2 := b.State("state1").Clone(), b.State("state2").Clone()
	for j := range s1.Float32s() {
		s1.Float32s()[j]++
	}
	for j := range s2.Int32s() {
		s2.Int32s()[j]--
	}
	ctx := context.Background()
	if err := b.SaveState(ctx, "state1", s1); err != nil {
		return err
	}
	return b.SaveState(ctx, "state2", s2)
}

// SQ-15: many prefetching and reading goroutines; every entry is checked,
// and after a Close every segment is delivered exactly once.
func TestSQ15ManyWritersReaders(t *testing.T) {
	const batch, u, writers, each, readers = 8, 5, 16, 20, 8
	s, insert, originals := sq15Saver(t, batch, u, AllowSmallerFinalBatch(), Capacity(4*batch))
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() { insert(w, each) })
	}
	var processed atomic.Int64
	var rg sync.WaitGroup
	for range readers {
		rg.Go(func() {
			for {
				b, err := s.Next(context.Background())
				if isEOF(err) {
					return
				}
				if err != nil {
					t.Error(err)
					return
				}
				processed.Add(int64(b.BatchSize()))
				if err := checkEntries(t, b, u, originals); err != nil {
					t.Error(err)
					s.CloseNow(context.Background())
					return
				}
			}
		})
	}
	wg.Wait()
	if err := s.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	rg.Wait()
	want := 0
	for i := range each {
		want += writers * (1 + i%10)
	}
	if got := processed.Load(); got != int64(want) {
		t.Errorf("processed %d segments, want %d", got, want)
	}
	if s.CapacityQueue().Size() != 0 {
		t.Errorf("%d examples still active", s.CapacityQueue().Size())
	}
}

// SQ-14, SQ-15: with many readers, a CloseNow makes Next report
// end of input.
func TestSQ15CancelWithManyReaders(t *testing.T) {
	const batch, u = 32, 17
	s, insert, originals := sq15Saver(t, batch, u)
	var wg sync.WaitGroup
	for w := range batch {
		wg.Go(func() { insert(w, 5) })
	}
	var processed atomic.Int64
	var rg sync.WaitGroup
	for range 20 {
		rg.Go(func() {
			for {
				b, err := s.Next(context.Background())
				if isEOF(err) {
					return
				}
				if err != nil {
					t.Error(err)
					return
				}
				if b.BatchSize() != batch {
					t.Errorf("batch of %d without small batches", b.BatchSize())
				}
				processed.Add(int64(b.BatchSize()))
				if err := checkEntries(t, b, u, originals); err != nil && !strings.Contains(err.Error(), "is closed") {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	for processed.Load() < 2*batch {
		runtime.Gosched() // let the readers process a few batches
	}
	if err := s.CloseNow(context.Background()); err != nil {
		t.Fatal(err)
	}
	rg.Wait()
}
