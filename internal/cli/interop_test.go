package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// interopDir is ../shared/interop relative to the repository root: files
// written by TensorFlow's own tooling, read in place and never copied.
func interopDir(t *testing.T) string {
	dir := filepath.Join("..", "..", "..", "shared", "interop")
	if _, err := os.Stat(filepath.Join(dir, "mnist-1000.tfrecord")); err != nil {
		t.Skip("../shared/interop is absent")
	}
	return dir
}

func TestInteropCount(t *testing.T) {
	dir := interopDir(t)
	mnist := filepath.Join(dir, "mnist-1000.tfrecord")
	seq := filepath.Join(dir, "sequence-examples-3.tfrecord.gz")
	code, out, errOut := run(t, "count", mnist, seq)
	if code != 0 || out != "1000\t"+mnist+"\n3\t"+seq+"\n1003\ttotal\n" {
		t.Fatalf("count: %d %q %q", code, out, errOut)
	}
	code, out, _ = run(t, "verify", filepath.Join(dir, "*.tfrecord*"))
	if code != 0 || out != "1003 good records in 2 files: 0 bad records\n" {
		t.Fatalf("verify: %d %q", code, out)
	}
}

// The first SequenceExample of the TensorFlow Transform test file, whose
// content its README lists: context float_feature [1,2,3,4] and
// int_feature [0]; feature lists string_feature [["Hello","World"],[]]
// and int_feature [[1,2],[3,4]].
func TestInteropCatSequence(t *testing.T) {
	dir := interopDir(t)
	code, out, errOut := run(t, "cat", "--limit", "1", "--keys", filepath.Join(dir, "sequence-examples-3.tfrecord.gz"))
	if code != 0 {
		t.Fatal(errOut)
	}
	golden(t, "interop_sequence", dir, out)
	var rec struct {
		Context      map[string]map[string][]any
		FeatureLists map[string][]map[string][]any `json:"feature_lists"`
	}
	if err := json.Unmarshal([]byte(out), &rec); err != nil {
		t.Fatal(err)
	}
	if len(rec.Context["float_feature"]["float"]) != 4 || len(rec.Context["int_feature"]["int64"]) != 1 ||
		len(rec.FeatureLists["string_feature"]) != 2 || len(rec.FeatureLists["int_feature"]) != 2 {
		t.Errorf("record 0: %+v", rec)
	}
}

// MNIST from TFX: an Example of image_class and 784 image_floats; the
// reshard round trip through every compression keeps every record.
func TestInteropMNIST(t *testing.T) {
	dir := interopDir(t)
	mnist := filepath.Join(dir, "mnist-1000.tfrecord")
	code, out, _ := run(t, "head", "-n", "1", mnist)
	var rec struct {
		Features struct {
			Class  map[string][]int64   `json:"image_class"`
			Floats map[string][]float64 `json:"image_floats"`
		}
	}
	if err := json.Unmarshal([]byte(out), &rec); code != 0 || err != nil {
		t.Fatalf("head: %v %q", err, out)
	}
	if len(rec.Features.Class["int64"]) != 1 || len(rec.Features.Floats["float"]) != 784 {
		t.Fatalf("record 0: %.300s", out)
	}
	tmp := t.TempDir()
	code, _, errOut := run(t, "convert", mnist, "--out", filepath.Join(tmp, "m"), "--shards", "4", "--compression", "GZIP")
	if code != 0 {
		t.Fatal(errOut)
	}
	_, out, _ = run(t, "count", filepath.Join(tmp, "m-*-of-00004.tfrecord.gz"))
	if !strings.HasSuffix(out, "1000\ttotal\n") || !strings.HasPrefix(out, "250\t") {
		t.Fatalf("count of the shards: %q", out)
	}
	// Record 0 is the first of shard 0, byte for byte.
	_, orig, _ := run(t, "head", "-n", "1", "--format", "raw", mnist)
	_, copy0, _ := run(t, "head", "-n", "1", "--format", "raw", filepath.Join(tmp, "m-00000-of-00004.tfrecord.gz"))
	if orig != copy0 || len(orig) < 1000 {
		t.Errorf("record 0 changed in conversion")
	}
}

// TensorFlow's files through cat and back through convert --from json:
// records that cat shows as it showed TensorFlow's, and with cat --format
// raw TensorFlow's bytes.
func TestInteropJSONRoundTrip(t *testing.T) {
	dir := interopDir(t)
	tmp := t.TempDir()
	for _, name := range []string{"mnist-1000.tfrecord", "sequence-examples-3.tfrecord.gz"} {
		in := filepath.Join(dir, name)
		for _, format := range []string{"auto", "raw"} {
			_, lines, _ := run(t, "cat", "--format", format, in)
			src := writeFile(t, filepath.Join(tmp, name+"."+format+".json"), []byte(lines))
			out := filepath.Join(tmp, name+"."+format)
			if code, _, errOut := run(t, "convert", "--from", "json", src, "--out", out); code != 0 {
				t.Fatalf("%s: convert: %s", src, errOut)
			}
			if _, got, _ := run(t, "cat", "--format", format, out+".tfrecord"); got != lines {
				t.Errorf("%s, --format %s: the records differ after the round trip", name, format)
			}
			if format == "raw" {
				_, got, _ := run(t, "cat", "--format", "raw", "--keys", out+".tfrecord")
				_, want, _ := run(t, "cat", "--format", "raw", "--keys", in)
				// Same bytes at the same offsets: only the file names differ.
				if strings.ReplaceAll(got, out+".tfrecord", "F") != strings.ReplaceAll(want, in, "F") {
					t.Errorf("%s: raw records or offsets differ", name)
				}
			}
		}
	}
}

// TensorFlow's MNIST Examples through Parquet and back are the same
// Examples (cat prints features in name order, so equal lines are equal
// Examples); its SequenceExamples are refused, naming the first.
func TestInteropParquetRoundTrip(t *testing.T) {
	dir := interopDir(t)
	tmp := t.TempDir()
	in := filepath.Join(dir, "mnist-1000.tfrecord")
	if code, out, errOut := run(t, "convert", "--to", "parquet", in, "--out", filepath.Join(tmp, "m")); code != 0 || !strings.HasPrefix(out, "wrote 1000 rows of ") {
		t.Fatalf("exit %d: %s%s", code, out, errOut)
	}
	if code, _, errOut := run(t, "convert", "--from", "parquet", filepath.Join(tmp, "m.parquet"), "--out", filepath.Join(tmp, "back")); code != 0 {
		t.Fatal(errOut)
	}
	_, want, _ := run(t, "cat", in)
	_, got, _ := run(t, "cat", filepath.Join(tmp, "back.tfrecord"))
	if got != want || len(want) == 0 {
		t.Errorf("the Examples differ after Parquet (%d and %d bytes of JSON)", len(got), len(want))
	}
	code, _, errOut := run(t, "convert", "--to", "parquet", filepath.Join(dir, "sequence-examples-3.tfrecord.gz"), "--out", filepath.Join(tmp, "s"))
	if code == 0 || !strings.Contains(errOut, "sequence-examples-3.tfrecord.gz:0: the record is a SequenceExample with feature lists") {
		t.Errorf("SequenceExamples: exit %d, %q", code, errOut)
	}
}
