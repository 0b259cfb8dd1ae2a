package queue

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/sluiceml/sluice/tensor"
)

func mustShuffle(t *testing.T, capacity, mad int, opts ...Option) *RandomShuffle {
	t.Helper()
	q, err := NewRandomShuffle(capacity, mad, i32, append([]Option{flat}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// RSQ-01: a random permutation, tuples kept together.
func TestRandomShufflePairs(t *testing.T) {
	q, _ := NewRandomShuffle(10, 0, []tensor.DType{tensor.Int32, tensor.Int32}, Shapes(tensor.Shape{}, tensor.Shape{1}))
	q.EnqueueMany(bg, Element{tensor.New([]int32{1, 2, 3, 4}), tensor.New([]int32{5, 6, 7, 8}, 4, 1)})
	q.Enqueue(bg, Element{tensor.Scalar(int32(9)), tensor.New([]int32{10})})
	b, err := q.DequeueMany(bg, 3)
	if err != nil {
		t.Fatal(err)
	}
	got := map[int32]int32{}
	for i, v := range b[0].Int32s() {
		got[v] = b[1].Int32s()[i]
	}
	for range 2 {
		e, _ := q.Dequeue(bg)
		got[e[0].Int32s()[0]] = e[1].Int32s()[0]
	}
	want := map[int32]int32{1: 5, 2: 6, 3: 7, 4: 8, 9: 10}
	for k, v := range want {
		if got[k] != v {
			t.Fatalf("pairs %v", got)
		}
	}
}

// RSQ-02, RSQ-03: min_after_dequeue holds while open and is lifted by
// close.
func TestMinAfterDequeue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := mustShuffle(t, 10, 2)
		q.EnqueueMany(bg, vec(1, 2, 3, 4))
		q.Dequeue(bg)
		q.Dequeue(bg)
		res := make(chan error, 1)
		go func() { _, err := q.Dequeue(bg); res <- err }()
		synctest.Wait()
		if len(res) != 0 {
			t.Fatal("dequeue went below min_after_dequeue")
		}
		q.Close(bg)
		if err := <-res; err != nil {
			t.Fatal(err)
		}
		if _, err := q.Dequeue(bg); err != nil {
			t.Fatal(err)
		}
		if _, err := q.Dequeue(bg); !isEOF(err) || !strings.Contains(err.Error(), "RandomShuffleQueue") {
			t.Fatalf("got %v", err)
		}
	})
	q := mustShuffle(t, 10, 2)
	q.EnqueueMany(bg, vec(1, 2, 3, 4))
	q.Close(bg)
	for range 4 {
		if _, err := q.Dequeue(bg); err != nil {
			t.Fatalf("RSQ-03: %v", err)
		}
	}
}

// RSQ-04, RSQ-05, RSQ-06
func TestShuffleDequeueManyOnClose(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := mustShuffle(t, 10, 2)
		q.EnqueueMany(bg, vec(1, 2, 3, 4))
		res := make(chan []int32, 1)
		go func() { res <- vals(q.DequeueUpTo(bg, 3)) }()
		synctest.Wait()
		if len(res) != 0 {
			t.Fatal("RSQ-04: returned while open")
		}
		q.Close(bg)
		if got := <-res; len(got) != 3 {
			t.Fatalf("RSQ-04: %v", got)
		}
		if got := vals(q.DequeueUpTo(bg, 3)); len(got) != 1 {
			t.Fatalf("RSQ-04: %v", got)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		q := mustShuffle(t, 10, 0)
		q.EnqueueMany(bg, vec(1, 2, 3, 4))
		first := vals(q.DequeueMany(bg, 3))
		errc := make(chan error, 1)
		go func() { _, err := q.DequeueMany(bg, 3); errc <- err }()
		synctest.Wait()
		q.Close(bg)
		if err := <-errc; !isEOF(err) {
			t.Fatalf("RSQ-05: %v", err)
		}
		rest := vals(q.DequeueMany(bg, q.Size()))
		all := slices.Concat(first, rest)
		slices.Sort(all)
		if !slices.Equal(all, []int32{1, 2, 3, 4}) {
			t.Fatalf("RSQ-05: %v", all)
		}
	})
}

// RSQ-09: with a full queue, the blocked element cannot be the first
// drawn.
func TestShuffleFullQueueFairness(t *testing.T) {
	for seed := range uint64(50) {
		synctest.Test(t, func(t *testing.T) {
			q := mustShuffle(t, 4, 0, Seed(seed+1))
			q.EnqueueMany(bg, vec(10, 20, 30, 40))
			done := make(chan error, 1)
			go func() { done <- q.EnqueueMany(bg, vec(50, 60)) }()
			synctest.Wait()
			var got []int32
			for range 6 {
				got = append(got, val(q.Dequeue(bg)))
			}
			<-done
			if got[0] == 50 || got[0] == 60 || got[1] == 60 {
				t.Fatalf("seed %d: order %v", seed, got)
			}
		})
	}
}

// RSQ-11, RSQ-12: a seed fixes the order; different seeds differ.
func TestShuffleSeeds(t *testing.T) {
	order := func(seed uint64) []int32 {
		q := mustShuffle(t, 100, 0, Seed(seed))
		all := make([]int32, 100)
		for i := range all {
			all[i] = int32(i)
		}
		q.EnqueueMany(bg, vec(all...))
		return vals(q.DequeueMany(bg, 100))
	}
	a, b, c := order(1729), order(1729), order(87539319)
	if !slices.Equal(a, b) || slices.Equal(a, c) {
		t.Fatal("seeded order not deterministic or seeds agree")
	}
	if slices.IsSorted(a) {
		t.Fatal("not shuffled")
	}
}

// RSQ-15: parallel DequeueUpTo of random sizes return every element once.
func TestShuffleParallelUpTo(t *testing.T) {
	const total = 1000
	q := mustShuffle(t, total, 0)
	all := make([]int32, total)
	for i := range all {
		all[i] = int32(i)
	}
	q.EnqueueMany(bg, vec(all...))
	q.Close(bg)
	var mu sync.Mutex
	var got []int32
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 0))
			for {
				b, err := q.DequeueUpTo(bg, 50+rng.IntN(100))
				if isEOF(err) {
					return
				}
				mu.Lock()
				got = append(got, vals(b, err)...)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	slices.Sort(got)
	if !slices.Equal(got, all) {
		t.Fatalf("%d elements", len(got))
	}
}

// PAD-03, PAD-04, PAD-06
func TestPaddingFIFO(t *testing.T) {
	q, err := NewPaddingFIFO(10, []tensor.DType{tensor.String, tensor.Int32},
		[]tensor.Shape{{tensor.Unknown}, {1, tensor.Unknown}})
	if err != nil {
		t.Fatal(err)
	}
	strs := [][]string{{"a"}, {"ab"}, {"abc"}, {"abc", "d"}, {"abc", "d", "e"}, {"abc", "d", "e", "f"}}
	ints := [][]int32{{1}, {2}, {3}, {1, 2}, {1, 2, 3}, {1, 2, 3, 4}}
	for i := range strs {
		if err := q.Enqueue(bg, Element{tensor.Strings(strs[i]...), tensor.New(ints[i], 1, len(ints[i]))}); err != nil {
			t.Fatal(err)
		}
	}
	b, err := q.DequeueMany(bg, 5)
	if err != nil {
		t.Fatal(err)
	}
	wantS := tensor.New([][]byte{[]byte("a"), nil, nil, []byte("ab"), nil, nil, []byte("abc"), nil, nil,
		[]byte("abc"), []byte("d"), nil, []byte("abc"), []byte("d"), []byte("e")}, 5, 3)
	if !b[0].Shape().Equal(tensor.Shape{5, 3}) || !tensor.Equal(padNil(b[0]), padNil(wantS)) {
		t.Fatalf("strings %v", b[0])
	}
	if !tensor.Equal(b[1], tensor.New([]int32{1, 0, 0, 2, 0, 0, 3, 0, 0, 1, 2, 0, 1, 2, 3}, 5, 1, 3)) {
		t.Fatalf("ints %v", b[1])
	}
	e, _ := q.Dequeue(bg)
	if e[0].Len() != 4 || !e[1].Shape().Equal(tensor.Shape{1, 4}) {
		t.Fatalf("single dequeue padded: %v", e)
	}
	bad := Element{tensor.Strings("x"), tensor.New([]int32{1, 2, 3, 4, 5, 6}, 2, 3)}
	if err := q.Enqueue(bg, bad); err == nil || !strings.Contains(err.Error(), "Expected [1,?], got [2,3]") {
		t.Fatalf("PAD-04: %v", err)
	}
	z, err := q.DequeueMany(bg, 0)
	if err != nil || !z[0].Shape().Equal(tensor.Shape{0, 0}) {
		t.Fatalf("PAD-06: %v %v", z, err)
	}
}

// padNil makes nil and empty strings compare equal.
func padNil(t tensor.Tensor) tensor.Tensor {
	ss := t.Strings()
	out := make([][]byte, len(ss))
	for i, s := range ss {
		out[i] = append([]byte{}, s...)
	}
	r, _ := tensor.FromData(out, t.Shape())
	return r
}

// PRI-02, PRI-03, PRI-05
func TestPriority(t *testing.T) {
	q, err := NewPriority(1000, []tensor.DType{tensor.String}, Shapes(tensor.Shape{}))
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var prios []int64
	for range 1000 {
		p := int64(rng.IntN(200) - 100)
		prios = append(prios, p)
		q.Enqueue(bg, Element{tensor.Scalar(p), tensor.StringScalar(strconvI(p))})
	}
	var got []int64
	for range 10 {
		b, err := q.DequeueMany(bg, 100)
		if err != nil {
			t.Fatal(err)
		}
		for i, p := range b[0].Int64s() {
			if string(b[1].Strings()[i]) != strconvI(p) {
				t.Fatal("value detached from its priority")
			}
		}
		got = append(got, b[0].Int64s()...)
	}
	slices.Sort(prios)
	if !slices.Equal(got, prios) {
		t.Fatal("not in priority order")
	}
	err = q.Enqueue(bg, Element{tensor.New([]int64{1, 2}), tensor.StringScalar("x")})
	if err == nil || !strings.Contains(err.Error(), "Shape mismatch in tuple component 0. Expected [], got [2]") {
		t.Fatalf("PRI-05: %v", err)
	}
	err = q.EnqueueMany(bg, Element{tensor.New([]int64{1, 2, 3, 4}, 2, 2), tensor.Strings("a", "b")})
	if err == nil || !strings.Contains(err.Error(), "Expected [2], got [2,2]") {
		t.Fatalf("PRI-05 many: %v", err)
	}
}

func strconvI(p int64) string { return string(rune('A'+(p+100)%26)) + string(rune('a'+(p+100)/26)) }

// PRI-06: 40 producers and 40 consumers on a capacity-10 queue finish.
func TestPriorityNoDeadlock(t *testing.T) {
	q, _ := NewPriority(10, i32, Shapes(tensor.Shape{}))
	counts := make([]int, 40)
	for i := range counts {
		counts[i] = i % 10
	}
	var in, out sync.WaitGroup
	var mu sync.Mutex
	total := 0
	for _, n := range counts {
		in.Go(func() {
			p := make([]int64, n)
			v := make([]int32, n)
			for i := range n {
				p[i], v[i] = int64(i), int32(i)
			}
			if err := q.EnqueueMany(bg, Element{tensor.New(p), tensor.New(v)}); err != nil {
				t.Error(err)
			}
		})
	}
	rand.Shuffle(len(counts), func(i, j int) { counts[i], counts[j] = counts[j], counts[i] })
	for _, n := range counts {
		out.Go(func() {
			b, err := q.DequeueMany(bg, n)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			total += b[0].Len()
			mu.Unlock()
		})
	}
	in.Wait()
	out.Wait()
	if total != 180 {
		t.Fatalf("dequeued %d", total)
	}
}

// A randomized interleaving of every operation from several goroutines:
// no element is lost or duplicated and every blocked call returns.
func TestRandomizedOperations(t *testing.T) {
	for round := range 20 {
		synctest.Test(t, func(t *testing.T) {
			q := mustFIFO(t, 7)
			rng := rand.New(rand.NewPCG(uint64(round), 99))
			var mu sync.Mutex
			enqueued := map[int32]int{}
			dequeued := map[int32]int{}
			next := int32(0)
			var wg sync.WaitGroup
			for p := range 4 {
				seed := rng.Uint64()
				wg.Go(func() {
					r := rand.New(rand.NewPCG(seed, uint64(p)))
					for range 30 {
						ctx, cancel := context.WithCancel(bg)
						if r.IntN(6) == 0 {
							cancel()
						}
						mu.Lock()
						n := r.IntN(4)
						vs := make([]int32, n)
						for i := range vs {
							vs[i] = next
							next++
						}
						mu.Unlock()
						var err error
						if n == 1 {
							err = q.Enqueue(ctx, sc(vs[0]))
						} else {
							err = q.EnqueueMany(ctx, vec(vs...))
						}
						cancel()
						if err == nil {
							mu.Lock()
							for _, v := range vs {
								enqueued[v]++
							}
							mu.Unlock()
						}
					}
				})
			}
			var cw sync.WaitGroup
			for c := range 3 {
				seed := rng.Uint64()
				cw.Go(func() {
					r := rand.New(rand.NewPCG(seed, uint64(c)))
					for {
						ctx, cancel := context.WithCancel(bg)
						if r.IntN(8) == 0 {
							cancel()
						}
						var b Element
						var err error
						switch r.IntN(3) {
						case 0:
							b, err = q.Dequeue(ctx)
						case 1:
							b, err = q.DequeueMany(ctx, r.IntN(5))
						default:
							b, err = q.DequeueUpTo(ctx, 1+r.IntN(5))
						}
						cancel()
						if isEOF(err) {
							return
						}
						if err == nil {
							mu.Lock()
							for _, v := range b[0].Int32s() {
								dequeued[v]++
							}
							mu.Unlock()
						}
					}
				})
			}
			wg.Wait()
			closeQueue(bg, q, rng.IntN(2) == 0)
			cw.Wait()
			// Whatever is left after the consumers stopped: at most a
			// partial batch's worth that DequeueMany could not take.
			for q.Size() > 0 {
				e, _ := q.Dequeue(bg)
				dequeued[e[0].Int32s()[0]]++
			}
			for v, n := range dequeued {
				if n != 1 {
					t.Fatalf("element %d dequeued %d times", v, n)
				}
			}
			for v := range enqueued {
				if dequeued[v] != 1 {
					t.Fatalf("element %d lost", v)
				}
			}
		})
	}
}
