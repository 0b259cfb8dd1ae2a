package example

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/sluiceml/sluice/tensor"
)

// The cases in testdata/tfref.json were produced by tools/tfref/example.py
// with TensorFlow 2.21: inputs, specs, and TensorFlow's outputs or error
// messages. Every case runs through both the fast path and the
// generated-message reference path.

type refSpec struct {
	Kind          string          `json:"kind"`
	DType         string          `json:"dtype"`
	Shape         []int           `json:"shape"`
	Default       json.RawMessage `json:"default"`
	AllowMissing  bool            `json:"allow_missing"`
	IndexKeys     []string        `json:"index_keys"`
	ValueKey      string          `json:"value_key"`
	Size          []int           `json:"size"`
	AlreadySorted bool            `json:"already_sorted"`
}

type refOutput struct {
	Shape      []int             `json:"shape"`
	Values     []json.RawMessage `json:"values"`
	Indices    []int64           `json:"indices"`
	DenseShape []int             `json:"dense_shape"`
}

type refCase struct {
	Name       string               `json:"name"`
	Mode       string               `json:"mode"`
	Inputs     []string             `json:"inputs"`
	Keys       []string             `json:"keys"`
	Spec       map[string]refSpec   `json:"spec"`
	Context    map[string]refSpec   `json:"context"`
	Lists      map[string]refSpec   `json:"lists"`
	Output     map[string]refOutput `json:"output"`
	ListOutput map[string]refOutput `json:"list_output"`
	Lengths    map[string][]int64   `json:"lengths"`
	Error      string               `json:"error"`
	Note       string               `json:"note"`
	Observed   string               `json:"tf_observed"`
}

type refFile struct {
	Cases []refCase `json:"cases"`
	MNIST *struct {
		Records  int     `json:"records"`
		SHA256   string  `json:"image_floats_sha256"`
		Classes  []int64 `json:"image_class"`
		FirstSum float64 `json:"first_image_sum"`
	} `json:"mnist"`
}

func loadRef(t testing.TB) *refFile {
	t.Helper()
	b, err := os.ReadFile("testdata/tfref.json")
	if err != nil {
		t.Fatal(err)
	}
	var f refFile
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	return &f
}

func (s refSpec) feature(t testing.TB) FeatureSpec {
	dt, err := tensor.ParseDType(s.DType)
	if err != nil {
		t.Fatal(err)
	}
	var f FeatureSpec
	switch s.Kind {
	case "fixed":
		f = FixedLen(dt, s.Shape...)
	case "varlen":
		f = VarLen(dt)
	case "sparse":
		f = SparseFeature(s.IndexKeys, s.ValueKey, dt, s.Size, s.AlreadySorted)
	case "seq":
		f = FixedLenSequence(dt, s.Shape...)
		if s.AllowMissing {
			f = f.AllowMissing()
		}
	default:
		t.Fatalf("unknown spec kind %q", s.Kind)
	}
	if len(s.Default) > 0 && string(s.Default) != "null" {
		f = f.WithDefault(jsonDefault(t, dt, s.Default))
	}
	return f
}

func jsonDefault(t testing.TB, dt tensor.DType, raw json.RawMessage) tensor.Tensor {
	var vs []any
	if raw[0] == '[' {
		if err := json.Unmarshal(raw, &vs); err != nil {
			t.Fatal(err)
		}
	} else {
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatal(err)
		}
		vs = []any{v}
	}
	switch dt {
	case tensor.Float32:
		out := make([]float32, len(vs))
		for i, v := range vs {
			out[i] = float32(v.(float64))
		}
		return tensor.New(out)
	case tensor.Int64:
		out := make([]int64, len(vs))
		for i, v := range vs {
			out[i] = int64(v.(float64))
		}
		return tensor.New(out)
	default:
		out := make([]string, len(vs))
		for i, v := range vs {
			out[i] = v.(string)
		}
		return tensor.Strings(out...)
	}
}

func toSpec(t testing.TB, m map[string]refSpec) Spec {
	s := Spec{}
	for k, v := range m {
		s[k] = v.feature(t)
	}
	return s
}

// wantValues decodes JSON values of a dtype into a tensor of the shape.
func wantValues(t testing.TB, dt tensor.DType, raw []json.RawMessage, shape tensor.Shape) tensor.Tensor {
	switch dt {
	case tensor.Float32:
		out := make([]float32, len(raw))
		for i, r := range raw {
			var bits uint32
			if err := json.Unmarshal(r, &bits); err != nil {
				t.Fatal(err)
			}
			out[i] = math.Float32frombits(bits)
		}
		return mustFromData(t, out, shape)
	case tensor.Int64:
		out := make([]int64, len(raw))
		for i, r := range raw {
			if err := json.Unmarshal(r, &out[i]); err != nil {
				t.Fatal(err)
			}
		}
		return mustFromData(t, out, shape)
	default:
		out := make([][]byte, len(raw))
		for i, r := range raw {
			var s string
			if err := json.Unmarshal(r, &s); err != nil {
				t.Fatal(err)
			}
			out[i], _ = base64.StdEncoding.DecodeString(s)
		}
		return mustFromData(t, out, shape)
	}
}

// sameBits compares tensors, float32 by bit pattern so NaN matches NaN.
func sameBits(a, b tensor.Tensor) bool {
	if a.DType() == tensor.Float32 && b.DType() == tensor.Float32 && a.Shape().Equal(b.Shape()) {
		x, y := a.Float32s(), b.Float32s()
		for i := range x {
			if math.Float32bits(x[i]) != math.Float32bits(y[i]) {
				return false
			}
		}
		return true
	}
	return tensor.Equal(a, b)
}

func checkOutputs(t *testing.T, got *Parsed, spec Spec, want map[string]refOutput) {
	t.Helper()
	if !slices.Equal(got.Names(), slices.Sorted(mapsKeys(spec))) {
		t.Errorf("Names() = %v", got.Names())
	}
	for name, w := range want {
		fs := spec[name]
		if w.DenseShape != nil {
			s, ok := got.Sparse(name)
			if !ok {
				t.Errorf("%s: no sparse output", name)
				continue
			}
			nnz := len(w.Values)
			cols := 0
			if nnz > 0 {
				cols = len(w.Indices) / nnz
			} else {
				cols = len(w.DenseShape)
			}
			if !tensor.Equal(s.Indices, tensor.New(append([]int64{}, w.Indices...), nnz, cols)) {
				t.Errorf("%s: indices %v, want %v", name, s.Indices, w.Indices)
			}
			if wv := wantValues(t, fs.DType(), w.Values, tensor.Shape{nnz}); !sameBits(s.Values, wv) {
				t.Errorf("%s: values %v, want %v", name, s.Values, wv)
			}
			if !s.DenseShape.Equal(w.DenseShape) {
				t.Errorf("%s: dense shape %v, want %v", name, s.DenseShape, w.DenseShape)
			}
			if err := s.Validate(); err != nil {
				t.Errorf("%s: %v", name, err)
			}
			continue
		}
		d, ok := got.Dense(name)
		if !ok {
			t.Errorf("%s: no dense output", name)
			continue
		}
		if wv := wantValues(t, fs.DType(), w.Values, tensor.Shape(w.Shape)); !sameBits(d, wv) {
			t.Errorf("%s: got %v, want %v", name, d, wv)
		}
	}
}

func mapsKeys(s Spec) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range s {
			if !yield(k) {
				return
			}
		}
	}
}

// malformedTF lists TensorFlow's texts for undecodable records; sluice's
// text is its own ("Can't parse serialized Example: <what> at byte <n>").
var malformedTF = []string{"Could not parse example input", "Can't parse serialized Example",
	"Invalid protocol message input", "malformed"}

func checkError(t *testing.T, c refCase, err error, reference bool) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error; TensorFlow: %q", c.Error)
	}
	if want, ok := specErrorText(t, c.Error); ok {
		if !errors.Is(err, ErrInvalidSpec) || !strings.Contains(err.Error(), want) {
			t.Fatalf("error %q, want ErrInvalidSpec with %q (TensorFlow: %q)", err, want, c.Error)
		}
		return
	}
	for _, m := range malformedTF {
		if strings.HasPrefix(c.Error, m) || strings.Contains(c.Error, "Can't parse serialized Example") {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("error %q is not ErrMalformed", err)
			}
			// The reference path cannot know the offset: protobuf does not say.
			if !strings.Contains(err.Error(), "Name: "+c.Keys[0]) || (!reference && !strings.Contains(err.Error(), " at byte ")) {
				t.Fatalf("error %q does not name the record and offset", err)
			}
			return
		}
	}
	if strings.HasPrefix(c.Error, "Unsupported: ") {
		if !errors.Is(err, ErrInvalidSpec) || !strings.Contains(err.Error(), c.Error) {
			t.Fatalf("error %q, want ErrInvalidSpec with %q", err, c.Error)
		}
		return
	}
	if !strings.Contains(err.Error(), c.Error) {
		t.Fatalf("error:\n got %q\nwant TensorFlow's %q", err, c.Error)
	}
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("error %T is not a *ParseError", err)
	}
}

var (
	tfIntersection = regexp.MustCompile(`^Dense and sparse keys must not intersect; .*intersection: \{(.*)\}$`)
	tfConflict     = regexp.MustCompile(`^Conflicting type <dtype: '(\w+)'> vs <dtype: '(\w+)'> for feature (.*)\.$`)
)

// specErrorText returns, for TensorFlow's ValueError refusing a spec whose
// keys conflict, the text sluice's ErrInvalidSpec must hold: TensorFlow's
// words with Go's quoting of the keys and dtypes it names.
func specErrorText(t testing.TB, tfErr string) (string, bool) {
	if m := tfIntersection.FindStringSubmatch(tfErr); m != nil {
		var keys []string
		for _, k := range strings.Split(m[1], ", ") {
			keys = append(keys, strings.Trim(k, "'"))
		}
		slices.Sort(keys) // a Python set's order
		return fmt.Sprintf("Dense and sparse keys must not intersect; intersection: %q", keys), true
	}
	if m := tfConflict.FindStringSubmatch(tfErr); m != nil {
		return fmt.Sprintf("Conflicting type %s vs %s for feature %q", m[1], m[2], m[3]), true
	}
	if strings.HasPrefix(tfErr, "Dense and sparse keys") || strings.HasPrefix(tfErr, "Conflicting type") {
		t.Fatalf("TensorFlow's spec error %q not understood", tfErr)
	}
	return "", false
}

// runCase parses c with the fast path (reference false) or the message path.
func runCase(t *testing.T, c refCase, reference bool) (ctx, lists *Parsed, err error) {
	inputs := make([][]byte, len(c.Inputs))
	for i, s := range c.Inputs {
		inputs[i], _ = base64.StdEncoding.DecodeString(s)
	}
	switch c.Mode {
	case "single", "batch":
		var p *Parser
		if reference {
			p, err = newReferenceParser(toSpec(t, c.Spec))
		} else {
			p, err = NewParser(toSpec(t, c.Spec))
		}
		if err != nil {
			return nil, nil, err
		}
		if c.Mode == "single" {
			ctx, err = p.ParseSingle(inputs[0], c.Keys[0])
		} else {
			ctx, err = p.Parse(inputs, c.Keys)
		}
		return ctx, nil, err
	default:
		p, err := NewSequenceParser(toSpec(t, c.Context), toSpec(t, c.Lists))
		if err != nil {
			return nil, nil, err
		}
		p.reference = reference
		if c.Mode == "seq_single" {
			return p.ParseSingle(inputs[0], c.Keys[0])
		}
		return p.Parse(inputs, c.Keys)
	}
}

// TestTensorFlowReference covers DECODERS.md "tf.train.Example and
// SequenceExample": FixedLen (shapes, defaults, missing → error), VarLen,
// SparseFeature (sorting, unchecked bounds), FixedLenSequence in Examples
// and feature lists, defaults of no elements, specs whose keys are read as
// dense and sparse or with two dtypes, dtype mismatches, value counts, packed and unpacked
// lists, map entries in any order, unknown fields, last-wins duplicates,
// the empty record, and malformed input — against TensorFlow's results.
func TestTensorFlowReference(t *testing.T) {
	ref := loadRef(t)
	if len(ref.Cases) < 60 {
		t.Fatalf("only %d cases in testdata/tfref.json", len(ref.Cases))
	}
	for _, c := range ref.Cases {
		for _, path := range []string{"fast", "reference"} {
			t.Run(c.Name+"/"+path, func(t *testing.T) {
				if strings.HasPrefix(c.Note, "deviation") {
					t.Skip("checked by TestDeviationsFromTensorFlow: " + c.Note)
				}
				ctx, lists, err := runCase(t, c, path == "reference")
				if c.Error != "" {
					checkError(t, c, err, path == "reference")
					return
				}
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				if c.Spec != nil {
					checkOutputs(t, ctx, toSpec(t, c.Spec), c.Output)
					return
				}
				checkOutputs(t, ctx, toSpec(t, c.Context), c.Output)
				checkOutputs(t, lists, toSpec(t, c.Lists), c.ListOutput)
				for name, want := range c.Lengths {
					got, ok := lists.Lengths(name)
					if !ok || !slices.Equal(got.Int64s(), want) {
						t.Errorf("Lengths(%s) = %v, want %v", name, got, want)
					}
				}
			})
		}
	}
}

func mustFromData(t testing.TB, data any, shape tensor.Shape) tensor.Tensor {
	t.Helper()
	out, err := tensor.FromData(data, shape)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
