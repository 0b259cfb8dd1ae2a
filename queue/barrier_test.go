package queue

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sluiceml/sluice/tensor"
)

// barrierNew returns a barrier of two float32 scalars named "B", the
// barrier TensorFlow's reference script uses.
func barrierNew(t testing.TB) *Barrier {
	t.Helper()
	b, err := NewBarrier("B", []tensor.DType{tensor.Float32, tensor.Float32}, []tensor.Shape{{}, {}})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func barrierFloats(vs ...float32) tensor.Tensor {
	if vs == nil {
		vs = []float32{}
	}
	return tensor.New(vs)
}

// barrierInsert inserts component c and fails the test on error.
func barrierInsert(t testing.TB, b *Barrier, c int, keys []string, vs ...float32) {
	t.Helper()
	if err := b.InsertMany(c, keys, barrierFloats(vs...)); err != nil {
		t.Fatal(err)
	}
}

// barrierFill inserts both components of keys, with values i and 10*i.
func barrierFill(t testing.TB, b *Barrier, keys ...string) {
	t.Helper()
	v0, v1 := make([]float32, len(keys)), make([]float32, len(keys))
	for i := range keys {
		v0[i], v1[i] = float32(i), float32(10*i)
	}
	barrierInsert(t, b, 0, keys, v0...)
	barrierInsert(t, b, 1, keys, v1...)
}

// barrierOp is one step of a TensorFlow reference scenario.
type barrierOp struct {
	Op     []json.RawMessage `json:"op"`
	Result struct {
		OK         bool        `json:"ok"`
		Blocks     bool        `json:"blocks"`
		Error      string      `json:"error"`
		Message    string      `json:"message"`
		Ready      *int        `json:"ready"`
		Incomplete *int        `json:"incomplete"`
		Indices    []uint64    `json:"indices"`
		Keys       []string    `json:"keys"`
		Values     [][]float32 `json:"values"`
	} `json:"result"`
}

// TestBarrierMatchesTensorFlow replays the scenarios of
// tools/tfref/barrier.py and compares every outcome with TensorFlow's:
// values, insertion indices, keys, sizes, error kinds and messages
// (BAR-02..BAR-09).
func TestBarrierMatchesTensorFlow(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "barrier_tf.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Scenarios map[string][]barrierOp `json:"scenarios"`
	}
	if err := json.Unmarshal(data, &ref); err != nil {
		t.Fatal(err)
	}
	if len(ref.Scenarios) < 10 {
		t.Fatalf("only %d scenarios", len(ref.Scenarios))
	}
	tfName := regexp.MustCompile(`_\d+_B\b`)
	for name, ops := range ref.Scenarios {
		t.Run(name, func(t *testing.T) {
			b := barrierNew(t)
			for i, op := range ops {
				var kind string
				json.Unmarshal(op.Op[0], &kind)
				want := op.Result
				var err error
				var res BarrierBatch
				step := fmt.Sprintf("op %d %s", i, op.Op)
				switch kind {
				case "insert":
					var c int
					var keys []string
					var vs []float32
					json.Unmarshal(op.Op[1], &c)
					json.Unmarshal(op.Op[2], &keys)
					json.Unmarshal(op.Op[3], &vs)
					err = b.InsertMany(c, keys, barrierFloats(vs...))
				case "take":
					var n int
					var small bool
					json.Unmarshal(op.Op[1], &n)
					json.Unmarshal(op.Op[2], &small)
					ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
					res, err = takeBarrier(ctx, b, n, small)
					cancel()
					if want.Blocks {
						if !errors.Is(err, context.DeadlineExceeded) {
							t.Fatalf("%s: want a blocked take, got %v", step, err)
						}
						continue
					}
				case "close":
					var cancel bool
					json.Unmarshal(op.Op[1], &cancel)
					err = closeBarrier(b, cancel)
				case "sizes":
					if r, inc := b.ReadySize(), b.IncompleteSize(); r != *want.Ready || inc != *want.Incomplete {
						t.Fatalf("%s: ready %d incomplete %d, want %d %d", step, r, inc, *want.Ready, *want.Incomplete)
					}
					continue
				}
				if want.Error != "" {
					sentinel := map[string]error{"OutOfRangeError": io.EOF, "CancelledError": ErrClosed, "InvalidArgumentError": ErrInvalidArgument}[want.Error]
					msg := tfName.ReplaceAllString(want.Message, "B")
					if !errors.Is(err, sentinel) || !strings.HasPrefix(err.Error(), msg) {
						t.Fatalf("%s: got %v\nwant %s %q", step, err, want.Error, msg)
					}
					continue
				}
				if err != nil {
					t.Fatalf("%s: %v", step, err)
				}
				if kind != "take" {
					continue
				}
				idx := make([]uint64, len(res.Indices))
				for i, x := range res.Indices {
					idx[i] = uint64(x - math.MinInt64)
				}
				if !slices.Equal(idx, want.Indices) || !slices.Equal(res.Keys, want.Keys) {
					t.Fatalf("%s: indices %v keys %v, want %v %v", step, idx, res.Keys, want.Indices, want.Keys)
				}
				for c, v := range res.Values {
					if !slices.Equal(v.Float32s(), want.Values[c]) || v.Shape()[0] != len(want.Keys) {
						t.Fatalf("%s: component %d = %v %v, want %v", step, c, v.Shape(), v.Float32s(), want.Values[c])
					}
				}
			}
		})
	}
}

// BAR-01
func TestBarrierEmptyShapes(t *testing.T) {
	_, err := NewBarrier("b", []tensor.DType{tensor.Float32, tensor.Float32}, []tensor.Shape{{}, {0}})
	if !errors.Is(err, ErrInvalidArgument) || !strings.Contains(err.Error(), "Empty tensors are not supported, but received shape '[0]' at index 1") {
		t.Fatalf("got %v", err)
	}
	// An invalid dtype is refused at once, as the queues refuse it
	// (audit 82: accepted until the first insert).
	if _, err := NewBarrier("b", []tensor.DType{tensor.Float32, tensor.Invalid}, nil); !errors.Is(err, ErrInvalidArgument) ||
		!strings.Contains(err.Error(), "component 1 has invalid dtype") {
		t.Errorf("invalid dtype: %v", err)
	}
	b, _ := NewBarrier("b", []tensor.DType{tensor.Float32}, nil)
	err = b.InsertMany(0, []string{"a"}, tensor.Zeros(tensor.Float32, tensor.Shape{1, 0}))
	if !errors.Is(err, ErrInvalidArgument) || !strings.Contains(err.Error(), "Tensors with no elements are not supported") {
		t.Fatalf("got %v", err)
	}
}

// Malformed inserts fail with ErrInvalidArgument and change nothing.
func TestBarrierInsertChecks(t *testing.T) {
	tests := []struct {
		name   string
		c      int
		keys   []string
		values tensor.Tensor
	}{
		{"component out of range", 2, []string{"a"}, barrierFloats(1)},
		{"negative component", -1, []string{"a"}, barrierFloats(1)},
		{"wrong type", 0, []string{"a"}, tensor.New([]int64{1})},
		{"scalar values", 0, []string{"a"}, tensor.Scalar(float32(1))},
		{"fewer values than keys", 0, []string{"a", "b"}, barrierFloats(1)},
		{"wrong row shape", 0, []string{"a"}, tensor.New([]float32{1, 2}, 1, 2)},
	}
	for _, tt := range tests {
		b := barrierNew(t)
		if err := b.InsertMany(tt.c, tt.keys, tt.values); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("%s: got %v", tt.name, err)
		}
		if b.IncompleteSize() != 0 || b.ReadySize() != 0 {
			t.Errorf("%s: the failed insert left keys behind", tt.name)
		}
	}
}

// BAR-05: a failing InsertMany is undone as a whole (TensorFlow keeps the
// keys before the failing one; sluice keeps none, and does not advance the
// insertion index).
func TestBarrierInsertIsAtomic(t *testing.T) {
	b := barrierNew(t)
	barrierInsert(t, b, 0, []string{"a", "b"}, 1, 2)
	err := b.InsertMany(1, []string{"a", "new", "b", "new"}, barrierFloats(10, 20, 30, 40))
	if !errors.Is(err, ErrInvalidArgument) || !strings.HasPrefix(err.Error(), "Key new already has a value for component 1 in barrier B") {
		t.Fatalf("got %v", err)
	}
	if b.ReadySize() != 0 || b.IncompleteSize() != 2 {
		t.Fatalf("after the failed insert: ready %d incomplete %d, want 0 2", b.ReadySize(), b.IncompleteSize())
	}
	barrierInsert(t, b, 1, []string{"a", "b"}, 10, 20)
	barrierFill(t, b, "c")
	res, err := b.TakeMany(context.Background(), 3)
	if err != nil {
		t.Fatal(err)
	}
	if res.Indices[2] != math.MinInt64+1 {
		t.Fatalf("the failed call advanced the index: %v", res.Indices)
	}
	if got := res.Values[1].Float32s(); !slices.Equal(got, []float32{10, 20, 0}) {
		t.Fatalf("component 1 = %v", got)
	}

	// A one-component barrier: a key given twice completes twice, as in
	// TensorFlow; a later failure in the same call undoes both.
	one, _ := NewBarrier("one", []tensor.DType{tensor.Float32}, nil)
	if err := one.InsertMany(0, []string{"k", "k"}, barrierFloats(1, 2)); err != nil {
		t.Fatal(err)
	}
	one.Close()
	if err := one.InsertMany(0, []string{"k", "x"}, barrierFloats(1, 2)); !errors.Is(err, ErrClosed) {
		t.Fatalf("got %v", err)
	}
	if one.ReadySize() != 2 {
		t.Fatalf("ready %d, want 2", one.ReadySize())
	}
}

// BAR-03, BAR-04: indices and order, with values.
func TestBarrierOrder(t *testing.T) {
	b := barrierNew(t)
	barrierInsert(t, b, 0, []string{"k1", "k2"}, 1, 2)
	barrierInsert(t, b, 1, []string{"k1"}, 10)
	barrierInsert(t, b, 0, []string{"k3"}, 3)
	barrierInsert(t, b, 1, []string{"k3"}, 30)
	barrierInsert(t, b, 1, []string{"k2"}, 20)
	res, err := b.TakeMany(context.Background(), 3)
	if err != nil {
		t.Fatal(err)
	}
	want := BarrierBatch{
		Indices: []int64{math.MinInt64, math.MinInt64, math.MinInt64 + 1},
		Keys:    []string{"k1", "k2", "k3"},
		Values:  []tensor.Tensor{barrierFloats(1, 2, 3), barrierFloats(10, 20, 30)},
	}
	if !slices.Equal(res.Indices, want.Indices) || !slices.Equal(res.Keys, want.Keys) || res.Len() != 3 {
		t.Fatalf("got %v %v", res.Indices, res.Keys)
	}
	for c := range want.Values {
		if !tensor.Equal(res.Values[c], want.Values[c]) {
			t.Fatalf("component %d = %v", c, res.Values[c])
		}
	}
}

// TakeMany(0) on an open barrier returns empty tensors of the declared
// shapes.
func TestBarrierTakeZero(t *testing.T) {
	b, _ := NewBarrier("b", []tensor.DType{tensor.Int64}, []tensor.Shape{{tensor.Unknown, 3}})
	res, err := b.TakeMany(context.Background(), 0)
	if err != nil || res.Len() != 0 || !slices.Equal(res.Values[0].Shape(), tensor.Shape{0, 0, 3}) {
		t.Fatalf("got %v %v", res, err)
	}
	if _, err := b.TakeMany(context.Background(), -1); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("n=-1: %v", err)
	}
}

// Without declared shapes, elements whose shapes differ cannot be
// batched: the take fails and the elements stay, in order.
func TestBarrierUnbatchableShapes(t *testing.T) {
	b, _ := NewBarrier("b", []tensor.DType{tensor.Int64}, nil)
	b.InsertMany(0, []string{"a"}, tensor.New([]int64{1, 2}, 1, 2))
	b.InsertMany(0, []string{"b"}, tensor.New([]int64{3, 4, 5}, 1, 3))
	if _, err := b.TakeMany(context.Background(), 2); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("got %v", err)
	}
	for _, want := range []string{"a", "b"} {
		res, err := b.TakeMany(context.Background(), 1)
		if err != nil || res.Keys[0] != want {
			t.Fatalf("got %v %v, want %s", res.Keys, err, want)
		}
	}
}

// BAR-06..BAR-08: blocked takes are woken by inserts and by Close, in
// arrival order.
func TestBarrierBlockedTakes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := barrierNew(t)
		ctx := context.Background()
		type result struct {
			n   int
			err error
		}
		first, second, third := make(chan result, 1), make(chan result, 1), make(chan result, 1)
		take := func(ch chan result, n int, small bool) {
			res, err := takeBarrier(ctx, b, n, small)
			ch <- result{res.Len(), err}
		}
		go take(first, 2, false)
		synctest.Wait()
		go take(second, 1, false)
		synctest.Wait()
		barrierFill(t, b, "a")
		synctest.Wait()
		select {
		case r := <-second:
			t.Fatalf("a later take overtook a blocked one: %v", r)
		default:
		}
		barrierFill(t, b, "b", "c")
		if r := <-first; r.n != 2 || r.err != nil {
			t.Fatalf("first = %v", r)
		}
		if r := <-second; r.n != 1 || r.err != nil {
			t.Fatalf("second = %v", r)
		}
		barrierInsert(t, b, 0, []string{"d"}, 4)
		go take(third, 5, true)
		synctest.Wait()
		b.Close()
		// A small take on a closed barrier counts only ready elements,
		// as TensorFlow's does at call time: none, so end of input,
		// although d may still complete.
		if r := <-third; !errors.Is(r.err, io.EOF) || !strings.Contains(r.err.Error(), "(requested 0, total size 0)") {
			t.Fatalf("third = %v", r)
		}
		go take(third, 2, false)
		synctest.Wait()
		barrierInsert(t, b, 1, []string{"d"}, 40)
		// A full take counts incomplete keys: 1 < 2 fails at once.
		if r := <-third; !errors.Is(r.err, io.EOF) {
			t.Fatalf("fourth = %v", r)
		}
		go take(third, 1, false)
		if r := <-third; r.n != 1 || r.err != nil {
			t.Fatalf("fifth = %v", r)
		}
	})
}

// A cancelled context ends a blocked take without taking anything, and
// the takes behind it are served.
func TestBarrierTakeCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := barrierNew(t)
		ctx, cancel := context.WithCancel(context.Background())
		errc := make(chan error, 1)
		go func() {
			_, err := b.TakeMany(ctx, 3)
			errc <- err
		}()
		synctest.Wait()
		got := make(chan int, 1)
		go func() {
			res, _ := b.TakeMany(context.Background(), 1)
			got <- res.Len()
		}()
		barrierFill(t, b, "a")
		synctest.Wait()
		cancel()
		if err := <-errc; !errors.Is(err, context.Canceled) {
			t.Fatalf("got %v", err)
		}
		if n := <-got; n != 1 {
			t.Fatalf("the take behind the cancelled one got %d", n)
		}
		if b.ReadySize() != 0 {
			t.Fatalf("ready %d", b.ReadySize())
		}
		deadline, cancel2 := context.WithTimeout(context.Background(), time.Second)
		defer cancel2()
		start := time.Now()
		if _, err := b.TakeMany(deadline, 1); !errors.Is(err, context.DeadlineExceeded) || time.Since(start) != time.Second {
			t.Fatalf("got %v after %v", err, time.Since(start))
		}
	})
}

// BAR-10: close halfway through 50 parallel full insert pairs and 50
// takes of 10: half the takes get 10 elements, half fail with end of
// input, with or without cancel.
func TestBarrierCloseHalfway(t *testing.T) {
	for _, cancel := range []bool{false, true} {
		t.Run(fmt.Sprint("cancel=", cancel), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				b := barrierNew(t)
				results := barrierTakers(b, 50, 10)
				var wg sync.WaitGroup
				for i := range 250 {
					wg.Go(func() { barrierFill(t, b, fmt.Sprint(i)) })
				}
				wg.Wait()
				synctest.Wait()
				closeBarrier(b, cancel)
				full, eof := barrierCount(t, results)
				if full != 25 || eof != 25 {
					t.Fatalf("%d full takes, %d end of input", full, eof)
				}
			})
		})
	}
}

// BAR-10, second part: only component 0 inserted, then closed. A plain
// close lets the component-1 inserts complete every key and every take
// succeeds; a CloseNow fails them all.
func TestBarrierClosePartialInserts(t *testing.T) {
	for _, cancel := range []bool{false, true} {
		t.Run(fmt.Sprint("cancel=", cancel), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				b := barrierNew(t)
				results := barrierTakers(b, 50, 10)
				var wg sync.WaitGroup
				for i := range 500 {
					wg.Go(func() { barrierInsert(t, b, 0, []string{fmt.Sprint(i)}, float32(i)) })
				}
				wg.Wait()
				closeBarrier(b, cancel)
				var failed sync.WaitGroup
				var mu sync.Mutex
				nfailed := 0
				for i := range 500 {
					failed.Go(func() {
						err := b.InsertMany(1, []string{fmt.Sprint(i)}, barrierFloats(float32(i)))
						if err != nil {
							if !errors.Is(err, ErrClosed) {
								t.Errorf("insert: %v", err)
							}
							mu.Lock()
							nfailed++
							mu.Unlock()
						}
					})
				}
				failed.Wait()
				full, eof := barrierCount(t, results)
				if cancel && (nfailed != 500 || full != 0 || eof != 50) {
					t.Fatalf("cancel: %d inserts failed, %d full takes, %d end of input", nfailed, full, eof)
				}
				if !cancel && (nfailed != 0 || full != 50 || eof != 0) {
					t.Fatalf("Close: %d inserts failed, %d full takes, %d end of input", nfailed, full, eof)
				}
			})
		})
	}
}

// barrierTakers starts n goroutines that each take size elements.
func barrierTakers(b *Barrier, n, size int) <-chan error {
	results := make(chan error, n)
	for range n {
		go func() {
			res, err := b.TakeMany(context.Background(), size)
			if err == nil && res.Len() != size {
				err = fmt.Errorf("took %d", res.Len())
			}
			results <- err
		}()
	}
	return results
}

func barrierCount(t *testing.T, results <-chan error) (full, eof int) {
	t.Helper()
	for range cap(results) {
		switch err := <-results; {
		case err == nil:
			full++
		case errors.Is(err, io.EOF) && strings.Contains(err.Error(), "is closed and has insufficient elements"):
			eof++
		default:
			t.Errorf("take: %v", err)
		}
	}
	return full, eof
}

// BAR-09
func TestBarrierCloseTwice(t *testing.T) {
	tests := []struct {
		closes []bool
		fail   bool // whether the last close fails
	}{
		{[]bool{false, false}, true},
		{[]bool{false, true}, false},
		{[]bool{false, true, true}, true},
		{[]bool{true, true}, true},
		{[]bool{true, false}, true},
	}
	for _, tt := range tests {
		b := barrierNew(t)
		var err error
		for _, cancel := range tt.closes {
			err = closeBarrier(b, cancel)
		}
		if tt.fail != (err != nil) || err != nil && (!errors.Is(err, ErrClosed) || err.Error() != "Barrier 'B' is already closed.: "+ErrClosed.Error()) {
			t.Errorf("closes %v: got %v", tt.closes, err)
		}
		if !b.IsClosed() {
			t.Errorf("closes %v: not closed", tt.closes)
		}
	}
}

// FuzzBarrier runs random operation sequences and checks the barrier's
// invariants: no panic, sizes that add up, every completed key taken once,
// indices never decreasing within a take.
func FuzzBarrier(f *testing.F) {
	f.Add([]byte{0x00, 0x10, 0x21, 0x02, 0x40})
	f.Add([]byte{0x01, 0x11, 0x03, 0x31, 0x50, 0x22, 0x63})
	f.Add([]byte{0x70, 0x00, 0x81, 0x11, 0x24, 0x60, 0x35})
	f.Fuzz(func(t *testing.T, ops []byte) {
		b := barrierNew(t)
		taken := 0
		inserted := 0
		for i, op := range ops {
			arg := int(op >> 4)
			switch op & 0x7 {
			case 0, 1: // insert component op&1 for keys arg..arg+i%3
				c := int(op & 1)
				var keys []string
				for k := range i%3 + 1 {
					keys = append(keys, fmt.Sprint((arg+k)%6))
				}
				vs := make([]float32, len(keys))
				if b.InsertMany(c, keys, barrierFloats(vs...)) == nil {
					inserted++
				}
			case 2, 3, 4: // take
				ctx, cancel := context.WithCancel(context.Background())
				cancel() // never block: only what can be decided now
				res, err := takeBarrier(ctx, b, arg%5, op&0x7 == 4)
				if err == nil {
					taken += res.Len()
					if !slices.IsSorted(res.Indices) {
						t.Fatalf("indices out of order: %v", res.Indices)
					}
					for c, v := range res.Values {
						if v.Len() != res.Len() {
							t.Fatalf("component %d has %d rows for %d keys", c, v.Len(), res.Len())
						}
					}
				}
			case 5, 6:
				closeBarrier(b, op&0x7 == 6)
			case 7:
				if b.ReadySize() < 0 || b.IncompleteSize() > 6*len(ops) {
					t.Fatal("impossible sizes")
				}
			}
		}
		if b.ReadySize()+taken > inserted*3 {
			t.Fatalf("ready %d + taken %d elements from %d inserts", b.ReadySize(), taken, inserted)
		}
	})
}

func BenchmarkBarrierInsertTake(b *testing.B) {
	const batch, width = 32, 20
	bar, _ := NewBarrier("b", []tensor.DType{tensor.Float32, tensor.Int64}, []tensor.Shape{{width}, {}})
	keys := make([][]string, 1024)
	for i := range keys {
		keys[i] = make([]string, batch)
		for j := range keys[i] {
			keys[i][j] = fmt.Sprintf("%05d_of_%05d:%d", j%2, 2, i*batch+j)
		}
	}
	v0 := tensor.Zeros(tensor.Float32, tensor.Shape{batch, width})
	v1 := tensor.Zeros(tensor.Int64, tensor.Shape{batch})
	ctx := context.Background()
	b.SetBytes(batch * (width*4 + 8))
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		k := keys[i%len(keys)]
		i++
		if err := bar.InsertMany(0, k, v0); err != nil {
			b.Fatal(err)
		}
		if err := bar.InsertMany(1, k, v1); err != nil {
			b.Fatal(err)
		}
		if _, err := bar.TakeMany(ctx, batch); err != nil {
			b.Fatal(err)
		}
	}
}

// With groups, a full take after Close counts the groups that may yet be
// ready, not the keys: keys of one group complete one at a time, so a
// take of more than there are groups fails at once (a waiting one too),
// where without groups it waits for keys that cannot all be ready
// together.
func TestBarrierGroupsAfterClose(t *testing.T) {
	group := func(key string) string { return key[:1] }
	for _, tc := range []struct {
		name    string
		groups  bool
		waiting bool // the take waits before the Close
		n       int
		wantEOF bool
	}{
		{"groups, fewer than asked", true, false, 2, true},
		{"groups, fewer than asked, waiting", true, true, 2, true},
		{"groups, as many as asked", true, false, 1, false},
		{"no groups", false, false, 2, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				b := barrierNew(t)
				if tc.groups {
					b.SetGroups(group)
				}
				// One group "a": a1 ready, a2 and a3 waiting for component 1.
				barrierFill(t, b, "a1")
				barrierInsert(t, b, 0, []string{"a2", "a3"}, 2, 3)
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				type result struct {
					bb  BarrierBatch
					err error
				}
				done := make(chan result, 1)
				take := func() {
					bb, err := b.TakeMany(ctx, tc.n)
					done <- result{bb, err}
				}
				if tc.waiting {
					go take()
					synctest.Wait()
				}
				if err := b.Close(); err != nil {
					t.Fatal(err)
				}
				if !tc.waiting {
					go take()
				}
				synctest.Wait()
				select {
				case r := <-done:
					if tc.wantEOF != errors.Is(r.err, io.EOF) || !tc.wantEOF && r.bb.Len() != tc.n {
						t.Fatalf("TakeMany(%d) = %d elements, %v", tc.n, r.bb.Len(), r.err)
					}
				default:
					if tc.wantEOF || tc.n == 1 {
						t.Fatalf("TakeMany(%d) still waits", tc.n)
					}
					cancel() // without groups it waits for a2 and a3, as TensorFlow's does
					<-done
				}
			})
		})
	}
}

// A take that TensorFlow 2.21 decides as it arrives is decided at once
// here too, whatever take waits before it: on a closed barrier one it can
// no longer serve fails with end of input, and a take of nothing returns
// an empty batch. They used to wait behind the take ahead, for good if
// that one waited for a key that never completes (found by a
// differential run against TensorFlow).
func TestBarrierTakeDecidedOnArrival(t *testing.T) {
	for _, tt := range []struct {
		name    string
		closed  bool
		n       int
		upTo    bool
		wantErr string // the end-of-input message, or "" for an empty batch
	}{
		{"closed, more than may be ready", true, 5, false, "Barrier 'B' is closed and has insufficient elements (requested 5, total size 1)"},
		{"closed, small batch of none ready", true, 5, true, "Barrier 'B' is closed and has insufficient elements (requested 0, total size 0)"},
		{"open, none", false, 0, false, ""},
		{"open, small batch of none", false, 0, true, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				b := barrierNew(t)
				barrierInsert(t, b, 0, []string{"a"}, 1) // incomplete
				if tt.closed {
					if err := b.Close(); err != nil {
						t.Fatal(err)
					}
				}
				ahead, cancel := context.WithCancel(bg)
				defer cancel()
				go b.TakeMany(ahead, 1) // waits for "a" to complete
				synctest.Wait()
				type result struct {
					bb  BarrierBatch
					err error
				}
				got := make(chan result, 1)
				go func() {
					take := b.TakeMany
					if tt.upTo {
						take = b.TakeUpTo
					}
					bb, err := take(bg, tt.n)
					got <- result{bb, err}
				}()
				synctest.Wait()
				var r result
				select {
				case r = <-got:
				default:
					t.Fatal("the take waits behind the one ahead; TensorFlow decides it at once")
				}
				if tt.wantErr != "" {
					if !errors.Is(r.err, io.EOF) || !strings.HasPrefix(r.err.Error(), tt.wantErr) {
						t.Errorf("err = %v, want end of input %q", r.err, tt.wantErr)
					}
				} else if r.err != nil || r.bb.Len() != 0 {
					t.Errorf("got %d elements, %v; want an empty batch", r.bb.Len(), r.err)
				}
				cancel()
			})
		})
	}
}
