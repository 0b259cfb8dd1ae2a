package cli

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sluiceml/sluice/example"
	"github.com/sluiceml/sluice/example/pb"
	"github.com/sluiceml/sluice/storage"
	"github.com/sluiceml/sluice/tfrecord"
	"google.golang.org/protobuf/proto"
)

// parquetTestdata is where tools/parquetref/gen.py wrote pyarrow's files
// and what they hold.
const parquetTestdata = "../../parquet/testdata"

// parquetExamples builds the Examples convert --from parquet must write
// for a test file, from what pyarrow read back: a null leaves its
// feature out, anything else (an empty list too) is a feature.
func parquetExamples(t *testing.T, name string) [][]byte {
	t.Helper()
	var e struct {
		SameAs  string `json:"same_as"`
		Columns []struct{ Name, Kind string }
		Rows    [][]*[]any
	}
	b, err := os.ReadFile(filepath.Join(parquetTestdata, name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber() // int64s beyond float64's 53 bits
	if err := d.Decode(&e); err != nil {
		t.Fatal(err)
	}
	if e.SameAs != "" {
		return parquetExamples(t, e.SameAs)
	}
	var recs [][]byte
	for _, row := range e.Rows {
		ex := example.New()
		for i, v := range row {
			if v == nil {
				continue
			}
			name := e.Columns[i].Name
			switch e.Columns[i].Kind {
			case "int64":
				var vs []int64
				for _, x := range *v {
					n, err := x.(json.Number).Int64()
					if err != nil {
						t.Fatal(err)
					}
					vs = append(vs, n)
				}
				ex.Int64s(name, vs)
			case "float":
				var vs []float32
				for _, x := range *v {
					f, err := x.(json.Number).Float64()
					if err != nil {
						t.Fatal(err)
					}
					vs = append(vs, float32(f))
				}
				ex.Floats(name, vs)
			default:
				var vs [][]byte
				for _, x := range *v {
					d, err := base64.StdEncoding.DecodeString(x.(string))
					if err != nil {
						t.Fatal(err)
					}
					vs = append(vs, d)
				}
				ex.Bytes(name, vs...)
			}
		}
		recs = append(recs, ex.Marshal())
	}
	return recs
}

// convert --from parquet writes the Examples of pyarrow's rows, whatever
// the file's compression, page version and encodings.
func TestConvertParquet(t *testing.T) {
	for _, name := range []string{"default", "gzip_v2", "delta", "legacy", "logical", "polars", "duckdb_v2", "fastparquet"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "out")
			code, stdout, errOut := run(t, "convert", "--from", "parquet", filepath.Join(parquetTestdata, name+".parquet"), "--out", out)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			want := parquetExamples(t, name)
			if !strings.HasPrefix(stdout, "wrote ") {
				t.Errorf("stdout %q", stdout)
			}
			got := readFile(t, out+".tfrecord", tfrecord.None)
			if len(got) != len(want) {
				t.Fatalf("%d records, want %d", len(got), len(want))
			}
			for i := range want {
				if !bytes.Equal(got[i], want[i]) {
					t.Fatalf("record %d differs:\n%x\nwant\n%x", i, got[i], want[i])
				}
			}
		})
	}
}

// --columns keeps the named columns, in the order named; an unreadable
// column is refused with the names of the readable ones.
func TestConvertParquetColumns(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	in := filepath.Join(parquetTestdata, "default.parquet")
	if code, _, errOut := run(t, "convert", "--from", "parquet", in, "--columns", "rec.b, i64", "--out", out); code != 0 {
		t.Fatal(errOut)
	}
	got := readFile(t, out+".tfrecord", tfrecord.None)
	all := parquetExamples(t, "default")
	if len(got) != len(all) {
		t.Fatalf("%d records, want %d", len(got), len(all))
	}
	for i, rec := range got {
		var ex, whole pb.Example
		if err := proto.Unmarshal(rec, &ex); err != nil {
			t.Fatal(err)
		}
		if err := proto.Unmarshal(all[i], &whole); err != nil {
			t.Fatal(err)
		}
		feats, wholeFeats := ex.GetFeatures().GetFeature(), whole.GetFeatures().GetFeature()
		if len(feats) == 0 || len(feats) > 2 {
			t.Fatalf("record %d has features %v", i, feats)
		}
		for name, f := range feats {
			if name != "i64" && name != "rec.b" || !proto.Equal(f, wholeFeats[name]) {
				t.Fatalf("record %d: feature %s = %v, want %v", i, name, f, wholeFeats[name])
			}
		}
	}

	for _, tc := range []struct{ file, columns, want string }{
		{"map", "", `map.parquet: parquet: column "m.key_value.key" is in a map: maps are not supported`},
		{"nested_list", "", "is a list nested in a list"},
		{"default", "nope", `no column "nope"`},
		{"default", "i64:int64", "--columns: --from parquet takes column names"},
		{"default", "i64,i64", `--columns: column "i64" named twice`},
		{"null_element", "", `null_element.parquet: parquet: row 0, column "l", row group 0, page at offset 34: a list element is null`},
		{"brotli", "", "BROTLI compression is not supported"},
		{"dup_feature", "", `dup_feature.parquet: two columns become the feature "a.b"; leave it out with --columns`},
		{"dup_feature", "a.b", `two columns become the feature "a.b"`},
	} {
		t.Run(tc.file+tc.columns, func(t *testing.T) {
			dir := t.TempDir()
			args := []string{"convert", "--from", "parquet", filepath.Join(parquetTestdata, tc.file+".parquet"), "--out", filepath.Join(dir, "out")}
			if tc.columns != "" {
				args = append(args, "--columns", tc.columns)
			}
			code, _, errOut := run(t, args...)
			if code == 0 || !strings.Contains(errOut, tc.want) {
				t.Fatalf("exit %d, stderr %q, want %q", code, errOut, tc.want)
			}
			if left, _ := os.ReadDir(dir); len(left) != 0 {
				t.Errorf("left %v", left)
			}
		})
	}
}

// Damage anywhere in a file is an error naming the file, never a panic or
// wrong records; bytes flipped in the footer or a page header or a page
// are all caught (pyarrow writes no page CRCs, so flipped values in an
// uncompressed page are the one damage a reader cannot see).
func TestConvertParquetDamaged(t *testing.T) {
	good, err := os.ReadFile(filepath.Join(parquetTestdata, "zstd.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, cut := range []int{len(good) - 1, len(good) / 2, 100, 11} {
		in := writeFile(t, filepath.Join(dir, "cut.parquet"), good[:cut])
		code, _, errOut := run(t, "convert", "--from", "parquet", in, "--out", filepath.Join(dir, "out"))
		if code == 0 || !strings.Contains(errOut, in) {
			t.Errorf("cut at %d: exit %d, %q", cut, code, errOut)
		}
	}
}

func TestSchemaParquet(t *testing.T) {
	code, stdout, errOut := run(t, "schema", "--from", "parquet", "--output", "python", filepath.Join(parquetTestdata, "default.parquet"))
	if code != 0 {
		t.Fatal(errOut)
	}
	for _, want := range []string{`"i64": tf.io.FixedLenFeature([], tf.int64)`, `"opt": tf.io.VarLenFeature(tf.int64)`, `"ilist": tf.io.VarLenFeature(tf.int64)`, `"rec.b": tf.io.VarLenFeature(tf.string)`,
		"# tf.io reads the TFRecord files sluice convert --from parquet writes", `sluice.examples(files, sluice_spec, batch_size=..., format="parquet")`} {
		if !strings.Contains(stdout, want) {
			t.Errorf("schema lacks %s:\n%s", want, stdout)
		}
	}
	code, stdout, errOut = run(t, "schema", "--from", "parquet", "--output", "go", filepath.Join(parquetTestdata, "default.parquet"))
	if code != 0 || !strings.Contains(stdout, "// sluice.Examples(files, spec, sluice.Parquet()) reads the Parquet files") {
		t.Errorf("--output go: exit %d %s\n%s", code, errOut, stdout)
	}
}

func TestConvertParquetStdin(t *testing.T) {
	code, _, errOut := run(t, "convert", "--from", "parquet", "-", "--out", filepath.Join(t.TempDir(), "out"))
	if code == 0 || !strings.Contains(errOut, "not standard input") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
}

// Parquet files in an object store are read through ranged reads, as
// local ones are.
func TestConvertParquetObjectStore(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(parquetTestdata, "delta.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	w, err := storage.Create(context.Background(), "mem://clitest/in.parquet")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	if code, _, errOut := run(t, "convert", "--from", "parquet", "mem://clitest/in.parquet", "--out", out); code != 0 {
		t.Fatal(errOut)
	}
	got, want := readFile(t, out+".tfrecord", tfrecord.None), parquetExamples(t, "delta")
	if len(got) != len(want) {
		t.Fatalf("%d records, want %d", len(got), len(want))
	}
	for i := range want {
		if !bytes.Equal(got[i], want[i]) {
			t.Fatalf("record %d differs", i)
		}
	}
}

// A Parquet file given to a TFRecord command is named as Parquet, with
// the command that converts it, not reported as damage to salvage (verify
// checks Parquet files: TestVerifyParquet).
func TestParquetReadAsTFRecord(t *testing.T) {
	in := filepath.Join(parquetTestdata, "default.parquet")
	for _, args := range [][]string{{"count", in}, {"cat", in}, {"schema", in}} {
		code, stdout, errOut := run(t, args...)
		all := stdout + errOut
		if code == 0 || !strings.Contains(all, "the file starts like Parquet data, not TFRecord: sluice convert --from parquet "+in) ||
			strings.Contains(all, "--skip-corrupt") {
			t.Errorf("%v: exit %d\n%s", args, code, all)
		}
	}
}

// Several files, of different writers and layouts, convert in order
// through one reader reset for each.
func TestConvertParquetFiles(t *testing.T) {
	names := []string{"default", "logical", "delta", "gzip_v2"}
	args := []string{"convert", "--from", "parquet"}
	var want [][]byte
	for _, n := range names {
		args = append(args, filepath.Join(parquetTestdata, n+".parquet"))
		want = append(want, parquetExamples(t, n)...)
	}
	out := filepath.Join(t.TempDir(), "out")
	if code, _, errOut := run(t, append(args, "--out", out)...); code != 0 {
		t.Fatal(errOut)
	}
	got := readFile(t, out+".tfrecord", tfrecord.None)
	if len(got) != len(want) {
		t.Fatalf("%d records, want %d", len(got), len(want))
	}
	for i := range want {
		if !bytes.Equal(got[i], want[i]) {
			t.Fatalf("record %d differs", i)
		}
	}
}

// A column whose name is not UTF-8 is refused, not written as a feature
// name TensorFlow refuses the record for (audit 49); so is such a CSV
// header's or --columns' name.
func TestConvertRefusesNonUTF8Names(t *testing.T) {
	dir := t.TempDir()
	good, err := os.ReadFile(filepath.Join(parquetTestdata, "default.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	bad := bytes.ReplaceAll(good, []byte("optword"), []byte("optw\xffrd"))
	pq := writeFile(t, filepath.Join(dir, "bad.parquet"), bad)
	csvFile := writeFile(t, filepath.Join(dir, "bad.csv"), []byte("a\xffb,c\n1,2\n"))
	okCSV := writeFile(t, filepath.Join(dir, "ok.csv"), []byte("1,2\n"))
	out := filepath.Join(dir, "out")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--from", "parquet", pq}, pq + `: column "optw\xffrd" is not UTF-8`},
		{[]string{"--from", "csv", "--header", csvFile}, csvFile + `:1: header: column 0's name "a\xffb" is not UTF-8`},
		{[]string{"--from", "csv", "--columns", "a\xffb,c", okCSV}, `--columns: column name "a\xffb" is not UTF-8`},
	} {
		code, _, errOut := run(t, append(append([]string{"convert"}, tc.args...), "--out", out)...)
		if code != 1 || !strings.Contains(errOut, tc.want) {
			t.Errorf("convert %q: exit %d, %q; want %q", tc.args, code, errOut, tc.want)
		}
		if _, err := os.Stat(out + ".tfrecord"); err == nil {
			t.Errorf("convert %q wrote %s", tc.args, out+".tfrecord")
		}
	}
	// Left out, the column does not stop the others.
	if code, _, errOut := run(t, "convert", "--from", "parquet", "--columns", "i64,word", pq, "--out", out); code != 0 {
		t.Errorf("convert --columns i64,word: exit %d, %q", code, errOut)
	}
	// verify, which checks a file as convert reads it, passes the sound
	// file and says that convert refuses it (audit 58: it said nothing).
	if code, out, errOut := run(t, "verify", pq); code != 0 || !strings.Contains(out+errOut, `convert --from parquet refuses the file: column "optw\xffrd" is not UTF-8`) {
		t.Errorf("verify: exit %d, %q %q", code, out, errOut)
	}
}

// The converters of files that are not streams of lines say so of
// standard input, rather than "open -: no such file" (audit 110).
func TestConvertImagesStdin(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"convert", "--from", "mnist", "-", "--labels", filepath.Join(dir, "labels"), "--out", filepath.Join(dir, "out")},
		{"convert", "--from", "cifar10", "-", "--out", filepath.Join(dir, "out")},
	} {
		code, _, errOut := run(t, args...)
		if code != 1 || !strings.Contains(errOut, "read files, not standard input") {
			t.Errorf("%q: exit %d: %s", args, code, errOut)
		}
	}
}
