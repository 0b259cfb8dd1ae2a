package example_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/sluiceml/sluice/example"
	"github.com/sluiceml/sluice/tfrecord"
)

// This file checks that TensorFlow reads what the builders write. The
// records below are written to TFRecord files with a manifest that spells
// out every value; tools/tfref/roundtrip.py reads the files with TensorFlow
// (tf.data, the proto classes and the parse ops), compares, and writes its
// verdict to testdata/tf_reads_sluice.json. The test holds today's output to
// that verdict, so a builder change that TensorFlow has not seen fails.

// A wireFeature is one feature as the manifest spells it: int64 values as
// decimal strings (JSON numbers lose precision past 2^53), floats as their
// IEEE bits (NaN and infinities have no JSON form), bytes in base64.
type wireFeature struct {
	Kind   string   `json:"kind"`
	Values []string `json:"values"`
}

type roundtripRecord struct {
	Name         string                   `json:"name"`
	Kind         string                   `json:"kind"` // "example" or "sequence_example"
	SHA256       string                   `json:"sha256"`
	Features     map[string]wireFeature   `json:"features,omitempty"`
	Context      map[string]wireFeature   `json:"context,omitempty"`
	FeatureLists map[string][]wireFeature `json:"feature_lists,omitempty"`
}

type roundtripFile struct {
	Name        string   `json:"name"`
	Compression string   `json:"compression"`
	Records     []string `json:"records"` // names of roundtripRecord, in file order
}

type roundtripManifest struct {
	Records []roundtripRecord `json:"records"`
	Files   []roundtripFile   `json:"files"`
}

// feature is a Feature with its manifest form.
type feature struct {
	f    example.Feature
	wire wireFeature
}

func i64s(v ...int64) feature {
	w := wireFeature{Kind: "int64", Values: []string{}}
	for _, x := range v {
		w.Values = append(w.Values, strconv.FormatInt(x, 10))
	}
	return feature{example.Int64List(v...), w}
}

func f32s(v ...float32) feature {
	w := wireFeature{Kind: "float", Values: []string{}}
	for _, x := range v {
		w.Values = append(w.Values, strconv.FormatUint(uint64(math.Float32bits(x)), 10))
	}
	return feature{example.FloatList(v...), w}
}

func bytesList(v ...[]byte) feature {
	w := wireFeature{Kind: "bytes", Values: []string{}}
	for _, x := range v {
		w.Values = append(w.Values, base64.StdEncoding.EncodeToString(x))
	}
	return feature{example.BytesList(v...), w}
}

type namedFeature struct {
	name string
	feature
}

type roundtripCase struct {
	name  string
	feats []namedFeature // Example features, or SequenceExample context
	lists []namedList    // SequenceExample feature lists; nil for an Example
	seq   bool           // a SequenceExample
}

type namedList struct {
	name  string
	steps []feature
}

func roundtripCases() []roundtripCase {
	long := make([]float32, 784)
	for i := range long {
		long[i] = float32(i%256) / 255
	}
	bigInts := make([]int64, 300)
	for i := range bigInts {
		bigInts[i] = int64(i)*int64(i)*1_000_003 - 5_000_000
	}
	binary := make([]byte, 256)
	for i := range binary {
		binary[i] = byte(i)
	}
	return []roundtripCase{
		{name: "empty"},
		{name: "scalars", feats: []namedFeature{
			{"bytes", bytesList([]byte("cat.png"))},
			{"float", f32s(0.5)},
			{"int", i64s(7)},
		}},
		{name: "empty_lists", feats: []namedFeature{
			{"b", bytesList()}, {"f", f32s()}, {"i", i64s()},
		}},
		{name: "extremes", feats: []namedFeature{
			{"floats", f32s(float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()),
				float32(math.Copysign(0, -1)), math.MaxFloat32, math.SmallestNonzeroFloat32, -1.5e-38)},
			{"ints", i64s(math.MinInt64, math.MaxInt64, -1, 0, 1, 1<<32, -(1 << 31))},
		}},
		{name: "mnist_like", feats: []namedFeature{
			{"image", f32s(long...)},
			{"label", i64s(3)},
		}},
		{name: "long_ints", feats: []namedFeature{{"ids", i64s(bigInts...)}}},
		{name: "bytes_variety", feats: []namedFeature{
			{"binary", bytesList(binary, []byte{}, []byte{0})},
			{"unicode", bytesList([]byte("naïve"), []byte("日本語"), []byte("😀"))},
		}},
		{name: "unicode_names", feats: []namedFeature{
			{"ключ", i64s(1)},
			{"名前", bytesList([]byte("x"))},
		}},
		{name: "many_features", feats: manyFeatures(40)},
		{name: "seq_empty", seq: true},
		{name: "seq_context_only", seq: true, feats: []namedFeature{
			{"length", i64s(0)}, {"name", bytesList([]byte("s0"))},
		}},
		{name: "seq_tokens", seq: true,
			feats: []namedFeature{{"length", i64s(4)}},
			lists: []namedList{
				{"tokens", []feature{i64s(3), i64s(1, 4), i64s(), i64s(1, 5, 9)}},
				{"weights", []feature{f32s(0.1), f32s(0.2), f32s(0.3), f32s(0.4)}},
			}},
		{name: "seq_empty_list", seq: true, lists: []namedList{{"nothing", nil}}},
		{name: "seq_mixed", seq: true,
			feats: []namedFeature{{"id", bytesList([]byte("ex-42"))}, {"score", f32s(-2.5, 2.5)}},
			lists: []namedList{
				{"frames", []feature{bytesList([]byte("f0")), bytesList([]byte("f1"), binary)}},
				{"x", []feature{f32s(long[:28]...), f32s(long[28:56]...), f32s(float32(math.NaN()))}},
				{"y", []feature{i64s(math.MinInt64), i64s(math.MaxInt64)}},
			}},
	}
}

func manyFeatures(n int) []namedFeature {
	var out []namedFeature
	for i := range n {
		name := fmt.Sprintf("f%02d", i)
		switch i % 3 {
		case 0:
			out = append(out, namedFeature{name, i64s(int64(i), int64(-i))})
		case 1:
			out = append(out, namedFeature{name, f32s(float32(i) / 3)})
		default:
			out = append(out, namedFeature{name, bytesList([]byte(name))})
		}
	}
	return out
}

// build marshals c with the builders and returns the record and its
// manifest entry.
func (c roundtripCase) build() ([]byte, roundtripRecord) {
	r := roundtripRecord{Name: c.name, Kind: "example"}
	wire := func(fs []namedFeature) map[string]wireFeature {
		m := map[string]wireFeature{}
		for _, f := range fs {
			m[f.name] = f.wire
		}
		return m
	}
	var rec []byte
	if !c.seq {
		b := example.New()
		for _, f := range c.feats {
			b.Set(f.name, f.f)
		}
		rec = b.Marshal()
		r.Features = wire(c.feats)
	} else {
		r.Kind = "sequence_example"
		b := example.NewSequence()
		for _, f := range c.feats {
			b.Context(f.name, f.f)
		}
		r.Context = wire(c.feats)
		r.FeatureLists = map[string][]wireFeature{}
		for _, l := range c.lists {
			steps := make([]example.Feature, len(l.steps))
			ws := []wireFeature{}
			for i, s := range l.steps {
				steps[i] = s.f
				ws = append(ws, s.wire)
			}
			b.List(l.name, steps...)
			r.FeatureLists[l.name] = ws
		}
		rec = b.Marshal()
	}
	r.SHA256 = fmt.Sprintf("%x", sha256.Sum256(rec))
	return rec, r
}

type roundtripVerdict struct {
	TensorFlow string `json:"tensorflow"`
	AllOK      bool   `json:"all_ok"`
	Records    map[string]struct {
		SHA256        string `json:"sha256"`
		ProtoOK       bool   `json:"proto_ok"`
		ParseOK       bool   `json:"parse_op_ok"`
		ByteIdentical bool   `json:"byte_identical"`
	} `json:"records"`
	Files map[string]struct {
		OK      bool `json:"ok"`
		Records int  `json:"records"`
	} `json:"files"`
}

// TestBuildersForTensorFlow holds the builders' output to TensorFlow's
// verdict. With SLUICE_EXAMPLE_OUT=dir it writes the files and manifest
// for tools/tfref/roundtrip.py.
func TestBuildersForTensorFlow(t *testing.T) {
	var m roundtripManifest
	var recs [][]byte
	var names []string
	for _, c := range roundtripCases() {
		rec, r := c.build()
		recs = append(recs, rec)
		names = append(names, r.Name)
		m.Records = append(m.Records, r)
	}
	files := map[string][]byte{}
	for _, c := range []tfrecord.Compression{tfrecord.None, tfrecord.Gzip, tfrecord.Zlib} {
		var buf bytes.Buffer
		w := tfrecord.NewWriter(&buf, c)
		for _, r := range recs {
			if err := w.Write(r); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		name := "builders_" + c.String() + ".tfrecord"
		comp := c.String()
		if c == tfrecord.None {
			comp = ""
		}
		files[name] = buf.Bytes()
		m.Files = append(m.Files, roundtripFile{Name: name, Compression: comp, Records: names})
	}

	if out := os.Getenv("SLUICE_EXAMPLE_OUT"); out != "" {
		for name, data := range files {
			if err := os.WriteFile(filepath.Join(out, name), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		b, err := json.MarshalIndent(m, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(out, "manifest.json"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	b, err := os.ReadFile(filepath.Join("testdata", "tf_reads_sluice.json"))
	if err != nil {
		t.Skip("testdata/tf_reads_sluice.json absent; run tools/tfref/roundtrip.py")
	}
	var v roundtripVerdict
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	if !v.AllOK {
		t.Errorf("TensorFlow %s did not read every record back identically", v.TensorFlow)
	}
	for _, r := range m.Records {
		got, ok := v.Records[r.Name]
		switch {
		case !ok:
			t.Errorf("%s: no TensorFlow verdict; rerun tools/tfref/roundtrip.py", r.Name)
		case got.SHA256 != r.SHA256:
			t.Errorf("%s: builder output changed since TensorFlow read it; rerun tools/tfref/roundtrip.py", r.Name)
		case !got.ProtoOK || !got.ParseOK:
			t.Errorf("%s: TensorFlow's verdict %+v", r.Name, got)
		}
	}
	for _, f := range m.Files {
		if got := v.Files[f.Name]; !got.OK || got.Records != len(f.Records) {
			t.Errorf("%s: TensorFlow's verdict %+v", f.Name, got)
		}
	}
}
