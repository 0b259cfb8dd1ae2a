package queue

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/sluiceml/sluice/tensor"
)

// tfScenarios is testdata/queues_tf.json, written by tools/tfref/queues.py.
type tfScenarios struct {
	TensorFlow string `json:"tensorflow"`
	Scenarios  map[string]struct {
		Queue []json.RawMessage `json:"queue"`
		Ops   []tfOp            `json:"ops"`
	} `json:"scenarios"`
}

type tfOp struct {
	Op      []json.RawMessage `json:"op"`
	Result  string            `json:"result"` // "ok", "blocks" or empty
	Values  []any             `json:"values"`
	Error   string            `json:"error"`
	Message string            `json:"message"`
	Size    int               `json:"size"`
}

// In these scenarios a dequeue that has absorbed elements is cancelled.
// TensorFlow 2.21 drops what it had absorbed (its kernels put elements
// back only when the queue is closed); sluice puts them back, as Q-48
// requires. The test checks both facts at that operation and stops
// comparing there.
var tfDropsAbsorbed = map[string]bool{
	"dequeue_many_cancelled_restores":  true,
	"shuffle_up_to_cancelled_restores": true,
}

// In these scenarios a DequeueUpTo finds a closed Priority queue holding
// fewer elements than it asks for. TensorFlow 2.21 takes them into its
// batch, fails with "(requested n-left, current size 0)" and drops them
// (its PriorityQueue sizes the batch before it knows it is short); sluice
// returns them, in order, as its other kinds and TensorFlow's do. The
// test checks both facts at that operation and stops comparing there.
var tfDropsSmallBatch = map[string]bool{
	"priority_batches": true,
}

// TestMatchesTensorFlow replays the scenarios TensorFlow ran, one call at a
// time with an already-cancelled context (TensorFlow's ran with a 100 ms
// timeout, which it handles the same way: a call that would block is
// removed from the queue with the progress it made), and compares every
// outcome: values, error kind and message, and the size afterwards.
func TestMatchesTensorFlow(t *testing.T) {
	data, err := os.ReadFile("testdata/queues_tf.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref tfScenarios
	if err := json.Unmarshal(data, &ref); err != nil {
		t.Fatal(err)
	}
	if len(ref.Scenarios) < 10 {
		t.Fatalf("only %d scenarios", len(ref.Scenarios))
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for name, sc := range ref.Scenarios {
		t.Run(name, func(t *testing.T) {
			q, shuffled := tfQueue(t, sc.Queue)
			dtypes := q.DTypes()
			var gotAll, wantAll []int64 // a shuffling queue's values, all ops
			defer func() {
				slices.Sort(gotAll)
				slices.Sort(wantAll)
				if !slices.Equal(gotAll, wantAll) {
					t.Errorf("values dequeued %v, TensorFlow %v", gotAll, wantAll)
				}
			}()
			for i, op := range sc.Ops {
				var kind string
				json.Unmarshal(op.Op[0], &kind)
				before := q.Size()
				got, err := tfRun(cancelled, q, kind, op.Op, dtypes)
				where := func() string { return name + " op " + string(mustJSON(op.Op)) }
				if tfDropsAbsorbed[name] && op.Result == "blocks" && op.Size < before {
					if q.Size() != before || !errors.Is(err, context.Canceled) {
						t.Fatalf("%s: size %d, err %v; want the absorbed elements back (size %d)", where(), q.Size(), err, before)
					}
					return
				}
				if tfDropsSmallBatch[name] && kind == "dequp" && op.Error != "" && op.Size < before {
					if err != nil || got[0].Len() != before || !slices.IsSorted(got[0].Int64s()) || q.Size() != 0 {
						t.Fatalf("%s: got %v, %v, size %d; want the %d elements left, in order", where(), got, err, q.Size(), before)
					}
					return
				}
				switch {
				case op.Result == "ok":
					if err != nil {
						t.Fatalf("%s: %v", where(), err)
					}
				case op.Result == "blocks":
					if !errors.Is(err, context.Canceled) {
						t.Fatalf("%s: err = %v, want it to block", where(), err)
					}
				case op.Error != "":
					want := map[string]error{
						"OutOfRangeError":      io.EOF,
						"CancelledError":       ErrClosed,
						"InvalidArgumentError": ErrInvalidArgument,
					}[op.Error]
					if !errors.Is(err, want) || !strings.Contains(err.Error(), op.Message) {
						t.Fatalf("%s: err = %v, want %s %q", where(), err, op.Error, op.Message)
					}
				case op.Values != nil:
					if err != nil {
						t.Fatalf("%s: %v", where(), err)
					}
					g, w, msg := tfCompareValues(got, op.Values, shuffled)
					if msg != "" {
						t.Fatalf("%s: %s", where(), msg)
					}
					gotAll, wantAll = append(gotAll, g...), append(wantAll, w...)
				}
				if q.Size() != op.Size {
					t.Fatalf("%s (#%d): size %d, TensorFlow %d", where(), i, q.Size(), op.Size)
				}
			}
		})
	}
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// tfQueue builds the queue a scenario describes: [kind, capacity, dtypes,
// shapes or null (null dimensions unknown), min_after_dequeue].
func tfQueue(t *testing.T, spec []json.RawMessage) (q local, shuffled bool) {
	var kind string
	var capacity, mad int
	var dtypeNames []string
	var shapeDims [][]*int
	json.Unmarshal(spec[0], &kind)
	json.Unmarshal(spec[1], &capacity)
	json.Unmarshal(spec[2], &dtypeNames)
	json.Unmarshal(spec[3], &shapeDims)
	if len(spec) > 4 {
		json.Unmarshal(spec[4], &mad)
	}
	dtypes := make([]tensor.DType, len(dtypeNames))
	for i, n := range dtypeNames {
		d, err := tensor.ParseDType(n)
		if err != nil {
			t.Fatal(err)
		}
		dtypes[i] = d
	}
	var shapes []tensor.Shape
	for _, dims := range shapeDims {
		s := tensor.Shape{}
		for _, d := range dims {
			if d == nil {
				s = append(s, tensor.Unknown)
			} else {
				s = append(s, *d)
			}
		}
		shapes = append(shapes, s)
	}
	opts := []Option{Name("q")}
	if shapes != nil {
		opts = append(opts, Shapes(shapes...))
	}
	var err error
	switch kind {
	case "fifo":
		q, err = NewFIFO(capacity, dtypes, opts...)
	case "padding":
		q, err = NewPaddingFIFO(capacity, dtypes, shapes, Name("q"))
	case "shuffle":
		q, err = NewRandomShuffle(capacity, mad, dtypes, append(opts, Seed(1))...)
		shuffled = true
	case "priority":
		q, err = NewPriority(capacity, dtypes, opts...)
	default:
		t.Fatalf("queue kind %q", kind)
	}
	if err != nil {
		t.Fatal(err)
	}
	return q, shuffled
}

// tfRun performs one operation.
func tfRun(ctx context.Context, q Queue, kind string, op []json.RawMessage, dtypes []tensor.DType) (Element, error) {
	arg := func() int {
		var n int
		json.Unmarshal(op[1], &n)
		return n
	}
	comps := func() Element {
		var vs []any
		json.Unmarshal(op[1], &vs)
		e := make(Element, len(vs))
		for i, v := range vs {
			e[i] = tfTensor(v, dtypes[i])
		}
		return e
	}
	switch kind {
	case "enq":
		return nil, q.Enqueue(ctx, comps())
	case "enqm":
		return nil, q.EnqueueMany(ctx, comps())
	case "deq":
		return q.Dequeue(ctx)
	case "deqm":
		return q.DequeueMany(ctx, arg())
	case "dequp":
		return q.DequeueUpTo(ctx, arg())
	case "close":
		var cancelPending bool
		json.Unmarshal(op[1], &cancelPending)
		return nil, closeQueue(ctx, q, cancelPending)
	}
	return nil, nil // "size"
}

// tfTensor converts a JSON value (nested lists of numbers, or {"empty":
// shape}) to a tensor of type d.
func tfTensor(v any, d tensor.DType) tensor.Tensor {
	if m, ok := v.(map[string]any); ok {
		_, flat := tfFlatten(m["empty"])
		dims := make(tensor.Shape, len(flat))
		for i, x := range flat {
			dims[i] = int(x)
		}
		return tensor.Zeros(d, dims)
	}
	shape, flat := tfFlatten(v)
	var data any
	switch d {
	case tensor.Int32:
		data = seq(len(flat), func(i int) int32 { return int32(flat[i]) })
	case tensor.Int64:
		data = seq(len(flat), func(i int) int64 { return flat[i] })
	default:
		panic("dtype " + d.String())
	}
	t, err := tensor.FromData(data, shape)
	if err != nil {
		panic(err)
	}
	return t
}

// tfFlatten returns the shape of a rectangular nested list and its numbers
// in row-major order.
func tfFlatten(v any) (tensor.Shape, []int64) {
	list, ok := v.([]any)
	if !ok {
		return tensor.Shape{}, []int64{int64(v.(float64))}
	}
	shape := tensor.Shape{len(list)}
	var flat []int64
	for i, x := range list {
		s, f := tfFlatten(x)
		if i == 0 {
			shape = append(shape, s...)
		}
		flat = append(flat, f...)
	}
	if len(list) == 0 {
		shape = tensor.Shape{0}
	}
	return shape, flat
}

// tfCompareValues compares a dequeued element or batch with TensorFlow's,
// component by component. A shuffling queue's draws differ from
// TensorFlow's (another generator), so then only the shapes are compared
// here and the values are returned for the scenario's multiset check.
func tfCompareValues(got Element, want []any, shuffled bool) (g, w []int64, msg string) {
	if len(got) != len(want) {
		return nil, nil, "component count differs"
	}
	for c, wc := range want {
		wshape, wflat := tfFlatten(wc)
		t := got[c]
		var gflat []int64
		switch t.DType() {
		case tensor.Int32:
			for _, x := range t.Int32s() {
				gflat = append(gflat, int64(x))
			}
		case tensor.Int64:
			gflat = t.Int64s()
		}
		// An empty batch's inner dimensions are not in TensorFlow's JSON.
		shapeOK := len(wflat) == 0 && t.NumElements() == 0 || t.Shape().Equal(wshape)
		if !shapeOK || !shuffled && !slices.Equal(gflat, wflat) {
			return nil, nil, fmt.Sprintf("component %d: got %v, TensorFlow %s", c, t, mustJSON(wc))
		}
		if shuffled {
			g, w = append(g, gflat...), append(w, wflat...)
		}
	}
	return g, w, ""
}
