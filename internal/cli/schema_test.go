package cli

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sluiceml/sluice/example"
	"github.com/sluiceml/sluice/example/pb"
	"github.com/sluiceml/sluice/parquet"
	"github.com/sluiceml/sluice/tensor"
	"github.com/sluiceml/sluice/tfrecord"
	"google.golang.org/protobuf/proto"
)

func int64s(v ...int64) *pb.Feature {
	return &pb.Feature{Kind: &pb.Feature_Int64List{Int64List: &pb.Int64List{Value: v}}}
}

func floats(v ...float32) *pb.Feature {
	return &pb.Feature{Kind: &pb.Feature_FloatList{FloatList: &pb.FloatList{Value: v}}}
}

func byteStrings(n int) *pb.Feature {
	v := make([][]byte, n)
	for i := range v {
		v[i] = fmt.Appendf(nil, "t%d", i)
	}
	return &pb.Feature{Kind: &pb.Feature_BytesList{BytesList: &pb.BytesList{Value: v}}}
}

func marshal(t testing.TB, m proto.Message) []byte {
	t.Helper()
	b, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// schemaExamples are ten Examples with a feature of every inferable case.
func schemaExamples(t testing.TB) [][]byte {
	var recs [][]byte
	for i := range 10 {
		f := map[string]*pb.Feature{
			"label": int64s(int64(i)),                           // FixedLen scalar
			"image": floats(float32(i), 1, 2, 3),                // FixedLen [4]
			"empty": {},                                         // no kind: an empty list
			"kinds": int64s(1),                                  // int64, then float
			"pair":  byteStrings(2),                             // FixedLen string [2]
			"tags":  byteStrings(i % 4),                         // varying count
			"maybe": floats(0.5),                                // missing in some
			"zero":  &pb.Feature{Kind: &pb.Feature_Int64List{}}, // always empty
		}
		if i >= 5 {
			f["kinds"] = floats(1)
		}
		if i%3 == 0 {
			delete(f, "maybe")
		}
		recs = append(recs, marshal(t, &pb.Example{Features: &pb.Features{Feature: f}}))
	}
	return recs
}

// schemaSequences are six SequenceExamples whose lists cover the cases.
func schemaSequences(t testing.TB) [][]byte {
	var recs [][]byte
	for i := range 6 {
		steps := func(n int, f func(j int) *pb.Feature) *pb.FeatureList {
			fl := &pb.FeatureList{}
			for j := range n {
				fl.Feature = append(fl.Feature, f(j))
			}
			return fl
		}
		lists := map[string]*pb.FeatureList{
			"tokens": steps(i+1, func(j int) *pb.Feature { return int64s(int64(j)) }),   // FixedLenSeq []
			"xy":     steps(2, func(j int) *pb.Feature { return floats(1, 2) }),         // FixedLenSeq [2]
			"ragged": steps(3, func(j int) *pb.Feature { return byteStrings(j) }),       // values per step vary
			"sparse": steps(i%2, func(j int) *pb.Feature { return floats(float32(j)) }), // missing in half
		}
		if i%2 == 0 {
			delete(lists, "sparse")
		}
		recs = append(recs, marshal(t, &pb.SequenceExample{
			Context:      &pb.Features{Feature: map[string]*pb.Feature{"id": int64s(int64(i))}},
			FeatureLists: &pb.FeatureLists{FeatureList: lists},
		}))
	}
	return recs
}

func inferSchema(recs [][]byte) *schema {
	s := newSchema()
	for _, r := range recs {
		s.add(r)
	}
	return s
}

// The inferred specs, feature by feature.
func TestSchemaInference(t *testing.T) {
	ex := inferSchema(schemaExamples(t))
	seq := inferSchema(schemaSequences(t))
	for _, tc := range []struct {
		s     *schema
		name  string
		list  bool
		want  string
		kind  string
		count int64 // records holding it
	}{
		{ex, "label", false, "FixedLen(int64, [])", "int64", 10},
		{ex, "image", false, "FixedLen(float32, [4])", "float", 10},
		{ex, "pair", false, "FixedLen(string, [2])", "bytes", 10},
		{ex, "tags", false, "VarLen(string)", "bytes", 10},
		{ex, "maybe", false, "VarLen(float32)", "float", 6},
		{ex, "empty", false, "VarLen(string)", "", 10},
		{ex, "zero", false, "VarLen(int64)", "int64", 10},
		{ex, "kinds", false, "none: the kinds differ", "mixed", 10},
		{seq, "id", false, "FixedLen(int64, [])", "int64", 6},
		{seq, "tokens", true, "FixedLenSeq(int64, [])", "int64", 6},
		{seq, "xy", true, "FixedLenSeq(float32, [2])", "float", 6},
		{seq, "ragged", true, "VarLen(string)", "bytes", 6},
		{seq, "sparse", true, "FixedLenSeq(float32, [], allow missing)", "float", 3},
	} {
		m := tc.s.features
		if tc.list {
			m = tc.s.lists
		}
		st := m[tc.name]
		if st == nil {
			t.Errorf("%s: not found", tc.name)
			continue
		}
		if got := st.spec(tc.s.holders(), tc.list).String(); got != tc.want || st.kind() != tc.kind || st.present != tc.count {
			t.Errorf("%s: spec %s, kind %q, in %d records; want %s, %q, %d", tc.name, got, st.kind(), st.present, tc.want, tc.kind, tc.count)
		}
	}
}

// goSpec turns the inferred specs into an example.Spec, as --output go
// writes it.
func goSpec(t *testing.T, s *schema, m map[string]*featureStats, list bool) example.Spec {
	dtypes := map[string]tensor.DType{"string": tensor.String, "float32": tensor.Float32, "int64": tensor.Int64}
	spec := example.Spec{}
	for name, st := range m {
		sp := st.spec(s.holders(), list)
		switch sp.how {
		case "fixed":
			spec[name] = example.FixedLen(dtypes[sp.dtype], sp.shape...)
		case "fixedseq":
			spec[name] = example.FixedLenSequence(dtypes[sp.dtype], sp.shape...)
			if sp.allowMissing {
				spec[name] = spec[name].AllowMissing()
			}
		case "varlen":
			spec[name] = example.VarLen(dtypes[sp.dtype])
		}
	}
	return spec
}

// The inferred spec reads every record it was inferred from, and the fixed
// shapes are the ones the data has: the point of the command.
func TestSchemaSpecParsesTheRecords(t *testing.T) {
	recs := schemaExamples(t)
	s := inferSchema(recs)
	spec := goSpec(t, s, s.features, false)
	p, err := example.Parse(recs, spec, nil)
	if err != nil {
		t.Fatalf("parsing with the inferred spec: %v", err)
	}
	if img, _ := p.Dense("image"); !slices.Equal(img.Shape(), tensor.Shape{10, 4}) {
		t.Errorf("image parsed to shape %v, want [10 4]", img.Shape())
	}

	seqs := schemaSequences(t)
	s = inferSchema(seqs)
	// The lists are parsed one record at a time: the fixed-length lists of
	// a batch must have the same number of steps, unless padded.
	for i, rec := range seqs {
		_, lists, err := example.ParseSingleSequence(rec, goSpec(t, s, s.features, false), goSpec(t, s, s.lists, true), "")
		if err != nil {
			t.Fatalf("record %d: parsing with the inferred spec: %v", i, err)
		}
		if xy, _ := lists.Dense("xy"); !slices.Equal(xy.Shape(), tensor.Shape{2, 2}) {
			t.Errorf("record %d: xy parsed to shape %v, want [2 2]", i, xy.Shape())
		}
	}
}

// The four outputs, on a file of Examples and one other record, and on
// SequenceExamples.
func TestSchemaOutputs(t *testing.T) {
	dir := t.TempDir()
	writeRecords(t, dir, "ex.tfrecord.gz", tfrecord.Gzip, append(schemaExamples(t), []byte("\xff\xff not a proto"))...)
	writeRecords(t, dir, "seq.tfrecord", tfrecord.None, schemaSequences(t)...)
	for _, output := range []string{"text", "go", "python", "json"} {
		for _, file := range []string{"ex", "seq"} {
			t.Run(output+"-"+file, func(t *testing.T) {
				code, out, errOut := run(t, "schema", "-o", output, filepath.Join(dir, file+".*"))
				if code != 0 {
					t.Fatalf("exit %d: %s", code, errOut)
				}
				if output == "json" && !json.Valid([]byte(out)) {
					t.Errorf("not JSON:\n%s", out)
				}
				golden(t, "schema_"+file+"_"+output, dir, out)
			})
		}
	}
}

func TestSchemaErrors(t *testing.T) {
	dir := t.TempDir()
	p := writeRecords(t, dir, "ex.tfrecord", tfrecord.None, schemaExamples(t)...)
	if code, _, errOut := run(t, "schema", "-o", "yaml", p); code == 0 || errOut == "" {
		t.Errorf("--output yaml: exit %d, %q; want an error", code, errOut)
	}
	// A corrupt record fails the command with the file and offset.
	bad := writeRecords(t, dir, "bad.tfrecord", tfrecord.None, []byte("one"), []byte("two"))
	data, _ := os.ReadFile(bad)
	data[19+12] ^= 1 // the second record's first data byte
	os.WriteFile(bad, data, 0o644)
	want := "sluice: " + bad + ": corrupted record at 31 (data CRC mismatch in record at 19)" +
		" (sluice verify " + bad + " lists the damaged records; sluice convert --skip-corrupt " + bad + " --out NEW copies the others)\n"
	if code, _, errOut := run(t, "schema", bad); code != 1 || errOut != want {
		t.Errorf("corrupt file: exit %d, %q; want %q", code, errOut, want)
	}
	// --limit reads only the first records.
	code, out, _ := run(t, "schema", "--limit", "3", "-o", "json", p)
	var v struct{ Records int }
	if code != 0 || json.Unmarshal([]byte(out), &v) != nil || v.Records != 3 {
		t.Errorf("--limit 3: exit %d, %s", code, out)
	}
}

// A SequenceExample without feature lists is a record that could hold
// one: a list in every SequenceExample that has lists is still missing
// from it, so its spec must allow that, or parsing the record fails.
func TestSchemaListMissingFromListlessRecords(t *testing.T) {
	withList := example.NewSequence().Context("c", example.Int64List(1)).List("v", example.FloatList(1.5)).Marshal()
	without := example.NewSequence().Context("c", example.Int64List(2)).Marshal()
	plain := example.New().Int64("c", 3).Marshal()
	recs := [][]byte{withList, without, plain}
	s := inferSchema(recs)
	if got, want := s.lists["v"].spec(s.holders(), true).String(), "FixedLenSeq(float32, [], allow missing)"; got != want {
		t.Errorf("spec of v: %s, want %s", got, want)
	}
	ctxSpec, listSpec := goSpec(t, s, s.features, false), goSpec(t, s, s.lists, true)
	for i, rec := range recs {
		if _, _, err := example.ParseSingleSequence(rec, ctxSpec, listSpec, ""); err != nil {
			t.Errorf("record %d does not parse with the spec inferred from it: %v", i, err)
		}
	}
	p := writeRecords(t, t.TempDir(), "seqmix.tfrecord", tfrecord.None, recs...)
	code, out, errOut := run(t, "schema", p)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "1 (33.3%)") {
		t.Errorf("the text report does not show v in 1 of 3 records:\n%s", out)
	}
}

// With --limit, the summary counts the files read, not the files named.
func TestSchemaLimitCountsFilesRead(t *testing.T) {
	dir := t.TempDir()
	a := writeExamples(t, dir, "a.tfrecord", 3, tfrecord.None)
	b := writeExamples(t, dir, "b.tfrecord", 3, tfrecord.Gzip)
	os.WriteFile(filepath.Join(dir, "a.csv"), []byte("x,y\n1,2\n3,4\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "b.csv"), []byte("x,y\n5,6\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "a.jsonl"), []byte(`{"x":1}`+"\n"+`{"x":2}`+"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "b.jsonl"), []byte(`{"x":3}`+"\n"), 0o644)
	csvs := []string{"--from", "csv", "--header", filepath.Join(dir, "a.csv"), filepath.Join(dir, "b.csv")}
	jsonls := []string{"--from", "jsonl", filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"schema", "--limit", "1", a, b}, "1 records in 1 file:"},
		{[]string{"schema", "--limit", "3", a, b}, "3 records in 1 file:"},
		{[]string{"schema", "--limit", "4", a, b}, "4 records in 2 files:"},
		{[]string{"schema", a, b}, "6 records in 2 files:"},
		{[]string{"stats", "--limit", "2", a, b}, "2 records in 1 file:"},
		{append([]string{"schema", "--limit", "1"}, jsonls...), "1 records in 1 file:"},
		{append([]string{"stats", "--limit", "2"}, csvs...), "2 records in 1 file:"},
		{append([]string{"stats", "--limit", "3"}, csvs...), "3 records in 2 files:"},
	} {
		code, out, errOut := run(t, tc.args...)
		if code != 0 || !strings.HasPrefix(out, tc.want) {
			t.Errorf("%q: exit %d, %q, %s; want it to start %q", tc.args, code, firstLine(out), errOut, tc.want)
		}
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// A feature name that is not UTF-8, which TensorFlow's parsers take, is a
// bytes key in the tf.io spec (Go's quoting read in Python as other
// characters), a comment in the spec of sluice's Python package, which
// cannot name it, a Go string whose \x escapes are bytes, and its bytes
// beside the name in JSON (audit 60).
func TestSchemaNameNotUTF8(t *testing.T) {
	p := writeRecords(t, t.TempDir(), "x.tfrecord", tfrecord.None, example.New().Int64("\xffa\"b", 1).Int64("ok", 2).Marshal())
	for _, tc := range []struct{ output, want string }{
		{"python", `    b"\xffa\"b": tf.io.FixedLenFeature([], tf.int64),`},
		{"python", `    # "\xffa\"b": not UTF-8, which this package cannot name (tf.io can)`},
		{"go", `	"\xffa\"b": example.FixedLen(tensor.Int64),`},
		{"json", `"name_base64": "/2EiYg=="`},
	} {
		code, out, errOut := run(t, "schema", "-o", tc.output, p)
		if code != 0 || !strings.Contains(out, tc.want) || !strings.Contains(out, `"ok"`) {
			t.Errorf("schema -o %s: exit %d, %s\n%s; want a line %s", tc.output, code, errOut, out, tc.want)
		}
	}
}

// schema and stats summarise as many distinct features as --max-record-size
// pays a kilobyte each for, and refuse more naming the record that brought
// the first feature past the bound: a 2 MB gzip file of a million names
// took stats past 3.5 GB (audit 62).
func TestSchemaFeatureLimit(t *testing.T) {
	const limit = 1024 // --max-record-size 1 MiB
	names := func(prefix string, n int) []byte {
		b := example.New()
		for i := range n {
			b.Int64(fmt.Sprintf("%s%d", prefix, i), int64(i))
		}
		return b.Marshal()
	}
	dir := t.TempDir()
	first := names("a", limit-1)
	at := writeRecords(t, dir, "at.tfrecord", tfrecord.None, first, names("a", limit-1), names("b", 1))
	past := writeRecords(t, dir, "past.tfrecord", tfrecord.None, first, names("b", 2))
	// From Parquet, the row is named (audit 70).
	pq := filepath.Join(dir, "past")
	if code, _, errOut := run(t, "convert", "--to", "parquet", "--out", pq, past); code != 0 {
		t.Fatalf("convert --to parquet: %s", errOut)
	}
	for _, cmd := range []string{"schema", "stats"} {
		code, _, errOut := run(t, cmd, "--max-record-size", "1048576", "--from", "parquet", pq+".parquet")
		if want := "past.parquet: row 1: too many distinct features"; code == 0 || !strings.Contains(errOut, want) {
			t.Errorf("%s --from parquet: exit %d, stderr %q: want %q", cmd, code, errOut, want)
		}
	}
	// From JSON lines, the line is named (audit 70).
	var lines strings.Builder
	for i := range limit + 1 {
		fmt.Fprintf(&lines, "{\"f%d\": 1}\n", i)
	}
	jsonl := writeFile(t, filepath.Join(dir, "past.jsonl"), []byte(lines.String()))
	for _, cmd := range []string{"schema", "stats"} {
		code, _, errOut := run(t, cmd, "--max-record-size", "1048576", "--from", "jsonl", jsonl)
		if want := fmt.Sprintf("past.jsonl:%d: too many distinct features", limit+1); code == 0 || !strings.Contains(errOut, want) {
			t.Errorf("%s --from jsonl: exit %d, stderr %q: want %q", cmd, code, errOut, want)
		}
	}
	for _, cmd := range []string{"schema", "stats"} {
		code, _, errOut := run(t, cmd, "--max-record-size", "1048576", at)
		if code != 0 {
			t.Errorf("%s of %d features: exit %d: %s", cmd, limit, code, errOut)
		}
		code, _, errOut = run(t, cmd, "--max-record-size", "1048576", past)
		want := fmt.Sprintf("past.tfrecord: record at offset %d: too many distinct features: more than %d", 16+len(first), limit)
		if code == 0 || !strings.Contains(errOut, want) {
			t.Errorf("%s of %d features: exit %d, stderr %q: want %q", cmd, limit+1, code, errOut, want)
		}
	}
}

// A summary of no records ends with the count of files, not with a colon
// before nothing (audit 78: "0 records in 1 file: ").
func TestSchemaSummaryOfNothing(t *testing.T) {
	empty := writeRecords(t, t.TempDir(), "empty.tfrecord", tfrecord.None)
	for _, args := range [][]string{{"schema", empty}, {"stats", empty}, {"stats", "--limit", "0", empty}} {
		code, out, errOut := run(t, args...)
		want := "0 records in 1 file\n"
		if args[1] == "--limit" {
			want = "0 records in 0 files\n" // no file was opened
		}
		if code != 0 || firstLine(out)+"\n" != want {
			t.Errorf("%q: exit %d, %q, %q; want a first line %q", args, code, out, errOut, want)
		}
	}
}

// An Example with a field Example does not have (a newer writer's, say)
// is read as its features, as protobuf and TensorFlow's parsers read it:
// schema counts it, so that its spec parses it too; cat shows it, and
// convert --to parquet writes it. A record of unknown fields alone, which
// random bytes often are, is an Example only when the format says the
// records are (audit 88).
func TestUnknownFieldsInExamples(t *testing.T) {
	extended := append(example.New().Int64("a", 1, 2, 3).Marshal(), 0x38, 0x03) // field 7, varint 3
	plain := example.New().Int64("a", 4, 5).Marshal()
	onlyUnknown := []byte{0x38, 0x03}
	recs := [][]byte{extended, plain}
	s := inferSchema(recs)
	if s.examples != 2 || s.other != 0 {
		t.Errorf("schema: %d Examples, %d neither; want 2 and 0", s.examples, s.other)
	}
	if _, err := example.Parse(recs, goSpec(t, s, s.features, false), nil); err != nil {
		t.Errorf("parsing with the inferred spec: %v", err)
	}
	if s := inferSchema([][]byte{onlyUnknown}); s.other != 1 {
		t.Errorf("schema of a record of unknown fields only: %d Examples, %d neither; want it neither", s.examples, s.other)
	}

	dir := t.TempDir()
	p := writeRecords(t, dir, "u.tfrecord", tfrecord.None, extended, plain, onlyUnknown)
	raw := `{"raw":"` + base64.StdEncoding.EncodeToString(onlyUnknown) + `"}`
	for _, c := range []struct {
		format, want string
	}{
		{"auto", `{"features":{"a":{"int64":[1,2,3]}}}` + "\n" + `{"features":{"a":{"int64":[4,5]}}}` + "\n" + raw + "\n"},
		{"example", `{"features":{"a":{"int64":[1,2,3]}}}` + "\n" + `{"features":{"a":{"int64":[4,5]}}}` + "\n" + `{"features":{}}` + "\n"},
	} {
		if code, out, errOut := run(t, "cat", "--format", c.format, p); code != 0 || out != c.want {
			t.Errorf("cat --format %s: exit %d, %q %s; want %q", c.format, code, out, errOut, c.want)
		}
	}

	p = writeRecords(t, dir, "v.tfrecord", tfrecord.None, extended, plain)
	out := filepath.Join(dir, "v.parquet")
	if code, _, errOut := run(t, "convert", "--to", "parquet", p, "--out", out); code != 0 {
		t.Fatalf("convert --to parquet: exit %d: %s", code, errOut)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	if pf, err := parquet.Open(f, st.Size(), out); err != nil || pf.NumRows() != 2 {
		t.Errorf("the Parquet file: %v; want 2 rows", err)
	}
}
