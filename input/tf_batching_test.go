package input_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sluiceml/sluice/input"
	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tensor"
)

// testdata/batching_tf.json, written by tools/tfref/batching.py.
type tfBatchingRef struct {
	TensorFlow string        `json:"tensorflow"`
	Cases      []tfBatchCase `json:"cases"`
}

type tfComp struct {
	DType  string `json:"dtype"`
	Shape  []int  `json:"shape"`
	Values []any  `json:"values"`
}

type tfElem struct {
	Components []tfComp `json:"components"`
	Keep       any      `json:"keep"` // bool, []bool or [][]bool
}

type tfBatchCase struct {
	Name     string `json:"name"`
	Kind     string `json:"kind"` // "batch" or "producer"
	Spec     string `json:"spec"`
	Op       string `json:"op"`
	Producer string `json:"producer"`
	Args     struct {
		BatchSize       int   `json:"batch_size"`
		Capacity        int   `json:"capacity"`
		EnqueueMany     bool  `json:"enqueue_many"`
		DynamicPad      bool  `json:"dynamic_pad"`
		AllowSmaller    bool  `json:"allow_smaller_final_batch"`
		MinAfterDequeue int   `json:"min_after_dequeue"`
		NumEpochs       *int  `json:"num_epochs"`
		ElementShape    []int `json:"element_shape"`
	} `json:"args"`
	KeepRank   *int       `json:"keep_rank"`
	Sources    [][]tfElem `json:"sources"`
	Compare    string     `json:"compare"` // "exact" or "multiset"
	MaxBatches int        `json:"max_batches"`
	// Producers.
	Input   *tfComp  `json:"input"`
	Inputs  []tfComp `json:"inputs"`
	Limit   int      `json:"limit"`
	Dequeue []any    `json:"dequeue"`
	// TensorFlow's outcome.
	Batches [][]tfComp `json:"batches"`
	Outputs [][]tfComp `json:"outputs"`
	End     string     `json:"end"`
	Error   *struct {
		Class   string `json:"class"`
		Message string `json:"message"`
		When    string `json:"when"`
	} `json:"error"`
}

// tfBatchingDiffers lists the cases where sluice departs from TensorFlow
// 2.21. Each names the CONFORMANCE.md entry that documents it, or says it
// is undocumented; the test checks sluice's own outcome for it (want) so
// that a change on either side is seen.
var tfBatchingDiffers = map[string]struct {
	why  string
	want string // a text sluice's error contains
}{
	// CONFORMANCE.md "batch_size 0": TensorFlow 2.21 builds
	// tf.train.batch(batch_size=0) and delivers empty batches for ever.
	"batch_size_zero": {"CONFORMANCE.md: batch_size 0 is refused", "batch_size must be positive, not 0"},
	// CONFORMANCE.md "A batching stage takes its component types and shapes
	// from the first element its step produces": TensorFlow compares the
	// sources' static types while building the graph; sluice meets the
	// second type at the queue, whose message is TensorFlow's for a queue.
	"join_dtypes_differ": {"CONFORMANCE.md: types and shapes from the first element", "Type mismatch in tuple component 0. Expected int"}, // which source came first is timing
}

// TestBatchingMatchesTensorFlow replays the batching and producer cases
// TensorFlow 2.21 ran (tools/tfref/batching.py) through package input:
// every batch's values, shapes and dtypes, in order (for the cases whose
// order TensorFlow defines: one source, one thread), or their sizes and
// the multiset of their rows (several sources, shuffling), how the input
// ended, and the message of each error TensorFlow gives, which sluice's
// must contain (CONFORMANCE.md: "sluice must reject it with TensorFlow's
// message").
func TestBatchingMatchesTensorFlow(t *testing.T) {
	data, err := os.ReadFile("testdata/batching_tf.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref tfBatchingRef
	if err := json.Unmarshal(data, &ref); err != nil {
		t.Fatal(err)
	}
	if len(ref.Cases) < 60 {
		t.Fatalf("only %d cases", len(ref.Cases))
	}
	for _, c := range ref.Cases {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			var got [][]tensor.Tensor
			var end error
			if c.Kind == "producer" {
				got, end = tfRunProducer(t, ctx, c)
			} else {
				got, end = tfRunBatcher(t, ctx, c)
			}
			if ctx.Err() != nil {
				t.Fatalf("timed out after %d outputs: %v", len(got), end)
			}
			want := c.Batches
			if c.Kind == "producer" {
				want = c.Outputs
			}
			if d, ok := tfBatchingDiffers[c.Name]; ok {
				if end == nil || errors.Is(end, io.EOF) || !strings.Contains(end.Error(), d.want) {
					t.Errorf("known difference (%s): got %v, want an error containing %q", d.why, end, d.want)
				}
				t.Logf("known difference (%s): sluice: %v; TensorFlow: %+v", d.why, end, c.Error)
				return
			}
			switch {
			case c.Error != nil:
				if end == nil || errors.Is(end, io.EOF) || !strings.Contains(end.Error(), c.Error.Message) {
					t.Errorf("%s: got %v, TensorFlow %s: %s (%s)", c.Spec, end, c.Error.Class, c.Error.Message, c.Error.When)
				}
			case c.End == "endless":
				if end != nil {
					t.Errorf("%s: ended with %v; TensorFlow was still delivering after %d", c.Spec, end, len(want))
				}
			default:
				if !errors.Is(end, io.EOF) {
					t.Errorf("%s: ended with %v, TensorFlow %s", c.Spec, end, c.End)
				}
			}
			if c.Compare == "multiset" {
				tfCompareMultiset(t, got, want)
			} else {
				tfCompareExact(t, got, want)
			}
		})
	}
}

// tfTensor is a reference component as a tensor.
func tfTensor(t *testing.T, c tfComp) tensor.Tensor {
	t.Helper()
	dt, err := tensor.ParseDType(c.DType)
	if err != nil {
		t.Fatal(err)
	}
	var data any
	switch dt {
	case tensor.Int32:
		data = jsonNumbers[int32](c.Values)
	case tensor.Int64:
		data = jsonNumbers[int64](c.Values)
	case tensor.Float32:
		data = jsonNumbers[float32](c.Values)
	case tensor.Bool:
		d := make([]bool, len(c.Values))
		for i, v := range c.Values {
			d[i] = v.(bool)
		}
		data = d
	case tensor.String:
		d := make([][]byte, len(c.Values))
		for i, v := range c.Values {
			d[i] = []byte(v.(string))
		}
		data = d
	default:
		t.Fatalf("dtype %s", c.DType)
	}
	shape := tensor.Shape(c.Shape)
	if shape == nil {
		shape = tensor.Shape{}
	}
	x, err := tensor.FromData(data, shape)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// jsonNumbers converts the numbers JSON decoded (float64s) to T.
func jsonNumbers[T int32 | int64 | float32](vs []any) []T {
	d := make([]T, len(vs))
	for i, v := range vs {
		d[i] = T(v.(float64))
	}
	return d
}

// tfKeep is a reference keep flag: a bool, or nested lists of bools.
func tfKeep(k any) tensor.Tensor {
	switch k := k.(type) {
	case bool:
		return tensor.Scalar(k)
	case []any:
		var flat []bool
		dims := []int{len(k)}
		for _, x := range k {
			switch x := x.(type) {
			case bool:
				flat = append(flat, x)
			case []any:
				if len(dims) == 1 {
					dims = append(dims, len(x))
				}
				for _, y := range x {
					flat = append(flat, y.(bool))
				}
			}
		}
		return tensor.New(flat, dims...)
	}
	return tensor.Tensor{}
}

func tfRunBatcher(t *testing.T, ctx context.Context, c tfBatchCase) ([][]tensor.Tensor, error) {
	p := input.NewPipeline()
	steps := make([]input.KeepStep, len(c.Sources))
	plain := make([]input.Step, len(c.Sources))
	for s, elems := range c.Sources {
		// Converted here: a step runs in the pipeline's goroutine, where
		// t.Fatal must not be called.
		es := make([]queue.Element, len(elems))
		keeps := make([]tensor.Tensor, len(elems))
		for i, e := range elems {
			es[i] = make(queue.Element, len(e.Components))
			for j, comp := range e.Components {
				es[i][j] = tfTensor(t, comp)
			}
			keeps[i] = tfKeep(e.Keep)
		}
		i := 0 // one goroutine runs each source's step
		steps[s] = func(ctx context.Context) (queue.Element, tensor.Tensor, error) {
			if i >= len(es) {
				return nil, tensor.Tensor{}, io.EOF
			}
			i++
			return es[i-1], keeps[i-1], nil
		}
		plain[s] = func(ctx context.Context) (queue.Element, error) {
			e, _, err := steps[s](ctx)
			return e, err
		}
	}
	a := c.Args
	var opts []input.BatcherOption
	if a.Capacity > 0 {
		opts = append(opts, input.Capacity(a.Capacity))
	}
	if a.EnqueueMany {
		opts = append(opts, input.EnqueueMany())
	}
	if a.AllowSmaller {
		opts = append(opts, input.AllowSmallerFinalBatch())
	}
	bopts := make([]input.BatchOption, 0, len(opts)+1)
	sopts := make([]input.ShuffleBatchOption, 0, len(opts)+2)
	for _, o := range opts {
		bopts = append(bopts, o)
		sopts = append(sopts, o)
	}
	if a.DynamicPad {
		bopts = append(bopts, input.DynamicPad())
	}
	sopts = append(sopts, input.MinAfterDequeue(a.MinAfterDequeue), input.Seed(7))
	var b *input.Batches
	switch c.Op {
	case "batch":
		b = p.Batch(plain[0], a.BatchSize, bopts...)
	case "maybe_batch":
		b = p.MaybeBatch(steps[0], a.BatchSize, bopts...)
	case "batch_join":
		b = p.BatchJoin(plain, a.BatchSize, bopts...)
	case "maybe_batch_join":
		b = p.MaybeBatchJoin(steps, a.BatchSize, bopts...)
	case "shuffle_batch":
		b = p.ShuffleBatch(plain[0], a.BatchSize, sopts...)
	case "maybe_shuffle_batch":
		b = p.MaybeShuffleBatch(steps[0], a.BatchSize, sopts...)
	case "shuffle_batch_join":
		b = p.ShuffleBatchJoin(plain, a.BatchSize, sopts...)
	default:
		t.Fatalf("op %q", c.Op)
	}
	if err := p.Start(ctx); err != nil {
		return nil, err
	}
	defer p.Stop(context.Background())
	var got [][]tensor.Tensor
	for {
		if c.MaxBatches > 0 && len(got) == c.MaxBatches {
			return got, nil
		}
		batch, err := b.Next(ctx)
		if err != nil {
			return got, err
		}
		got = append(got, batch.Element())
	}
}

func tfRunProducer(t *testing.T, ctx context.Context, c tfBatchCase) ([][]tensor.Tensor, error) {
	p := input.NewPipeline()
	a := c.Args
	opts := []input.ProducerOption{input.Shuffle(false)}
	if a.NumEpochs != nil {
		opts = append(opts, input.NumEpochs(*a.NumEpochs))
	}
	if a.Capacity > 0 {
		opts = append(opts, input.Capacity(a.Capacity))
	}
	if a.ElementShape != nil {
		opts = append(opts, input.ElementShape(tensor.Shape(a.ElementShape)))
	}
	var q queue.Queue
	var step input.Step
	switch c.Producer {
	case "string_input_producer":
		var names []string
		for _, v := range c.Input.Values {
			names = append(names, v.(string))
		}
		q = p.StringInputProducer(names, opts...)
	case "range_input_producer":
		q = p.RangeInputProducer(c.Limit, opts...)
	case "input_producer":
		q = p.InputProducer(tfTensor(t, *c.Input), opts...)
	case "slice_input_producer":
		var ts []tensor.Tensor
		for _, in := range c.Inputs {
			ts = append(ts, tfTensor(t, in))
		}
		step = p.SliceInputProducer(ts, opts...)
	default:
		t.Fatalf("producer %q", c.Producer)
	}
	if err := p.Start(ctx); err != nil {
		return nil, err
	}
	defer p.Stop(context.Background())
	var got [][]tensor.Tensor
	for len(got) < 100 {
		var e queue.Element
		var err error
		switch {
		case step != nil:
			e, err = step(ctx)
		case c.Dequeue[0] == "one":
			e, err = q.Dequeue(ctx)
		case c.Dequeue[0] == "many":
			e, err = q.DequeueMany(ctx, int(c.Dequeue[1].(float64)))
		default:
			e, err = q.DequeueUpTo(ctx, int(c.Dequeue[1].(float64)))
		}
		if err != nil {
			return got, err
		}
		got = append(got, e)
	}
	return got, nil
}

// tfFormat is a tensor's values as text, each element formatted as the
// reference's JSON values are after tfTensor.
func tfFormat(x tensor.Tensor) []string {
	v := reflect.ValueOf(x.Data())
	out := make([]string, v.Len())
	for i := range out {
		switch e := v.Index(i).Interface().(type) {
		case []byte:
			out[i] = strconv.Quote(string(e))
		case float32:
			out[i] = strconv.FormatFloat(float64(e), 'g', -1, 32)
		default:
			out[i] = fmt.Sprint(e)
		}
	}
	return out
}

func tfDescribe(x tensor.Tensor) string {
	return fmt.Sprintf("%s%v%v", x.DType(), []int(x.Shape()), tfFormat(x))
}

func tfCompareExact(t *testing.T, got [][]tensor.Tensor, want [][]tfComp) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%d outputs, TensorFlow %d", len(got), len(want))
	}
	for i := range min(len(got), len(want)) {
		if len(got[i]) != len(want[i]) {
			t.Errorf("output %d: %d components, TensorFlow %d", i, len(got[i]), len(want[i]))
			continue
		}
		for j := range got[i] {
			g, w := tfDescribe(got[i][j]), tfDescribe(tfTensor(t, want[i][j]))
			if g != w {
				t.Errorf("output %d component %d: %s, TensorFlow %s", i, j, g, w)
			}
		}
	}
}

// tfRows returns the rows of a batch, each as the text of its components'
// values.
func tfRows(b []tensor.Tensor) []string {
	if len(b) == 0 {
		return nil
	}
	n := b[0].Len()
	rows := make([]string, n)
	for _, x := range b {
		vals := tfFormat(x)
		per := 0
		if n > 0 {
			per = len(vals) / n
		}
		for r := range n {
			rows[r] += fmt.Sprintf("%s%v%v;", x.DType(), []int(x.Shape()[1:]), vals[r*per:(r+1)*per])
		}
	}
	return rows
}

func tfCompareMultiset(t *testing.T, got [][]tensor.Tensor, want [][]tfComp) {
	t.Helper()
	var gs, ws []int
	var grows, wrows []string
	for _, b := range got {
		gs = append(gs, b[0].Len())
		grows = append(grows, tfRows(b)...)
	}
	for _, b := range want {
		ts := make([]tensor.Tensor, len(b))
		for j, c := range b {
			ts[j] = tfTensor(t, c)
		}
		ws = append(ws, ts[0].Len())
		wrows = append(wrows, tfRows(ts)...)
	}
	if !slices.Equal(gs, ws) {
		t.Errorf("batch sizes %v, TensorFlow %v", gs, ws)
	}
	slices.Sort(grows)
	slices.Sort(wrows)
	if !slices.Equal(grows, wrows) {
		t.Errorf("rows %v, TensorFlow %v", grows, wrows)
	}
}
