package queue

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"
	"testing/synctest"

	"github.com/sluiceml/sluice/tensor"
)

// TestBarrierInsertRows: InsertRows gives each key the chosen row, copied
// (the caller's tensor may change afterwards, strings included), with
// InsertMany's checks and atomicity, and elements that reuse an entry
// keep nothing of the element before.
func TestBarrierInsertRows(t *testing.T) {
	b, err := NewBarrier("B", []tensor.DType{tensor.Int64, tensor.String}, []tensor.Shape{{2}, {}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ints := tensor.New([]int64{1, 2, 3, 4, 5, 6}, 3, 2)
	strs := tensor.Strings("x", "y", "z")
	for round := range 3 {
		keys := []string{fmt.Sprint("a", round), fmt.Sprint("b", round)}
		if err := b.InsertRows(0, keys, ints, []int{2, 0}); err != nil {
			t.Fatal(err)
		}
		if err := b.InsertRows(1, keys, strs, []int{1, 2}); err != nil {
			t.Fatal(err)
		}
		// The barrier has its own copies.
		ints.Int64s()[4] = -1
		strs.Strings()[1][0] = '?'
		res, err := b.TakeMany(ctx, 2)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(res.Keys, keys) || !slices.Equal(res.Values[0].Int64s(), []int64{5, 6, 1, 2}) ||
			!slices.Equal(res.Values[1].Shape(), tensor.Shape{2}) ||
			string(res.Values[1].Strings()[0]) != "y" || string(res.Values[1].Strings()[1]) != "z" {
			t.Fatalf("round %d: %v %v %q", round, res.Keys, res.Values[0].Int64s(), res.Values[1].Strings())
		}
		ints.Int64s()[4] = 5
		strs.Strings()[1][0] = 'y'
		// A later element in the same entry leaves this batch's strings
		// alone.
		keep := res.Values[1]
		if err := b.InsertRows(1, []string{"later"}, tensor.Strings("w"), nil); err != nil {
			t.Fatal(err)
		}
		if string(keep.Strings()[0]) != "y" {
			t.Fatalf("round %d: a taken string became %q", round, keep.Strings()[0])
		}
		if err := b.InsertRows(0, []string{"later"}, ints, []int{0}); err != nil {
			t.Fatal(err)
		}
		if _, err := b.TakeMany(ctx, 1); err != nil {
			t.Fatal(err)
		}
	}

	tests := []struct {
		name string
		keys []string
		rows []int
	}{
		{"fewer rows than keys", []string{"p", "q"}, []int{0}},
		{"row out of range", []string{"p"}, []int{3}},
		{"negative row", []string{"p"}, []int{-1}},
	}
	for _, tt := range tests {
		if err := b.InsertRows(0, tt.keys, ints, tt.rows); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("%s: got %v", tt.name, err)
		}
	}
	// Atomic, as InsertMany: a key set twice undoes the whole call.
	if err := b.InsertRows(0, []string{"u", "v"}, ints, nil); err != nil {
		t.Fatal(err)
	}
	if err := b.InsertRows(0, []string{"w", "u"}, ints, []int{0, 1}); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("got %v", err)
	}
	if b.IncompleteSize() != 2 || b.ReadySize() != 0 {
		t.Fatalf("incomplete %d ready %d, want 2 0", b.IncompleteSize(), b.ReadySize())
	}
}

// TestBarrierTakeManyInto: a take into a batch handed back returns what a
// fresh take returns, in the batch's memory when its tensors fit, and new
// tensors when they do not (a smaller final batch, another shape).
func TestBarrierTakeManyInto(t *testing.T) {
	ctx := context.Background()
	run := func(into bool) (out []string, reused int) {
		b := barrierNew(t)
		for i := range 10 {
			barrierFill(t, b, fmt.Sprint("k", i))
		}
		b.Close()
		var dst BarrierBatch
		for {
			var res BarrierBatch
			var err error
			var was *float32 // dst's values: the take writes over dst's slices
			if dst.Len() > 0 {
				was = &dst.Values[0].Float32s()[0]
			}
			if into {
				res, err = b.TakeUpToInto(ctx, 4, dst)
			} else {
				res, err = b.TakeUpTo(ctx, 4)
			}
			if err != nil {
				break
			}
			if was != nil && &res.Values[0].Float32s()[0] == was {
				reused++
			}
			out = append(out, fmt.Sprint(res.Indices, res.Keys, res.Values[0].Shape(), res.Values[0].Float32s(), res.Values[1].Float32s()))
			dst = res
		}
		return out, reused
	}
	fresh, _ := run(false)
	into, reused := run(true)
	if !slices.Equal(fresh, into) || len(fresh) != 3 {
		t.Fatalf("into\n%q\nfresh\n%q", into, fresh)
	}
	if reused != 1 { // the second batch; the third is smaller
		t.Errorf("%d batches in the memory handed back, want 1", reused)
	}

	// A failing take leaves dst alone.
	b := barrierNew(t)
	barrierFill(t, b, "a")
	dst, err := b.TakeManyInto(ctx, 1, BarrierBatch{})
	if err != nil {
		t.Fatal(err)
	}
	b.Close()
	was := fmt.Sprint(dst.Indices, dst.Keys, dst.Values[0].Float32s())
	if _, err := b.TakeManyInto(ctx, 1, dst); err == nil {
		t.Fatal("a take from an empty closed barrier succeeded")
	}
	if got := fmt.Sprint(dst.Indices, dst.Keys, dst.Values[0].Float32s()); got != was {
		t.Fatalf("dst became %s, was %s", got, was)
	}
	if dst.Indices[0] != math.MinInt64 {
		t.Fatalf("index %d", dst.Indices[0])
	}
}

// TestBarrierCopiedSteadyAllocs: elements inserted with InsertRows and
// taken into the batch handed back cost nothing once the barrier has held
// as many as it holds, whatever is inserted and taken.
func TestBarrierCopiedSteadyAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	const batch = 32
	b, _ := NewBarrier("b", []tensor.DType{tensor.Int64, tensor.Float32}, []tensor.Shape{{2}, {8}})
	keys := make([][]string, 8)
	for i := range keys {
		for j := range batch {
			keys[i] = append(keys[i], fmt.Sprint(i, "_", j))
		}
	}
	v0 := tensor.Zeros(tensor.Int64, tensor.Shape{batch, 2})
	v1 := tensor.Zeros(tensor.Float32, tensor.Shape{batch, 8})
	ctx := context.Background()
	var dst BarrierBatch
	i := 0
	step := func() {
		k := keys[i%len(keys)]
		i++
		if err := b.InsertRows(0, k, v0, nil); err != nil {
			t.Fatal(err)
		}
		if err := b.InsertRows(1, k, v1, nil); err != nil {
			t.Fatal(err)
		}
		var err error
		if dst, err = b.TakeManyInto(ctx, batch, dst); err != nil {
			t.Fatal(err)
		}
	}
	step()
	// AllocsPerRun counts the whole process's allocations: one a run of
	// four batches is left for another goroutine's, less than one a batch.
	const batches = 4
	n := testing.AllocsPerRun(100, func() {
		for range batches {
			step()
		}
	})
	if n > 1 {
		t.Errorf("%.1f allocations for %d inserts and takes of %d elements, want none", n, batches, batch)
	}
}

// TestBarrierTakeManyIntoBlocked: a take into a batch handed back that
// has to wait is served, by the insert that completes it, into that
// batch's memory; one whose context ends first leaves it alone.
func TestBarrierTakeManyIntoBlocked(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := barrierNew(t)
		barrierFill(t, b, "a", "b")
		dst, err := b.TakeManyInto(context.Background(), 2, BarrierBatch{})
		if err != nil {
			t.Fatal(err)
		}
		mem := &dst.Values[1].Float32s()[0]

		ctx, cancel := context.WithCancel(context.Background())
		cancelled := make(chan error)
		go func() {
			_, err := b.TakeManyInto(ctx, 2, dst)
			cancelled <- err
		}()
		synctest.Wait()
		cancel()
		if err := <-cancelled; !errors.Is(err, context.Canceled) {
			t.Fatalf("got %v", err)
		}
		if got := dst.Values[1].Float32s(); !slices.Equal(got, []float32{0, 10}) || !slices.Equal(dst.Keys, []string{"a", "b"}) {
			t.Fatalf("a cancelled take changed dst: %v %v", dst.Keys, got)
		}

		type result struct {
			res BarrierBatch
			err error
		}
		served := make(chan result)
		go func() {
			res, err := b.TakeManyInto(context.Background(), 2, dst)
			served <- result{res, err}
		}()
		synctest.Wait()
		barrierInsert(t, b, 0, []string{"c", "d"}, 3, 4)
		barrierInsert(t, b, 1, []string{"c", "d"}, 30, 40)
		r := <-served
		if r.err != nil {
			t.Fatal(r.err)
		}
		if !slices.Equal(r.res.Keys, []string{"c", "d"}) || !slices.Equal(r.res.Values[1].Float32s(), []float32{30, 40}) {
			t.Fatalf("got %v %v", r.res.Keys, r.res.Values[1].Float32s())
		}
		if &r.res.Values[1].Float32s()[0] != mem {
			t.Errorf("the waiting take was not served into dst's memory")
		}
	})
}
