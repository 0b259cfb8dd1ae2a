package cli

import (
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/sluiceml/sluice/datasets/mnist"
	"github.com/sluiceml/sluice/tfrecord"
)

// The inputs of tools/tfref/cli.py live in testdata/tfref: a TFRecord file
// of mixed records, CSV converted to two ZLIB shards, and a tiny MNIST
// converted to TFRecord, all written by sluice. The script reads them
// with TensorFlow and writes testdata/tf_cli.json, which these tests
// compare sluice's own reading with.
var writeTFRefInputs = flag.Bool("tfref-inputs", false, "rewrite testdata/tfref (then rerun tools/tfref/cli.py)")

const tfrefDir = "testdata/tfref"

func TestWriteTFRefInputs(t *testing.T) {
	if !*writeTFRefInputs {
		t.Skip("-tfref-inputs not set")
	}
	os.RemoveAll(tfrefDir)
	os.MkdirAll(tfrefDir, 0o755)
	writeRecords(t, tfrefDir, "mixed.tfrecord.gz", tfrecord.Gzip, mixedRecords()...)
	csv := writeFile(t, filepath.Join(tfrefDir, "data.csv"), []byte("id,score,name\n1,2.5,ann\n2,-3e-8,\"b,o\"\"b\"\n3,,\n4,7,dee\n5,1e30,eve\n"))
	if code, _, errOut := run(t, "convert", "--from", "csv", "--header", csv, "--out", filepath.Join(tfrefDir, "csv"), "--shards", "2", "--compression", "ZLIB"); code != 0 {
		t.Fatal(errOut)
	}
	pix := make([]byte, 4*3*5)
	for i := range pix {
		pix[i] = byte(i * 7)
	}
	img := writeFile(t, filepath.Join(tfrefDir, "images.idx"), idx(mnist.ImageMagic, []uint32{4, 3, 5}, pix))
	lab := writeFile(t, filepath.Join(tfrefDir, "labels.idx"), idx(mnist.LabelMagic, []uint32{4}, []byte{3, 1, 4, 1}))
	if code, _, errOut := run(t, "convert", "--from", "mnist", img, "--labels", lab, "--out", filepath.Join(tfrefDir, "mnist")); code != 0 {
		t.Fatal(errOut)
	}
}

// tfReference is tools/tfref/cli.py's output.
type tfReference struct {
	TensorFlow string
	// Cat: per file, the records as TensorFlow's TFRecordReader keys them
	// and protobuf's json_format shows them.
	Cat map[string][]struct {
		Key  string
		Kind string // "example", "sequence" or "raw", by TensorFlow's parse
		Dict map[string]any
	}
	// CSV: parse_single_example of the converted shards, by column.
	CSV struct {
		ID    []int64
		Score []float64
		Name  []string
	}
	// MNIST: convert_to_records.py's Examples for the same IDX files, and
	// fully_connected_reader.py's decoding of sluice's conversion.
	MNIST struct {
		ConvertToRecords []map[string]any
		Decoded          []struct {
			Label  int64
			Pixels []int
		}
	}
}

func loadTFRef(t *testing.T) *tfReference {
	data, err := os.ReadFile("testdata/tf_cli.json")
	if err != nil {
		t.Skip("testdata/tf_cli.json absent: run tools/tfref/cli.py")
	}
	var ref tfReference
	if err := json.Unmarshal(data, &ref); err != nil {
		t.Fatal(err)
	}
	return &ref
}

// fromTFDict turns protobuf's JSON mapping of a Features message (as
// json_format.MessageToDict writes it: int64 as strings, camelCase list
// names) into cat's form.
func fromTFDict(features any) map[string]any {
	out := map[string]any{}
	m, _ := features.(map[string]any)
	feature, _ := m["feature"].(map[string]any)
	for name, f := range feature {
		out[name] = fromTFFeature(f)
	}
	return out
}

func fromTFFeature(f any) map[string]any {
	fm, _ := f.(map[string]any)
	for kind, list := range fm {
		vals, _ := list.(map[string]any)["value"].([]any)
		if vals == nil {
			vals = []any{}
		}
		switch kind {
		case "int64List":
			ints := make([]any, len(vals))
			for i, v := range vals {
				ints[i] = json.Number(v.(string))
			}
			return map[string]any{"int64": ints}
		case "floatList":
			return map[string]any{"float": vals}
		case "bytesList":
			return map[string]any{"bytes": vals}
		}
	}
	return map[string]any{}
}

// canon makes numbers comparable: decoded through float32, as both sides
// hold float32 values (cat prints the shortest float32 form, Python the
// shortest float64 form of the same value).
func canon(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			v[k] = canon(x)
		}
	case []any:
		for i, x := range v {
			v[i] = canon(x)
		}
	case json.Number:
		if f, err := v.Float64(); err == nil && !strings.ContainsAny(string(v), ".eE") {
			return string(v) // integers exactly
		} else if err == nil {
			return float64(float32(f))
		}
	case float64:
		return float64(float32(v))
	}
	return v
}

func decodeJSON(t *testing.T, s string) map[string]any {
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		t.Fatal(err)
	}
	return m
}

// cat's keys are TFRecordReader's keys, and its JSON holds what
// TensorFlow's protobuf parses from each record.
func TestTFRefCat(t *testing.T) {
	ref := loadTFRef(t)
	for file, recs := range ref.Cat {
		p := filepath.Join(tfrefDir, file)
		code, out, errOut := run(t, "cat", "--keys", "--bytes", "base64", p)
		if code != 0 {
			t.Fatal(errOut)
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if len(lines) != len(recs) {
			t.Fatalf("%s: %d records, TensorFlow read %d", file, len(lines), len(recs))
		}
		for i, r := range recs {
			got := decodeJSON(t, lines[i])
			if want := p + ":" + strings.TrimPrefix(r.Key, file+":"); got["key"] != want {
				t.Errorf("%s record %d: key %v, TensorFlow's %s", file, i, got["key"], r.Key)
			}
			var want map[string]any
			switch r.Kind {
			case "example":
				want = map[string]any{"features": fromTFDict(r.Dict["features"])}
			case "sequence":
				lists := map[string]any{}
				fl, _ := r.Dict["featureLists"].(map[string]any)
				fm, _ := fl["featureList"].(map[string]any)
				for name, l := range fm {
					steps := []any{}
					fs, _ := l.(map[string]any)["feature"].([]any)
					for _, f := range fs {
						steps = append(steps, fromTFFeature(f))
					}
					lists[name] = steps
				}
				want = map[string]any{"context": fromTFDict(r.Dict["context"]), "feature_lists": lists}
			default:
				want = map[string]any{"raw": r.Dict["raw"]}
			}
			delete(got, "key")
			if r.Kind != "raw" && got["bytes"] == "base64" {
				delete(got, "bytes") // cat's marker of --bytes base64, which TensorFlow's JSON lacks
			}
			wantJSON, _ := json.Marshal(want)
			if g, w := canon(got), canon(decodeJSON(t, string(wantJSON))); !reflect.DeepEqual(g, w) {
				t.Errorf("%s record %d:\nsluice     %v\nTensorFlow %v", file, i, g, w)
			}
		}
	}
}

// TensorFlow reads sluice's CSV conversion (two ZLIB shards) with
// parse_single_example and gets the CSV's values, dealt round-robin.
func TestTFRefCSV(t *testing.T) {
	ref := loadTFRef(t)
	wantID := []int64{1, 3, 5, 2, 4} // shard 0 then shard 1
	if !reflect.DeepEqual(ref.CSV.ID, wantID) {
		t.Errorf("TensorFlow read ids %v, want %v", ref.CSV.ID, wantID)
	}
	wantScore := []float32{2.5, 0, 1e30, -3e-8, 7}
	for i, s := range ref.CSV.Score {
		if float32(s) != wantScore[i] && !(math.IsNaN(s) && math.IsNaN(float64(wantScore[i]))) {
			t.Errorf("score %d: TensorFlow %v, want %v", i, s, wantScore[i])
		}
	}
	if want := []string{"ann", "", "eve", `b,o"b`, "dee"}; !reflect.DeepEqual(ref.CSV.Name, want) {
		t.Errorf("names %q, want %q", ref.CSV.Name, want)
	}
}

// sluice convert --from mnist writes what convert_to_records.py writes,
// and fully_connected_reader.py's decoding gets the IDX pixels back.
func TestTFRefMNIST(t *testing.T) {
	ref := loadTFRef(t)
	_, out, _ := run(t, "cat", "--bytes", "base64", filepath.Join(tfrefDir, "mnist.tfrecord"))
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != len(ref.MNIST.ConvertToRecords) || len(lines) != 4 {
		t.Fatalf("%d records, TensorFlow's script wrote %d", len(lines), len(ref.MNIST.ConvertToRecords))
	}
	for i, d := range ref.MNIST.ConvertToRecords {
		want, _ := json.Marshal(map[string]any{"bytes": "base64", "features": fromTFDict(d["features"])})
		if g, w := canon(decodeJSON(t, lines[i])), canon(decodeJSON(t, string(want))); !reflect.DeepEqual(g, w) {
			t.Errorf("record %d:\nsluice            %v\nconvert_to_records %v", i, g, w)
		}
	}
	pix, _ := os.ReadFile(filepath.Join(tfrefDir, "images.idx"))
	pix = pix[16:]
	for i, d := range ref.MNIST.Decoded {
		if want := []int64{3, 1, 4, 1}[i]; d.Label != want {
			t.Errorf("image %d: label %d, want %d", i, d.Label, want)
		}
		for j, v := range d.Pixels {
			if byte(v) != pix[i*15+j] {
				t.Fatalf("image %d pixel %d: TensorFlow decoded %d, IDX has %d", i, j, v, pix[i*15+j])
			}
		}
	}
}
