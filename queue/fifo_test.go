package queue

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sluiceml/sluice/tensor"
)

// PAD-01, PAD-02: construction checks.
func TestConstructionErrors(t *testing.T) {
	cases := []struct {
		name string
		make func() error
		want string
	}{
		{"shapes length", func() error {
			_, err := NewFIFO(10, []tensor.DType{tensor.Int32, tensor.Float32}, Shapes(tensor.Shape{}))
			return err
		}, "Queue shapes must have the same length as dtypes"},
		{"not fully defined", func() error {
			_, err := NewFIFO(10, i32, Shapes(tensor.Shape{tensor.Unknown}))
			return err
		}, "All shapes must be fully defined"},
		{"names length", func() error {
			_, err := NewFIFO(10, i32, Names("a", "b"))
			return err
		}, "List of names must have the same length as the list of dtypes"},
		{"padding needs shapes", func() error {
			_, err := NewPaddingFIFO(10, f32, nil)
			return err
		}, "When providing partial shapes, a list of shapes must be provided."},
		{"padding shapes count", func() error {
			_, err := NewPaddingFIFO(10, f32, []tensor.Shape{{1}, {2}})
			return err
		}, "Shapes must be provided for all components, but received 1 dtypes and 2 shapes."},
		{"shuffle not fully defined", func() error {
			_, err := NewRandomShuffle(10, 0, i32, Shapes(tensor.Shape{tensor.Unknown}))
			return err
		}, "All shapes must be fully defined"},
		{"capacity", func() error {
			_, err := NewFIFO(0, i32)
			return err
		}, "capacity must be positive"},
	}
	for _, c := range cases {
		if err := c.make(); !errors.Is(err, ErrInvalidArgument) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
		}
	}
}

// type and shape checks.
func TestElementChecks(t *testing.T) {
	q, _ := NewFIFO(10, []tensor.DType{tensor.Float32, tensor.Float32}, Shapes(tensor.Shape{2, 2}, tensor.Shape{3, 3}))
	ok := Element{tensor.Zeros(tensor.Float32, tensor.Shape{2, 2}), tensor.Zeros(tensor.Float32, tensor.Shape{3, 3})}
	if err := q.Enqueue(bg, ok); err != nil {
		t.Fatal(err)
	}
	bad := Element{ok[0], tensor.Zeros(tensor.Float32, tensor.Shape{3, 4})}
	err := q.Enqueue(bg, bad)
	if !errors.Is(err, ErrInvalidArgument) || !strings.Contains(err.Error(), "Expected [3,3], got [3,4]") {
		t.Fatalf("Q-12: %v", err)
	}
	many := Element{tensor.Zeros(tensor.Float32, tensor.Shape{2, 2, 2}), tensor.Zeros(tensor.Float32, tensor.Shape{2, 3, 4})}
	err = q.EnqueueMany(bg, many)
	if !strings.Contains(err.Error(), "Shape mismatch in tuple component 1. Expected [2,3,3], got [2,3,4]") {
		t.Fatalf("Q-13: %v", err)
	}
	wrongType := Element{tensor.Zeros(tensor.Int32, tensor.Shape{2, 2}), ok[1]}
	if err := q.Enqueue(bg, wrongType); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("Q-10: %v", err)
	}
	if q.Size() != 1 {
		t.Fatalf("Q-11: size %d after rejected enqueues", q.Size())
	}
	free, _ := NewFIFO(10, []tensor.DType{tensor.Int32, tensor.Int32})
	err = free.EnqueueMany(bg, Element{tensor.New([]int32{1, 2, 3}), tensor.New([]int32{1, 2})})
	if !strings.Contains(err.Error(), "All input tensors must have the same size in the 0th dimension. Component 1 has 2, and should have 3") {
		t.Fatalf("Q-14: %v", err)
	}
	scalar := Element{tensor.Scalar(int32(7)), tensor.New([]int32{1, 2})}
	if err := free.EnqueueMany(bg, scalar); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("Q-08: %v", err)
	}
}

//
func TestSizesAndZeroCounts(t *testing.T) {
	free, _ := NewFIFO(10, i32)
	if _, err := free.DequeueMany(bg, 0); err == nil || !strings.Contains(err.Error(), "specified shapes") {
		t.Fatalf("Q-15: %v", err)
	}
	q := mustFIFO(t, 10)
	if q.Size() != 0 {
		t.Fatal("Q-16: empty size")
	}
	if err := q.EnqueueMany(bg, Element{tensor.New([]int32{})}); err != nil || q.Size() != 0 {
		t.Fatalf("Q-18: %v size %d", err, q.Size())
	}
	q.Enqueue(bg, sc(1))
	for _, f := range []func(context.Context, int) (Element, error){q.DequeueMany, q.DequeueUpTo} {
		e, err := f(bg, 0)
		if err != nil || !e[0].Shape().Equal(tensor.Shape{0}) || q.Size() != 1 {
			t.Fatalf("Q-19: %v %v size %d", e, err, q.Size())
		}
	}
	e, err := q.Dequeue(bg)
	if val(e, err) != 1 || q.Size() != 0 {
		t.Fatal("Q-16: after dequeue")
	}
}

// FIFO-01..04
func TestFIFOOrder(t *testing.T) {
	q, _ := NewFIFO(10, []tensor.DType{tensor.Float32, tensor.Int32}, Shapes(tensor.Shape{}, tensor.Shape{2}))
	for i := range 10 {
		q.Enqueue(bg, Element{tensor.Scalar(float32(10 * (i + 1))), tensor.New([]int32{int32(2*i + 1), int32(2*i + 2)})})
	}
	b, err := q.DequeueMany(bg, 4)
	if err != nil || !slices.Equal(b[0].Float32s(), []float32{10, 20, 30, 40}) ||
		!slices.Equal(b[1].Int32s(), []int32{1, 2, 3, 4, 5, 6, 7, 8}) || !b[1].Shape().Equal(tensor.Shape{4, 2}) {
		t.Fatalf("FIFO-04: %v %v", b, err)
	}
	q.DequeueMany(bg, 4)
	e, _ := q.Dequeue(bg)
	if e[0].Float32s()[0] != 90 || !e[1].Shape().Equal(tensor.Shape{2}) {
		t.Fatalf("FIFO-03: %v", e)
	}
	q2 := mustFIFO(t, 10)
	q2.EnqueueMany(bg, vec(10, 20, 30, 40))
	q2.EnqueueMany(bg, vec(10, 20, 30, 40))
	if got := vals(q2.DequeueMany(bg, 8)); !slices.Equal(got, []int32{10, 20, 30, 40, 10, 20, 30, 40}) {
		t.Fatalf("FIFO-02: %v", got)
	}
}

// Q-21, FIFO-07: a blocked enqueue completes once there is room.
func TestBlockedEnqueue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := mustFIFO(t, 4)
		q.EnqueueMany(bg, vec(10, 20, 30, 40))
		done := make(chan error)
		go func() { done <- q.Enqueue(bg, sc(50)) }()
		synctest.Wait()
		select {
		case <-done:
			t.Fatal("enqueue into a full queue did not block")
		default:
		}
		var got []int32
		for range 5 {
			got = append(got, val(q.Dequeue(bg)))
		}
		if err := <-done; err != nil || !slices.Equal(got, []int32{10, 20, 30, 40, 50}) {
			t.Fatalf("got %v, %v", got, err)
		}
	})
}

// EnqueueMany inserts what fits and blocks for the rest.
func TestEnqueueManyPartialProgress(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := mustFIFO(t, 5)
		done := make(chan error, 1)
		go func() { done <- q.EnqueueMany(bg, vec(1, 2, 3, 4, 5, 6, 7, 8, 9, 10)) }()
		synctest.Wait()
		if q.Size() != 5 {
			t.Fatalf("size %d, want 5", q.Size())
		}
		var got []int32
		got = append(got, val(q.Dequeue(bg)))
		synctest.Wait()
		if q.Size() != 5 {
			t.Fatalf("after first dequeue size %d, want 5", q.Size())
		}
		for range 3 {
			got = append(got, val(q.Dequeue(bg)))
		}
		synctest.Wait()
		select {
		case <-done:
			t.Fatal("enqueue finished too early")
		default:
		}
		got = append(got, val(q.Dequeue(bg)))
		synctest.Wait()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		for want := 5; want > 0; want-- {
			if q.Size() != want {
				t.Fatalf("size %d, want %d", q.Size(), want)
			}
			got = append(got, val(q.Dequeue(bg)))
		}
		if !slices.Equal(got, []int32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}) {
			t.Fatalf("order %v", got)
		}
	})
}

// DequeueMany of more than capacity absorbs elements as they arrive.
func TestDequeueManyLargerThanCapacity(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := mustFIFO(t, 2)
		res := make(chan []int32, 1)
		go func() { res <- vals(q.DequeueMany(bg, 4)) }()
		synctest.Wait()
		for i := range int32(4) {
			q.Enqueue(bg, sc(i))
			synctest.Wait()
			if i < 3 && len(res) != 0 {
				t.Fatal("returned before four elements")
			}
			if q.Size() != 0 {
				t.Fatalf("absorbed elements counted in Size: %d", q.Size())
			}
		}
		if got := <-res; !slices.Equal(got, []int32{0, 1, 2, 3}) {
			t.Fatalf("got %v", got)
		}
	})
}

// Q-48 over Q-23: a cancelled DequeueMany of more than capacity gives back
// every element it absorbed, past the capacity; enqueues then wait until
// the queue is below it, and nothing is lost or reordered (audit 64).
func TestCancelledDequeueManyGivesBackPastCapacity(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := mustFIFO(t, 2)
		ctx, cancel := context.WithCancel(bg)
		res := make(chan error, 1)
		go func() { _, err := q.DequeueMany(ctx, 5); res <- err }()
		synctest.Wait()
		for i := range int32(4) {
			if err := q.Enqueue(bg, sc(i)); err != nil {
				t.Fatal(err)
			}
		}
		cancel()
		if err := <-res; !errors.Is(err, context.Canceled) {
			t.Fatal(err)
		}
		if q.Size() != 4 || q.Capacity() != 2 {
			t.Fatalf("Size %d, Capacity %d: want the four absorbed elements back", q.Size(), q.Capacity())
		}
		done := make(chan error, 1)
		go func() { done <- q.Enqueue(bg, sc(4)) }()
		for want := 3; want >= 1; want-- {
			synctest.Wait()
			if len(done) != 0 {
				t.Fatalf("enqueue went in with %d elements in a queue of capacity 2", want+1)
			}
			if got := val(q.Dequeue(bg)); got != int32(4-want-1) {
				t.Fatalf("dequeued %d", got)
			}
		}
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if got := vals(q.DequeueMany(bg, 2)); !slices.Equal(got, []int32{3, 4}) {
			t.Fatalf("got %v, want [3 4]", got)
		}
	})
}

// mixed enqueue sizes keep order through a small queue.
func TestMixedEnqueueOrder(t *testing.T) {
	q := mustFIFO(t, 10)
	go func() {
		next := int32(0)
		for next < 250 {
			n := min(int32(next%21), 250-next)
			var vs []int32
			for i := range n {
				vs = append(vs, next+i)
			}
			if n == 0 {
				q.Enqueue(bg, sc(next))
				next++
				continue
			}
			q.EnqueueMany(bg, vec(vs...))
			next += n
		}
		q.Close(bg)
	}()
	var got []int32
	for i := 0; ; i++ {
		b, err := q.DequeueUpTo(bg, i%20+1)
		if isEOF(err) {
			break
		}
		got = append(got, vals(b, err)...)
	}
	for i, v := range got {
		if v != int32(i) {
			t.Fatalf("position %d holds %d", i, v)
		}
	}
	if len(got) != 250 {
		t.Fatalf("got %d elements", len(got))
	}
}

//
func TestCloseBasics(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := mustFIFO(t, 10, Name("fq"))
		errc := make(chan error, 1)
		go func() { _, err := q.Dequeue(bg); errc <- err }()
		synctest.Wait()
		q.Enqueue(bg, sc(1))
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
		go func() { _, err := q.Dequeue(bg); errc <- err }()
		synctest.Wait()
		if q.IsClosed() {
			t.Fatal("closed before Close")
		}
		q.Enqueue(bg, sc(2))
		<-errc
		q.Enqueue(bg, sc(3))
		if err := q.Close(bg); err != nil {
			t.Fatal(err)
		}
		if !q.IsClosed() {
			t.Fatal("IsClosed false after Close")
		}
		err := q.Enqueue(bg, sc(4))
		if !errors.Is(err, ErrClosed) || err.Error() != "FIFOQueue 'fq' is closed.: queue is closed" {
			t.Fatalf("Q-27: %v", err)
		}
		if val(q.Dequeue(bg)) != 3 {
			t.Fatal("Q-28: element lost")
		}
		_, err = q.Dequeue(bg)
		if !isEOF(err) || !strings.Contains(err.Error(), "FIFOQueue 'fq' is closed and has insufficient elements (requested 1, current size 0)") {
			t.Fatalf("Q-28: %v", err)
		}
		if err := q.Close(bg); err == nil || !strings.Contains(err.Error(), "Queue 'fq' is already closed.") {
			t.Fatalf("Q-32: %v", err)
		}
		if err := q.CloseNow(bg); err != nil {
			t.Fatalf("Q-32 cancel-close: %v", err)
		}

		q2 := mustFIFO(t, 10)
		go func() { _, err := q2.Dequeue(bg); errc <- err }()
		synctest.Wait()
		q2.Close(bg)
		if err := <-errc; !isEOF(err) {
			t.Fatalf("Q-29: %v", err)
		}
	})
}

// close waits behind blocked enqueues, which succeed.
func TestCloseWaitsForPendingEnqueues(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := mustFIFO(t, 4)
		q.EnqueueMany(bg, vec(10, 20, 30, 40))
		enq := make(chan error, 1)
		go func() { enq <- q.Enqueue(bg, sc(50)) }()
		synctest.Wait()
		closed := make(chan error, 1)
		go func() { closed <- q.Close(bg) }()
		synctest.Wait()
		if len(closed) != 0 {
			t.Fatal("Q-31: close completed before the pending enqueue")
		}
		var got []int32
		got = append(got, val(q.Dequeue(bg)))
		if err := <-enq; err != nil {
			t.Fatalf("Q-30: pending enqueue failed: %v", err)
		}
		if err := <-closed; err != nil {
			t.Fatal(err)
		}
		if err := q.Enqueue(bg, sc(60)); !errors.Is(err, ErrClosed) {
			t.Fatalf("Q-31: enqueue after close: %v", err)
		}
		for range 4 {
			got = append(got, val(q.Dequeue(bg)))
		}
		if !slices.Equal(got, []int32{10, 20, 30, 40, 50}) || q.Size() != 0 {
			t.Fatalf("got %v", got)
		}
	})
}

// a failed DequeueMany gives back what it absorbed.
func TestDequeueManyOnClose(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q, _ := NewFIFO(4, []tensor.DType{tensor.Int32, tensor.Int32}, Shapes(tensor.Shape{}, tensor.Shape{}))
		q.EnqueueMany(bg, Element{tensor.New([]int32{1, 2, 3}), tensor.New([]int32{10, 20, 30})})
		errc := make(chan error, 1)
		go func() { _, err := q.DequeueMany(bg, 4); errc <- err }()
		synctest.Wait()
		if q.Size() != 0 {
			t.Fatalf("partial batch counted: size %d", q.Size())
		}
		q.Close(bg)
		if err := <-errc; !isEOF(err) || !strings.Contains(err.Error(), "(requested 1, current size 0)") {
			t.Fatalf("Q-34: %v; TensorFlow 2.21: (requested 1, current size 0)", err)
		}
		for i := int32(1); i <= 3; i++ {
			e, err := q.Dequeue(bg)
			if err != nil || e[0].Int32s()[0] != i || e[1].Int32s()[0] != 10*i {
				t.Fatalf("Q-34: element %d = %v, %v", i, e, err)
			}
		}
	})
	synctest.Test(t, func(t *testing.T) {
		q := mustFIFO(t, 10)
		q.EnqueueMany(bg, vec(10, 20, 30, 40))
		if got := vals(q.DequeueMany(bg, 3)); !slices.Equal(got, []int32{10, 20, 30}) {
			t.Fatal(got)
		}
		errc := make(chan error, 1)
		go func() { _, err := q.DequeueMany(bg, 3); errc <- err }()
		synctest.Wait()
		q.Close(bg)
		// TensorFlow 2.21 counts the 2 elements still missing and the size
		// before the partial batch is given back (tf/check2.py).
		if err := <-errc; !isEOF(err) || !strings.Contains(err.Error(), "(requested 2, current size 0)") {
			t.Fatalf("Q-33: %v", err)
		}
		if val(q.Dequeue(bg)) != 40 {
			t.Fatal("Q-33: 40 lost")
		}
	})
}

//
func TestDequeueUpTo(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := mustFIFO(t, 10)
		q.EnqueueMany(bg, vec(10, 20, 30, 40))
		if got := vals(q.DequeueUpTo(bg, 3)); !slices.Equal(got, []int32{10, 20, 30}) {
			t.Fatal(got)
		}
		res := make(chan []int32, 1)
		go func() { res <- vals(q.DequeueUpTo(bg, 3)) }()
		synctest.Wait()
		if len(res) != 0 {
			t.Fatal("Q-35: returned early on an open queue")
		}
		q.Close(bg)
		if got := <-res; !slices.Equal(got, []int32{40}) {
			t.Fatalf("Q-36: %v", got)
		}
		if _, err := q.DequeueUpTo(bg, 3); !isEOF(err) {
			t.Fatalf("Q-37: %v", err)
		}
	})
	q := mustFIFO(t, 1000)
	all := make([]int32, 1000)
	for i := range all {
		all[i] = int32(i)
	}
	q.EnqueueMany(bg, vec(all...))
	q.Close(bg)
	var mu sync.Mutex
	var got []int32
	var sizes []int
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() {
			b, err := q.DequeueUpTo(bg, 101)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			got = append(got, b[0].Int32s()...)
			sizes = append(sizes, b[0].Len())
			mu.Unlock()
		})
	}
	wg.Wait()
	slices.Sort(got)
	slices.Sort(sizes)
	if !slices.Equal(got, all) || sizes[0] != 91 || sizes[9] != 101 {
		t.Fatalf("Q-38: sizes %v", sizes)
	}
}

// cancel-close fails blocked enqueues at once.
func TestCancelClose(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := mustFIFO(t, 2)
		q.EnqueueMany(bg, vec(1, 2))
		enq := make(chan error, 1)
		many := make(chan error, 1)
		go func() { enq <- q.Enqueue(bg, sc(3)) }()
		synctest.Wait()
		go func() { many <- q.EnqueueMany(bg, vec(4, 5)) }()
		synctest.Wait()
		deq := make(chan []int32, 1)
		if err := q.CloseNow(bg); err != nil {
			t.Fatal(err)
		}
		for _, c := range []chan error{enq, many} {
			if err := <-c; !errors.Is(err, ErrCancelled) || !strings.Contains(err.Error(), "Enqueue operation was cancelled") {
				t.Fatalf("Q-42: %v", err)
			}
		}
		go func() { deq <- vals(q.DequeueUpTo(bg, 5)) }()
		if got := <-deq; !slices.Equal(got, []int32{1, 2}) {
			t.Fatalf("Q-44: %v", got)
		}
	})
}

// a cancelled or timed-out call leaves the queue usable
// and unchanged.
func TestContextCancellation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := mustFIFO(t, 2)
		ctx, cancel := context.WithTimeout(bg, 10*time.Millisecond)
		defer cancel()
		if _, err := q.Dequeue(ctx); !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "Dequeue operation was cancelled") {
			t.Fatalf("Q-47: %v", err)
		}
		q.Enqueue(bg, sc(1))
		ctx2, cancel2 := context.WithCancel(bg)
		res := make(chan error, 1)
		go func() { _, err := q.DequeueMany(ctx2, 2); res <- err }()
		synctest.Wait()
		cancel2()
		if err := <-res; !errors.Is(err, context.Canceled) {
			t.Fatalf("Q-46: %v", err)
		}
		if q.Size() != 1 || val(q.Dequeue(bg)) != 1 {
			t.Fatal("Q-48: absorbed element not given back")
		}
		q.EnqueueMany(bg, vec(1, 2))
		ctx3, cancel3 := context.WithCancel(bg)
		go func() { res <- q.Enqueue(ctx3, sc(3)) }()
		synctest.Wait()
		cancel3()
		if err := <-res; !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "Enqueue operation was cancelled") {
			t.Fatalf("Q-46 enqueue: %v", err)
		}
		if got := vals(q.DequeueMany(bg, 2)); !slices.Equal(got, []int32{1, 2}) || q.Size() != 0 {
			t.Fatalf("Q-48: %v", got)
		}
	})
}

// named components.
func TestNames(t *testing.T) {
	q, err := NewFIFO(10, []tensor.DType{tensor.Float32, tensor.Int32, tensor.String},
		Shapes(tensor.Shape{}, tensor.Shape{}, tensor.Shape{}), Names("f", "i", "s"))
	if err != nil {
		t.Fatal(err)
	}
	e, err := FromMap(q, map[string]tensor.Tensor{"i": tensor.Scalar(int32(123)), "s": tensor.StringScalar("aa"), "f": tensor.Scalar(float32(10))})
	if err != nil {
		t.Fatal(err)
	}
	q.Enqueue(bg, e)
	got, _ := q.Dequeue(bg)
	m, _ := ToMap(q, got)
	if m["i"].Int32s()[0] != 123 || string(m["s"].Strings()[0]) != "aa" {
		t.Fatalf("got %v", m)
	}
	if v, ok := Lookup(q, got, "f"); !ok || v.Float32s()[0] != 10 {
		t.Fatal("Lookup")
	}
	for _, bad := range []map[string]tensor.Tensor{{}, {"i": tensor.Scalar(int32(1)), "x": tensor.Scalar(int32(1)), "f": tensor.Scalar(float32(1))}} {
		if _, err := FromMap(q, bad); err == nil || !strings.Contains(err.Error(), "match names of Queue") {
			t.Errorf("Q-06: %v", err)
		}
	}
	unnamed := mustFIFO(t, 1)
	if _, err := FromMap(unnamed, map[string]tensor.Tensor{"a": tensor.Scalar(int32(1))}); err == nil || !strings.Contains(err.Error(), "must have names") {
		t.Errorf("Q-05: %v", err)
	}
	// An element of other components than the names (audit 82: a panic).
	if _, err := ToMap(q, got[:1]); !errors.Is(err, ErrInvalidArgument) || !strings.Contains(err.Error(), "1 components") {
		t.Errorf("ToMap of 1 of 3 components: %v", err)
	}
}

// every dtype round-trips unchanged through EnqueueMany and
// DequeueMany, values included.
func TestAllDTypesRoundTrip(t *testing.T) {
	for d := tensor.Bool; d <= tensor.String; d++ {
		q, err := NewFIFO(10, []tensor.DType{d}, Shapes(tensor.Shape{2}))
		if err != nil {
			t.Fatal(err)
		}
		in := distinctValues(d, tensor.Shape{3, 2})
		if err := q.EnqueueMany(bg, Element{in}); err != nil {
			t.Fatalf("%v: %v", d, err)
		}
		out, err := q.DequeueMany(bg, 3)
		if err != nil || out[0].DType() != d || !tensor.Equal(out[0], in) {
			t.Fatalf("%v: %v %v, want %v", d, out, err, in)
		}
	}
}

// distinctValues returns a tensor whose elements differ from one another
// (alternating, for bool) and from zero where the type allows.
func distinctValues(d tensor.DType, shape tensor.Shape) tensor.Tensor {
	n := shape.NumElements()
	var data any
	switch d {
	case tensor.Bool:
		v := make([]bool, n)
		for i := range v {
			v[i] = i%2 == 0
		}
		data = v
	case tensor.Int8:
		data = seq(n, func(i int) int8 { return int8(i - 3) })
	case tensor.Int16:
		data = seq(n, func(i int) int16 { return int16(-1000 * (i + 1)) })
	case tensor.Int32:
		data = seq(n, func(i int) int32 { return int32(1<<20 + i) })
	case tensor.Int64:
		data = seq(n, func(i int) int64 { return int64(-1<<40 - i) })
	case tensor.Uint8:
		data = seq(n, func(i int) uint8 { return uint8(250 + i) })
	case tensor.Uint16:
		data = seq(n, func(i int) uint16 { return uint16(60000 + i) })
	case tensor.Uint32:
		data = seq(n, func(i int) uint32 { return uint32(4e9) + uint32(i) })
	case tensor.Uint64:
		data = seq(n, func(i int) uint64 { return 1<<63 + uint64(i) })
	case tensor.Float16:
		data = seq(n, func(i int) tensor.Half { return tensor.NewHalf(float32(i) + 0.5) })
	case tensor.Float32:
		data = seq(n, func(i int) float32 { return float32(i) - 2.25 })
	case tensor.Float64:
		data = seq(n, func(i int) float64 { return 1e300 / float64(i+1) })
	case tensor.Complex64:
		data = seq(n, func(i int) complex64 { return complex(float32(i), -1) })
	case tensor.Complex128:
		data = seq(n, func(i int) complex128 { return complex(1, float64(i)) })
	case tensor.String:
		data = seq(n, func(i int) []byte { return []byte(strings.Repeat("x", i)) })
	}
	t, err := tensor.FromData(data, shape)
	if err != nil {
		panic(err)
	}
	return t
}

func seq[T any](n int, f func(int) T) []T {
	out := make([]T, n)
	for i := range out {
		out[i] = f(i)
	}
	return out
}

// FIFO-06: parallel producers and consumers lose and duplicate nothing.
func TestParallelProducersConsumers(t *testing.T) {
	q := mustFIFO(t, 50)
	var wg sync.WaitGroup
	for p := range 10 {
		wg.Go(func() {
			for i := range 100 {
				if err := q.Enqueue(bg, sc(int32(p*100+i))); err != nil {
					t.Error(err)
				}
			}
		})
	}
	var mu sync.Mutex
	var got []int32
	var cw sync.WaitGroup
	for range 10 {
		cw.Go(func() {
			for range 10 {
				b, err := q.DequeueMany(bg, 10)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				got = append(got, b[0].Int32s()...)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	cw.Wait()
	slices.Sort(got)
	for i, v := range got {
		if v != int32(i) {
			t.Fatalf("element %d is %d", i, v)
		}
	}
	if len(got) != 1000 {
		t.Fatalf("got %d", len(got))
	}
}
