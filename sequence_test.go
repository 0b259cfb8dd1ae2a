package sluice

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/sluiceml/sluice/dataerr"
	"github.com/sluiceml/sluice/example"
	"github.com/sluiceml/sluice/tensor"
	"github.com/sluiceml/sluice/tfrecord"
)

// seqRecord returns SequenceExample id: a context "id" and a VarLen
// context "tags" of id%3 strings; a feature list "frames" of id%5 steps of
// two floats (NaN and -0 among them, so that a comparison is of bits) and
// a VarLen list "words" of id%4 steps, step j holding j values (step 0
// empty, so that a record's last steps may hold nothing).
func seqRecord(id int) []byte {
	b := example.NewSequence().Context("id", example.Int64List(int64(id)))
	tags := make([][]byte, id%3)
	for j := range tags {
		tags[j] = fmt.Appendf(nil, "t%d.%d", id, j)
	}
	b.Context("tags", example.BytesList(tags...))
	frames := make([]example.Feature, id%5)
	for j := range frames {
		v := float32(id) + float32(j)/10
		if (id+j)%7 == 3 {
			v = float32(math.NaN())
		}
		frames[j] = example.FloatList(v, float32(math.Copysign(0, -1)))
	}
	b.List("frames", frames...)
	words := make([]example.Feature, id%4)
	for j := range words {
		w := make([]int64, (j+id)%3)
		for k := range w {
			w[k] = int64(100*id + 10*j + k)
		}
		words[j] = example.Int64List(w...)
	}
	b.List("words", words...)
	return b.Marshal()
}

var (
	seqContext = example.Spec{
		"id":   example.FixedLen(tensor.Int64),
		"tags": example.VarLen(tensor.String),
	}
	seqLists = example.Spec{
		"frames": example.FixedLenSequence(tensor.Float32, 2).AllowMissing(),
		"words":  example.VarLen(tensor.Int64),
	}
)

// writeSequenceExamples writes files of SequenceExamples with ids first,
// first+1, ...: perFile records each, compressed in turn by cs. It returns
// the files and every record by id.
func writeSequenceExamples(t testing.TB, dir string, files, perFile int, cs ...tfrecord.Compression) (names []string, recs [][]byte) {
	t.Helper()
	for i := range files {
		c := tfrecord.None
		if len(cs) > 0 {
			c = cs[i%len(cs)]
		}
		var buf bytes.Buffer
		w := tfrecord.NewWriter(&buf, c)
		for range perFile {
			rec := seqRecord(len(recs))
			if err := w.Write(rec); err != nil {
				t.Fatal(err)
			}
			recs = append(recs, rec)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		name := filepath.Join(dir, fmt.Sprintf("seq-%05d.tfrecord", i))
		if err := os.WriteFile(name, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	return names, recs
}

// sameBits reports whether a and b have the same type, shape and values,
// floats compared bit for bit.
func sameBits(a, b tensor.Tensor) bool {
	if a.DType() != b.DType() || !slices.Equal(a.Shape(), b.Shape()) {
		return false
	}
	if a.DType() == tensor.Float32 {
		return slices.EqualFunc(a.Float32s(), b.Float32s(), func(x, y float32) bool { return math.Float32bits(x) == math.Float32bits(y) })
	}
	return tensor.Equal(a, b)
}

// checkBatch compares a batch with what example.ParseSequence makes of
// the same records, in the batch's order (found by the context "id"): the
// same tensors, bit for bit, padded to the batch's longest record, and the
// same lengths.
func checkBatch(t *testing.T, b *Batch, recs [][]byte) {
	t.Helper()
	var mine [][]byte
	for _, id := range b.Int64("id") {
		mine = append(mine, recs[id])
	}
	ctx, lists, err := example.ParseSequence(mine, seqContext, seqLists, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"frames", "id", "tags", "words"}; !slices.Equal(b.Names(), want) {
		t.Fatalf("Names() = %q, want %q", b.Names(), want)
	}
	for _, f := range []struct {
		name string
		out  *example.Parsed
	}{{"id", ctx}, {"tags", ctx}, {"frames", lists}, {"words", lists}} {
		if want, ok := f.out.Dense(f.name); ok {
			if got := b.Dense(f.name); !sameBits(got, want) {
				t.Errorf("%s: %v, want %v", f.name, got, want)
			}
		} else {
			want, _ := f.out.Sparse(f.name)
			got := b.Sparse(f.name)
			if !sameBits(got.Indices, want.Indices) || !sameBits(got.Values, want.Values) || !slices.Equal(got.DenseShape, want.DenseShape) {
				t.Errorf("%s: %v, want %v", f.name, got, want)
			}
		}
		if f.out == lists {
			want, _ := lists.Lengths(f.name)
			got := b.Lengths(f.name)
			if !slices.Equal(got, asInts(want.Int64s())) {
				t.Errorf("Lengths(%s) = %v, want %v", f.name, got, want)
			}
		}
	}
	// Lengths of a context VarLen feature: its values per record.
	tags := b.Lengths("tags")
	for i, id := range b.Int64("id") {
		if tags[i] != int(id%3) {
			t.Errorf("Lengths(tags)[%d] = %d, want %d", i, tags[i], id%3)
		}
	}
}

func asInts(v []int64) []int {
	out := make([]int, len(v))
	for i, x := range v {
		out[i] = int(x)
	}
	return out
}

// SequenceExamples delivers every record of every epoch once, in batches
// that are, bit for bit, what example.ParseSequence makes of their records:
// context features, feature lists padded to the batch's longest record,
// and their lengths; with every option of Examples and files of every
// compression.
func TestSequenceExamples(t *testing.T) {
	dir := t.TempDir()
	files, recs := writeSequenceExamples(t, dir, 5, 23, tfrecord.None, tfrecord.Gzip, tfrecord.Zlib, tfrecord.Zstd)
	pattern := filepath.Join(dir, "seq-*")
	tests := []struct {
		name  string
		opts  []ExampleOption
		bopts []BatchOption
		n     int
		// times is how often record id is delivered; -1: at most once.
		times   func(id int) int
		inOrder bool
	}{
		{"in order", []ExampleOption{Readers(1)}, nil, 8, once, true},
		{"one record a batch", []ExampleOption{Readers(1)}, nil, 1, once, true},
		{"all in one batch", []ExampleOption{Readers(1)}, nil, 500, once, true},
		{"readers", []ExampleOption{Readers(3), Epochs(2)}, nil, 7, twice, false},
		{"shuffled", []ExampleOption{Shuffle(30), Seed(3), Epochs(2)}, []BatchOption{KeepBatches()}, 16, twice, false},
		{"deterministic", []ExampleOption{Deterministic(), Shuffle(40), Seed(1), Epochs(2)}, nil, 9, twice, false},
		{"dropping the remainder", []ExampleOption{Readers(2)}, []BatchOption{DropRemainder()}, 10,
			func(int) int { return -1 }, false},
		{"first file twice", []ExampleOption{Readers(1), Files(files[0])}, nil, 8,
			func(id int) int {
				if id < 23 {
					return 2
				}
				return 1
			}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ds := SequenceExamples(pattern, seqContext, seqLists, tt.opts...)
			count := make([]int, len(recs))
			var ids []int64
			for b, err := range ds.Batches(t.Context(), tt.n, tt.bopts...) {
				if err != nil {
					t.Fatal(err)
				}
				checkBatch(t, b, recs)
				for _, id := range b.Int64("id") {
					count[id]++
					ids = append(ids, id)
				}
			}
			for id, c := range count {
				if want := tt.times(id); c != want && (want >= 0 || c > 1) {
					t.Fatalf("record %d delivered %d times, want %d", id, c, want)
				}
			}
			if tt.times(0) < 0 && len(ids) != len(recs)/tt.n*tt.n {
				t.Errorf("%d records, want %d", len(ids), len(recs)/tt.n*tt.n)
			}
			if tt.inOrder && !slices.IsSorted(ids) {
				t.Errorf("records out of order: %v", ids)
			}
		})
	}
}

// A global shuffle of SequenceExamples visits every record once an
// epoch, in an order of all files' records, and its batches are what
// example.ParseSequence makes of their records.
func TestSequenceExamplesGlobalShuffle(t *testing.T) {
	t.Setenv("SLUICE_INDEX_DIR", t.TempDir())
	dir := t.TempDir()
	_, recs := writeSequenceExamples(t, dir, 4, 23, tfrecord.None)
	ds := SequenceExamples(filepath.Join(dir, "seq-*"), seqContext, seqLists, GlobalShuffle(), Seed(2), Epochs(2))
	var ids []int64
	for b, err := range ds.Batches(t.Context(), 10) {
		if err != nil {
			t.Fatal(err)
		}
		checkBatch(t, b, recs)
		ids = append(ids, b.Int64("id")...)
	}
	if len(ids) != 2*len(recs) {
		t.Fatalf("%d records, want %d", len(ids), 2*len(recs))
	}
	for e := range 2 {
		epoch := slices.Clone(ids[e*len(recs) : (e+1)*len(recs)])
		if slices.IsSorted(epoch) {
			t.Errorf("epoch %d in file order", e)
		}
		slices.Sort(epoch)
		for i, id := range epoch {
			if id != int64(i) {
				t.Fatalf("epoch %d: records %v..., want each once", e, epoch[:i+1])
			}
		}
	}
}

func once(int) int  { return 1 }
func twice(int) int { return 2 }

// The reference outputs of TensorFlow 2.21's parse_sequence_example and
// parse_single_sequence_example (example/testdata/tfref.json), read as a
// TFRecord file of the case's records in one batch: the same values,
// dense shapes and lengths; and the same errors, naming the record's file,
// offset and index.
func TestSequenceExamplesTensorFlowReference(t *testing.T) {
	raw, err := os.ReadFile("example/testdata/tfref.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Cases []struct {
			Name       string
			Mode       string
			Inputs     []string
			Keys       []string
			Context    map[string]refSpec
			Lists      map[string]refSpec
			Output     map[string]refOutput
			ListOutput map[string]refOutput `json:"list_output"`
			Lengths    map[string][]int64
			Error      string
			Note       string
		}
	}
	if err := json.Unmarshal(raw, &ref); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ran := 0
	for _, c := range ref.Cases {
		if !strings.HasPrefix(c.Mode, "seq") || strings.HasPrefix(c.Note, "deviation") {
			continue
		}
		ran++
		t.Run(c.Name, func(t *testing.T) {
			name := filepath.Join(dir, c.Name+".tfrecord")
			var buf bytes.Buffer
			w := tfrecord.NewWriter(&buf)
			var offsets []int64
			at := int64(0)
			for _, in := range c.Inputs {
				rec, err := base64.StdEncoding.DecodeString(in)
				if err != nil {
					t.Fatal(err)
				}
				offsets = append(offsets, at)
				at += int64(len(rec) + tfrecord.Overhead)
				w.Write(rec)
			}
			w.Close()
			if err := os.WriteFile(name, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			ds := SequenceExamples(name, specOf(t, c.Context), specOf(t, c.Lists), Readers(1))
			if k := sharedKey(c.Context, c.Lists); k != "" {
				// TensorFlow reads one key as a context feature and a
				// feature list; a batch has one feature of a name, so the
				// front door refuses the spec.
				for _, err := range ds.Batches(t.Context(), len(c.Inputs)) {
					if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), strconv.Quote(k)) {
						t.Fatalf("%q both a context feature and a feature list: %v, want ErrInvalid naming it", k, err)
					}
					return
				}
				t.Fatal("no batch and no error")
			}
			var got *Batch
			for b, err := range ds.Batches(t.Context(), len(c.Inputs)) {
				if c.Error != "" {
					if err == nil {
						t.Fatalf("no error, want %q", c.Error)
					}
					de, ok := errors.AsType[*dataerr.Error](err)
					if !ok || de.File != name || de.Record < 0 || de.Record >= int64(len(offsets)) || de.Offset != offsets[de.Record] {
						t.Fatalf("%v (%#v): want a *dataerr.Error naming %s, the record's offset and index", err, de, name)
					}
					if strings.HasPrefix(c.Error, "Invalid protocol message input") {
						// sluice's text is the Example parser's, with the
						// offset in the record.
						if !errors.Is(err, example.ErrMalformed) || !strings.Contains(err.Error(), " at byte ") {
							t.Errorf("error %q, want example.ErrMalformed and the offset", err)
						}
						return
					}
					// TensorFlow names the record by the key it was given.
					key := fmt.Sprintf("%s:%d", name, de.Offset)
					if want := strings.ReplaceAll(c.Error, c.Keys[de.Record], key); !strings.Contains(err.Error(), want) {
						t.Errorf("error %q, want it to contain %q", err, want)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				got = b
			}
			if c.Error != "" {
				t.Fatalf("no error, want %q", c.Error)
			}
			single := c.Mode == "seq_single"
			for feat, want := range c.Output {
				checkRef(t, got, feat, want, single)
			}
			for feat, want := range c.ListOutput {
				checkRef(t, got, feat, want, single)
				if c.Lists[feat].Kind != "seq" {
					continue
				}
				lengths := c.Lengths[feat]
				if single {
					// One record's steps: its output's first dimension.
					lengths = []int64{int64(want.Shape[0])}
				}
				if l := got.Lengths(feat); !slices.Equal(l, asInts(lengths)) {
					t.Errorf("Lengths(%s) = %v, want %v", feat, l, lengths)
				}
			}
		})
	}
	if ran < 10 {
		t.Fatalf("only %d SequenceExample cases in tfref.json", ran)
	}
}

// convertAll converts JSON numbers to T.
func convertAll[T float32 | int64](vs []float64) []T {
	out := make([]T, len(vs))
	for i, v := range vs {
		out[i] = T(v)
	}
	return out
}

// sharedKey returns a name both specs hold, or "".
func sharedKey(a, b map[string]refSpec) string {
	for k := range a {
		if _, ok := b[k]; ok {
			return k
		}
	}
	return ""
}

type refSpec struct {
	Kind         string
	DType        string
	Shape        []int
	Default      json.RawMessage
	AllowMissing bool `json:"allow_missing"`
}

type refOutput struct {
	Shape      []int
	Values     []json.RawMessage
	Indices    []int64
	DenseShape []int `json:"dense_shape"`
}

func specOf(t *testing.T, specs map[string]refSpec) example.Spec {
	t.Helper()
	out := example.Spec{}
	for name, s := range specs {
		dt, err := tensor.ParseDType(s.DType)
		if err != nil {
			t.Fatal(err)
		}
		var f example.FeatureSpec
		switch s.Kind {
		case "fixed":
			f = example.FixedLen(dt, s.Shape...)
		case "varlen":
			f = example.VarLen(dt)
		case "seq":
			f = example.FixedLenSequence(dt, s.Shape...)
			if s.AllowMissing {
				f = f.AllowMissing()
			}
		default:
			t.Fatalf("feature %q: kind %q", name, s.Kind)
		}
		if len(s.Default) > 0 && string(s.Default) != "null" {
			// A number, or a list of them (a default of the whole shape,
			// which may have no elements).
			var vs []float64
			dims := []int{}
			if err := json.Unmarshal(s.Default, &vs); err == nil {
				dims = []int{len(vs)}
			} else {
				var v float64
				if err := json.Unmarshal(s.Default, &v); err != nil {
					t.Fatalf("feature %q: default %s", name, s.Default)
				}
				vs = []float64{v}
			}
			switch dt {
			case tensor.Float32:
				f = f.WithDefault(tensor.New(convertAll[float32](vs), dims...))
			case tensor.Int64:
				f = f.WithDefault(tensor.New(convertAll[int64](vs), dims...))
			default:
				t.Fatalf("feature %q: a default of %v", name, dt)
			}
		}
		out[name] = f
	}
	return out
}

// refValues decodes a reference output's values: floats as their bits,
// strings in base64.
func refValues(t *testing.T, dt tensor.DType, vs []json.RawMessage) tensor.Tensor {
	t.Helper()
	switch dt {
	case tensor.Float32:
		out := make([]float32, len(vs))
		for i, v := range vs {
			var bits uint32
			if err := json.Unmarshal(v, &bits); err != nil {
				t.Fatal(err)
			}
			out[i] = math.Float32frombits(bits)
		}
		return tensor.New(out, len(out))
	case tensor.Int64:
		out := make([]int64, len(vs))
		for i, v := range vs {
			if err := json.Unmarshal(v, &out[i]); err != nil {
				t.Fatal(err)
			}
		}
		return tensor.New(out, len(out))
	}
	out := make([][]byte, len(vs))
	for i, v := range vs {
		if err := json.Unmarshal(v, &out[i]); err != nil {
			t.Fatal(err)
		}
	}
	return tensor.New(out, len(out))
}

// checkRef compares feature feat of b with TensorFlow's output; single
// outputs, of one record, gain the batch dimension first.
func checkRef(t *testing.T, b *Batch, feat string, want refOutput, single bool) {
	t.Helper()
	values := func(dt tensor.DType) tensor.Tensor { return refValues(t, dt, want.Values) }
	if want.DenseShape == nil {
		shape := want.Shape
		if single {
			shape = append([]int{1}, shape...)
		}
		got := b.Dense(feat)
		w, err := values(got.DType()).Reshape(shape)
		if err != nil {
			t.Fatal(err)
		}
		if !sameBits(got, w) {
			t.Errorf("%s: %v, want %v", feat, got, w)
		}
		return
	}
	got := b.Sparse(feat)
	indices, shape := want.Indices, want.DenseShape
	if single {
		rank := len(shape)
		shape = append([]int{1}, shape...)
		indices = nil
		for i := 0; i < len(want.Indices); i += rank {
			indices = append(append(indices, 0), want.Indices[i:i+rank]...)
		}
	}
	if indices == nil {
		indices = []int64{}
	}
	if !slices.Equal(got.Indices.Int64s(), indices) || !slices.Equal(got.DenseShape, shape) ||
		!sameBits(got.Values, values(got.Values.DType())) {
		t.Errorf("%s: %v, want indices %v, values %s, dense shape %v", feat, got, indices, want.Values, shape)
	}
}

// Specs and options SequenceExamples cannot use are errors wrapping
// ErrInvalid (example.ErrInvalidSpec for a spec the parser refuses, as
// with Examples), returned by the loop before anything is read.
func TestSequenceExamplesInvalid(t *testing.T) {
	dir := t.TempDir()
	writeSequenceExamples(t, dir, 1, 3)
	pattern := filepath.Join(dir, "seq-*")
	tests := []struct {
		name          string
		context, list example.Spec
		opts          []ExampleOption
		want          string
	}{
		{"no features", nil, example.Spec{}, nil, "name no feature"},
		{"a name in both specs", example.Spec{"x": example.FixedLen(tensor.Int64)},
			example.Spec{"x": example.VarLen(tensor.Int64)}, nil, `"x" is both`},
		{"a sequence in the context", example.Spec{"x": example.FixedLenSequence(tensor.Int64)}, nil, nil, "is for feature lists"},
		{"a fixed feature list", nil, example.Spec{"x": example.FixedLen(tensor.Int64)}, nil, "is for context features"},
		{"epochs", seqContext, seqLists, []ExampleOption{Epochs(0)}, "Epochs(0)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := first(SequenceExamples(pattern, tt.context, tt.list, tt.opts...).Batches(t.Context(), 2))
			if !(errors.Is(err, ErrInvalid) || errors.Is(err, example.ErrInvalidSpec)) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want ErrInvalid with %q", err, tt.want)
			}
		})
	}
}

// A corrupt TFRecord ends the loop with an error naming its file and
// offset, or is skipped with SkipCorrupt.
func TestSequenceExamplesCorrupt(t *testing.T) {
	dir := t.TempDir()
	files, recs := writeSequenceExamples(t, dir, 1, 10)
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	off := int64(0)
	for _, r := range recs[:6] {
		off += int64(len(r) + tfrecord.Overhead)
	}
	data[off+12+3] ^= 0xff // record 6's data: its CRC fails
	if err := os.WriteFile(files[0], data, 0o644); err != nil {
		t.Fatal(err)
	}
	err = first(SequenceExamples(files[0], seqContext, seqLists, Readers(1)).Batches(t.Context(), 20))
	de, ok := errors.AsType[*dataerr.Error](err)
	if !errors.Is(err, tfrecord.ErrDataLoss) || !ok || de.File != files[0] || de.Offset != off {
		t.Fatalf("error %v, want tfrecord.ErrDataLoss at %s:%d", err, files[0], off)
	}
	var ids []int64
	for b, err := range SequenceExamples(files[0], seqContext, seqLists, Readers(1), SkipCorrupt()).Batches(t.Context(), 20) {
		if err != nil {
			t.Fatal(err)
		}
		checkBatch(t, b, recs)
		ids = append(ids, b.Int64("id")...)
	}
	if want := []int64{0, 1, 2, 3, 4, 5, 7, 8, 9}; !slices.Equal(ids, want) {
		t.Errorf("ids %v, want %v", ids, want)
	}
}
