package gomlx

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/x448/float16"
	"go.uber.org/goleak"

	"github.com/sluiceml/sluice"
	"github.com/sluiceml/sluice/example"
	"github.com/sluiceml/sluice/tensor"
	"github.com/sluiceml/sluice/tfrecord"
)

func TestTensor(t *testing.T) {
	tests := []struct {
		in    tensor.Tensor
		dtype dtypes.DType
		want  any // Value() of the GoMLX tensor
	}{
		{tensor.New([]bool{true, false}, 2), dtypes.Bool, []bool{true, false}},
		{tensor.New([]int8{-1, 2}, 2), dtypes.Int8, []int8{-1, 2}},
		{tensor.New([]int16{-3, 4}, 2), dtypes.Int16, []int16{-3, 4}},
		{tensor.New([]int32{5, -6, 7, 8}, 2, 2), dtypes.Int32, [][]int32{{5, -6}, {7, 8}}},
		{tensor.New([]int64{math.MaxInt64, math.MinInt64}, 2, 1), dtypes.Int64, [][]int64{{math.MaxInt64}, {math.MinInt64}}},
		{tensor.New([]uint8{0, 255}, 2), dtypes.Uint8, []uint8{0, 255}},
		{tensor.New([]uint16{1, 65535}, 2), dtypes.Uint16, []uint16{1, 65535}},
		{tensor.New([]uint32{2, math.MaxUint32}, 2), dtypes.Uint32, []uint32{2, math.MaxUint32}},
		{tensor.New([]uint64{3, math.MaxUint64}, 2), dtypes.Uint64, []uint64{3, math.MaxUint64}},
		// 0x3c00 is 1.0 and 0xc000 is -2.0 in IEEE 754 half precision.
		{tensor.New([]tensor.Half{0x3c00, 0xc000}, 2), dtypes.Float16, []float16.Float16{0x3c00, 0xc000}},
		{tensor.New([]float32{1.5, -2.5, 3, 4, 5, 6}, 3, 1, 2), dtypes.Float32, [][][]float32{{{1.5, -2.5}}, {{3, 4}}, {{5, 6}}}},
		{tensor.New([]float64{math.Pi}, 1), dtypes.Float64, []float64{math.Pi}},
		{tensor.New([]complex64{1 + 2i}, 1), dtypes.Complex64, []complex64{1 + 2i}},
		{tensor.New([]complex128{3 - 4i}, 1), dtypes.Complex128, []complex128{3 - 4i}},
		{tensor.New([]float32{}, 0, 3), dtypes.Float32, [][]float32{}},
	}
	for _, tt := range tests {
		t.Run(tt.in.DType().String(), func(t *testing.T) {
			g, err := Tensor(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			defer g.MustFinalizeAll()
			if g.DType() != tt.dtype {
				t.Errorf("dtype %v, want %v", g.DType(), tt.dtype)
			}
			if !slices.Equal(g.Shape().Dimensions, []int(tt.in.Shape())) {
				t.Errorf("shape %v, want %v", g.Shape().Dimensions, tt.in.Shape())
			}
			if got := g.Value(); tt.in.NumElements() > 0 && !reflect.DeepEqual(got, tt.want) {
				t.Errorf("values %v, want %v", got, tt.want)
			}
		})
	}
}

func TestTensorString(t *testing.T) {
	_, err := Tensor(tensor.Strings("a", "b"))
	if !errors.Is(err, ErrDType) {
		t.Fatalf("Tensor of strings: error %v, want ErrDType", err)
	}
}

// writeExamples writes n Examples to a TFRecord file in dir: "id" is the
// record's index, "x" a 2×3 matrix of id*10+j, "v" id+1 values of id,
// "s" a string.
func writeExamples(t *testing.T, n int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "data.tfrecord")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := tfrecord.NewWriter(f)
	for i := range n {
		x := make([]float32, 6)
		for j := range x {
			x[j] = float32(i*10 + j)
		}
		v := make([]int64, i+1)
		for j := range v {
			v[j] = int64(i)
		}
		rec := example.New().Int64("id", int64(i)).Floats("x", x).Int64s("v", v).Strings("s", "text").Marshal()
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

var testSpec = example.Spec{
	"id": example.FixedLen(tensor.Int64),
	"x":  example.FixedLen(tensor.Float32, 2, 3),
	"v":  example.VarLen(tensor.Int64),
	"s":  example.FixedLen(tensor.String),
}

// ids reads the rest of an epoch and returns the ids of its records and
// the size of each batch; it fails the test on any error but io.EOF.
func ids(t *testing.T, d *Dataset) (ids []int64, sizes []int) {
	t.Helper()
	for {
		_, inputs, labels, err := d.Yield()
		if err == io.EOF {
			return ids, sizes
		}
		if err != nil {
			t.Fatal(err)
		}
		v, err := tensors.CopyFlatData[int64](inputs[0])
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, v...)
		sizes = append(sizes, len(v))
		finalize(inputs)
		finalize(labels)
	}
}

func seq(n int) []int64 {
	s := make([]int64, n)
	for i := range s {
		s[i] = int64(i)
	}
	return s
}

func TestYieldShapes(t *testing.T) {
	path := writeExamples(t, 5)
	src := sluice.Examples(path, testSpec, sluice.Readers(1))
	d, err := New(context.Background(), src, 3, []string{"x", "v"}, []string{"id"})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if d.Name() != "sluice" {
		t.Errorf("Name() = %q, want the default, sluice", d.Name())
	}
	tests := []struct {
		x, v, id []int
		v0       [][]int64
	}{
		// v is padded to the longest record of the batch: 3 values.
		{x: []int{3, 2, 3}, v: []int{3, 3}, id: []int{3}, v0: [][]int64{{0, 0, 0}, {1, 1, 0}, {2, 2, 2}}},
		// The last batch holds what is left.
		{x: []int{2, 2, 3}, v: []int{2, 5}, id: []int{2}, v0: [][]int64{{3, 3, 3, 3, 0}, {4, 4, 4, 4, 4}}},
	}
	for i, tt := range tests {
		spec, inputs, labels, err := d.Yield()
		if err != nil {
			t.Fatalf("batch %d: %v", i, err)
		}
		if s, ok := spec.(*Spec); !ok || s != d.spec || !slices.Equal(s.Inputs, []string{"x", "v"}) || !slices.Equal(s.Labels, []string{"id"}) {
			t.Errorf("batch %d: spec %#v", i, spec)
		}
		if len(inputs) != 2 || len(labels) != 1 {
			t.Fatalf("batch %d: %d inputs, %d labels; want 2, 1", i, len(inputs), len(labels))
		}
		for _, c := range []struct {
			g     *tensors.Tensor
			dims  []int
			dtype dtypes.DType
		}{{inputs[0], tt.x, dtypes.Float32}, {inputs[1], tt.v, dtypes.Int64}, {labels[0], tt.id, dtypes.Int64}} {
			if !slices.Equal(c.g.Shape().Dimensions, c.dims) || c.g.DType() != c.dtype {
				t.Errorf("batch %d: tensor %v, want %v%v", i, c.g.Shape(), c.dtype, c.dims)
			}
		}
		if got := inputs[1].Value(); !reflect.DeepEqual(got, tt.v0) {
			t.Errorf("batch %d: v %v, want %v", i, got, tt.v0)
		}
		x := inputs[0].Value().([][][]float32)
		first := float32(labels[0].Value().([]int64)[0] * 10)
		if x[0][0][0] != first || x[0][1][2] != first+5 {
			t.Errorf("batch %d: x[0] %v, want from %v", i, x[0], first)
		}
		finalize(inputs)
		finalize(labels)
	}
	for range 2 {
		if _, _, _, err := d.Yield(); err != io.EOF {
			t.Fatalf("after the last batch: %v, want io.EOF", err)
		}
	}
}

func TestEpochs(t *testing.T) {
	path := writeExamples(t, 7)
	tests := []struct {
		name      string
		srcOpts   []sluice.ExampleOption
		opts      []Option
		batch     int
		wantSizes []int
		wantIDs   []int64
	}{
		{"remainder", nil, nil, 3, []int{3, 3, 1}, seq(7)},
		{"drop remainder", nil, []Option{BatchOptions(sluice.DropRemainder())}, 3, []int{3, 3}, seq(6)},
		{"one batch", nil, nil, 10, []int{7}, seq(7)},
		{"two sluice epochs", []sluice.ExampleOption{sluice.Epochs(2)}, nil, 7, []int{7, 7}, append(seq(7), seq(7)...)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := sluice.Examples(path, testSpec, append(tt.srcOpts, sluice.Readers(1))...)
			d, err := New(context.Background(), src, tt.batch, []string{"id"}, nil, tt.opts...)
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			// Each GoMLX epoch, after Reset, reads the data again.
			for epoch := range 3 {
				got, sizes := ids(t, d)
				if !slices.Equal(sizes, tt.wantSizes) || !slices.Equal(got, tt.wantIDs) {
					t.Errorf("epoch %d: batches of %v, ids %v; want %v, %v", epoch, sizes, got, tt.wantSizes, tt.wantIDs)
				}
				d.Reset()
			}
		})
	}
}

func TestResetMidEpoch(t *testing.T) {
	path := writeExamples(t, 10)
	src := sluice.Examples(path, testSpec, sluice.Readers(1))
	d, err := New(context.Background(), src, 2, []string{"id"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for n := range 4 { // read n batches, then start over
		for range n {
			if _, in, _, err := d.Yield(); err != nil {
				t.Fatal(err)
			} else {
				finalize(in)
			}
		}
		d.Reset()
		// The stopped pass left no goroutine behind.
		goleak.VerifyNone(t)
		if got, _ := ids(t, d); !slices.Equal(got, seq(10)) {
			t.Errorf("after Reset at batch %d: ids %v, want 0..9", n, got)
		}
		d.Reset()
	}
}

func TestCloseMidEpoch(t *testing.T) {
	path := writeExamples(t, 10)
	src := sluice.Examples(path, testSpec, sluice.Forever())
	d, err := New(context.Background(), src, 4, []string{"id"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for range 5 {
		if _, in, _, err := d.Yield(); err != nil {
			t.Fatal(err)
		} else {
			finalize(in)
		}
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	goleak.VerifyNone(t)
}

func TestCancel(t *testing.T) {
	path := writeExamples(t, 10)
	src := sluice.Examples(path, testSpec, sluice.Forever())
	ctx, cancel := context.WithCancel(context.Background())
	d, err := New(ctx, src, 4, []string{"id"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if _, in, _, err := d.Yield(); err != nil {
		t.Fatal(err)
	} else {
		finalize(in)
	}
	cancel()
	// Batches already made are not handed out once the context is done:
	// 4 or 5 more came (audit 44), where the doc says Yield returns the
	// context's error.
	for range 2 {
		if _, _, _, err := d.Yield(); !errors.Is(err, context.Canceled) {
			t.Fatalf("after cancel: %v, want context.Canceled", err)
		}
	}
	if _, _, _, err := d.Yield(); err == nil || strings.Contains(err.Error(), "sluice: sluice:") {
		t.Errorf("the error %q names the package twice", err)
	}
}

// Yield after Close is an error, not a new pass whose goroutines no one
// stops (audit 44: goleak found them); Reset does not undo Close, and
// Close again does nothing.
func TestYieldAfterClose(t *testing.T) {
	path := writeExamples(t, 10)
	d, err := New(context.Background(), sluice.Examples(path, testSpec, sluice.Forever()), 4, []string{"id"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, in, _, err := d.Yield(); err != nil {
		t.Fatal(err)
	} else {
		finalize(in)
	}
	d.Close()
	d.Reset()
	if _, _, _, err := d.Yield(); !errors.Is(err, ErrClosed) {
		t.Errorf("Yield after Close: %v, want ErrClosed", err)
	}
	if err := d.Close(); err != nil {
		t.Errorf("Close again: %v", err)
	}
}

func TestYieldErrors(t *testing.T) {
	path := writeExamples(t, 4)
	tests := []struct {
		name           string
		files          string
		inputs, labels []string
		want           error
	}{
		{"unknown feature", path, []string{"id"}, []string{"nope"}, ErrInvalid},
		{"string feature", path, []string{"s"}, nil, ErrDType},
		{"no files", filepath.Join(t.TempDir(), "*.tfrecord"), []string{"id"}, nil, sluice.ErrNoFiles},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := sluice.Examples(tt.files, testSpec)
			d, err := New(context.Background(), src, 2, tt.inputs, tt.labels)
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			// The error is sticky until Reset, and Reset tries again.
			for range 2 {
				for range 2 {
					if _, _, _, err := d.Yield(); !errors.Is(err, tt.want) {
						t.Fatalf("Yield: %v, want %v", err, tt.want)
					}
				}
				d.Reset()
			}
		})
	}
}

func TestNewErrors(t *testing.T) {
	src := sluice.Examples("unused", testSpec)
	tests := []struct {
		name           string
		src            *sluice.Dataset
		batch          int
		inputs, labels []string
	}{
		{"nil dataset", nil, 1, []string{"id"}, nil},
		{"batch 0", src, 0, []string{"id"}, nil},
		{"no inputs", src, 1, nil, []string{"id"}},
		{"name twice", src, 1, []string{"id", "x"}, []string{"id"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := New(context.Background(), tt.src, tt.batch, tt.inputs, tt.labels); !errors.Is(err, ErrInvalid) {
				t.Fatalf("New: %v, want ErrInvalid", err)
			}
		})
	}
}

// TestFixedLengthDTypes reads fields of several types from fixed-length
// records, to check the types through a whole sluice pipeline.
func TestFixedLengthDTypes(t *testing.T) {
	const n = 5
	var buf []byte
	for i := range n {
		buf = append(buf, byte(i), 1)                                               // u8: [2]uint8
		buf = binary.LittleEndian.AppendUint16(buf, uint16(int16(-i)))              // i16
		buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(float32(i)/2)) // f32
		buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(float64(i)*3)) // f64
	}
	path := filepath.Join(t.TempDir(), "data.bin")
	if err := os.WriteFile(path, buf, 0o666); err != nil {
		t.Fatal(err)
	}
	src := sluice.FixedLengthRecords(path, 16, []sluice.Field{
		{Name: "u8", Offset: 0, Size: 2, DType: tensor.Uint8},
		{Name: "i16", Offset: 2, Size: 2, DType: tensor.Int16, Shape: []int{}},
		{Name: "f32", Offset: 4, Size: 4, DType: tensor.Float32, Shape: []int{1}},
		{Name: "f64", Offset: 8, Size: 8, DType: tensor.Float64, Shape: []int{}},
	}, sluice.Readers(1))
	d, err := New(context.Background(), src, n, []string{"u8", "i16", "f32"}, []string{"f64"})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	_, inputs, labels, err := d.Yield()
	if err != nil {
		t.Fatal(err)
	}
	got := []any{inputs[0].Value(), inputs[1].Value(), inputs[2].Value(), labels[0].Value()}
	want := []any{
		[][]uint8{{0, 1}, {1, 1}, {2, 1}, {3, 1}, {4, 1}},
		[]int16{0, -1, -2, -3, -4},
		[][]float32{{0}, {0.5}, {1}, {1.5}, {2}},
		[]float64{0, 3, 6, 9, 12},
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("tensor %d: %v, want %v", i, got[i], want[i])
		}
	}
	if _, _, _, err := d.Yield(); err != io.EOF {
		t.Fatalf("second Yield: %v, want io.EOF", err)
	}
}

// Checkpoint and the Resume option resume a deterministic data set exactly
// where a training job stopped: the new Dataset's first pass yields the
// rest of the old one's, and the passes after Reset start from the
// beginning. A pass not started has no position; a data set read without
// Deterministic has none either.
func TestCheckpointResume(t *testing.T) {
	path := writeExamples(t, 23)
	src := sluice.Examples(path, testSpec, sluice.Deterministic(), sluice.Shuffle(8), sluice.Seed(3))
	whole, err := New(context.Background(), src, 4, []string{"id"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer whole.Close()
	want, _ := ids(t, whole)

	d, err := New(context.Background(), src, 4, []string{"id"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if _, err := d.Checkpoint(); !errors.Is(err, ErrInvalid) {
		t.Errorf("Checkpoint before the first Yield: %v, want ErrInvalid", err)
	}
	var got []int64
	for range 2 {
		_, inputs, _, err := d.Yield()
		if err != nil {
			t.Fatal(err)
		}
		v, _ := tensors.CopyFlatData[int64](inputs[0])
		got = append(got, v...)
		finalize(inputs)
	}
	ck, err := d.Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	resumed, err := New(context.Background(), src, 4, []string{"id"}, nil, Resume(ck))
	if err != nil {
		t.Fatal(err)
	}
	defer resumed.Close()
	rest, _ := ids(t, resumed)
	if all := append(got, rest...); !slices.Equal(all, want) {
		t.Errorf("resumed pass: %v then %v, want %v", got, rest, want)
	}
	if end, err := resumed.Checkpoint(); err != nil || len(end) == 0 {
		t.Errorf("Checkpoint after the pass ended: %v", err)
	}
	resumed.Reset()
	if again, _ := ids(t, resumed); !slices.Equal(again, want) {
		t.Errorf("the pass after Reset: %v, want the whole pass %v", again, want)
	}

	plain, err := New(context.Background(), sluice.Examples(path, testSpec), 4, []string{"id"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	if _, _, _, err := plain.Yield(); err != nil {
		t.Fatal(err)
	}
	if _, err := plain.Checkpoint(); !errors.Is(err, sluice.ErrNotDeterministic) {
		t.Errorf("Checkpoint of a data set read without Deterministic: %v, want ErrNotDeterministic", err)
	}
}

// A SparseFeature of a space larger than memory (a hashed feature) named
// as an input is an error of Yield naming it, not a panic of Batch.Dense
// (audit 115).
func TestHugeSparseFeatureYieldError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hashed.tfrecord")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := tfrecord.NewWriter(f)
	for i := range 4 {
		if err := w.Write(example.New().Int64("idx", int64(i)<<38).Float("val", float32(i)).Marshal()); err != nil {
			t.Fatal(err)
		}
	}
	if err := errors.Join(w.Close(), f.Close()); err != nil {
		t.Fatal(err)
	}
	if tensor.MemoryLimit() >= 4<<42 {
		t.Skip("the machine holds the dense form")
	}
	spec := example.Spec{"sp": example.SparseFeature([]string{"idx"}, "val", tensor.Float32, []int{1 << 40}, false)}
	d, err := New(context.Background(), sluice.Examples(path, spec, sluice.Readers(1)), 4, []string{"sp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if _, _, _, err := d.Yield(); !errors.Is(err, tensor.ErrResourceExhausted) || !strings.Contains(err.Error(), `feature "sp"`) {
		t.Fatalf("Yield: %v, want ErrResourceExhausted naming feature \"sp\"", err)
	}
}
