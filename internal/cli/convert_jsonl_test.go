package cli

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"math"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/sluiceml/sluice/example"
	"github.com/sluiceml/sluice/tfrecord"
)

// runJSONL writes lines to dir/in.jsonl and converts them to dir/out
// (--from jsonl, with --columns if columns is not empty).
func runJSONL(t *testing.T, dir, lines, columns string) (code int, stdout, stderr string) {
	t.Helper()
	in := writeFile(t, filepath.Join(dir, "in.jsonl"), []byte(lines))
	args := []string{"convert", "--from", "jsonl", in, "--out", filepath.Join(dir, "out")}
	if columns != "" {
		args = append(args, "--columns", columns)
	}
	return run(t, args...)
}

// convert --from jsonl: one Example a line, one feature a member, typed by
// the widest kind of the member's values in the sampled lines.
func TestConvertJSONL(t *testing.T) {
	for _, tc := range []struct {
		name    string
		lines   string
		columns string
		want    []*example.Builder // features in name order
	}{
		{"scalars and arrays", `{"label": 3, "x": [0.5, 2], "name": "ann", "ok": true}
{"label": -1, "x": [], "name": "b\u00e9", "ok": false, "tags": ["p", "q"]}
`, "", []*example.Builder{
			example.New().Int64("label", 3).Bytes("name", []byte("ann")).Int64("ok", 1).Float("x", 0.5, 2),
			example.New().Int64("label", -1).Bytes("name", []byte("bé")).Int64("ok", 0).Bytes("tags", []byte("p"), []byte("q")).Float("x"),
		}},
		{"null and blank lines", "{\"a\": null, \"b\": 1}\n\n  \n{\"a\": [7]}\n", "", []*example.Builder{
			example.New().Int64("b", 1),
			example.New().Int64("a", 7),
		}},
		{"integers widened by a later fraction", `{"v": 1}
{"v": 2.5}
`, "", []*example.Builder{
			example.New().Float("v", 1),
			example.New().Float("v", 2.5),
		}},
		{"numbers among strings are their text", `{"id": 10}
{"id": "x-1"}
{"id": [1.50, true]}
`, "", []*example.Builder{
			example.New().Bytes("id", []byte("10")),
			example.New().Bytes("id", []byte("x-1")),
			example.New().Bytes("id", []byte("1.50"), []byte("true")),
		}},
		{"beyond int64 is a float", `{"big": 9223372036854775808}`, "", []*example.Builder{
			example.New().Float("big", 9223372036854775808),
		}},
		{"only empty arrays: bytes", `{"e": []}`, "", []*example.Builder{
			example.New().Bytes("e"),
		}},
		{"types given", `{"a": 1, "b": 2, "c": 3}`, "a:float, b:string", []*example.Builder{
			example.New().Float("a", 1).Bytes("b", []byte("2")).Int64("c", 3),
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			code, stdout, errOut := runJSONL(t, dir, tc.lines, tc.columns)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			if want := fmt.Sprintf("wrote %d records to %s\n", len(tc.want), filepath.Join(dir, "out.tfrecord")); stdout != want {
				t.Errorf("stdout %q, want %q", stdout, want)
			}
			got := readFile(t, filepath.Join(dir, "out.tfrecord"), tfrecord.None)
			if len(got) != len(tc.want) {
				t.Fatalf("%d records, want %d", len(got), len(tc.want))
			}
			for i, b := range tc.want {
				if want := b.Marshal(); !bytes.Equal(got[i], want) {
					t.Errorf("record %d:\n%x, want\n%x", i, got[i], want)
				}
			}
		})
	}
}

// Several files, compressed or not, and standard input, with the types
// inferred across the files' lines.
func TestConvertJSONLFiles(t *testing.T) {
	dir := t.TempDir()
	a := writeFile(t, filepath.Join(dir, "a.jsonl"), []byte(`{"v": 1}`+"\n"))
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(`{"v": 0.25}` + "\n"))
	zw.Close()
	gz := writeFile(t, filepath.Join(dir, "b.jsonl.gz"), b.Bytes())
	out := filepath.Join(dir, "out")
	if code, _, errOut := run(t, "convert", "--from", "jsonl", a, gz, "--out", out); code != 0 {
		t.Fatal(errOut)
	}
	got := readFile(t, out+".tfrecord", tfrecord.None)
	want := [][]byte{example.New().Float("v", 1).Marshal(), example.New().Float("v", 0.25).Marshal()}
	if !slices.EqualFunc(got, want, bytes.Equal) {
		t.Errorf("records %x, want %x", got, want)
	}
}

// Bad lines are errors that name the file, the line and the member, and
// leave no output.
func TestConvertJSONLErrors(t *testing.T) {
	sample := strings.Repeat(`{"a": 1}`+"\n", csvSampleLines)
	for _, tc := range []struct {
		name, lines, columns, want string
	}{
		{"not an object", `[1, 2]`, "", "in.jsonl:1: want a JSON object, not an array"},
		{"nested object", `{"a": {"b": 1}}`, "", `in.jsonl:1: member "a" holds an object: a feature is numbers, strings, booleans or bytes as {"b64":"..."}, or an array of them`},
		{"nested array", `{"a": [1, [2]]}`, "", `in.jsonl:1: member "a" holds an array`},
		{"not JSON", "{\"a\": 1}\n{\"a\": 1,}", "", "in.jsonl:2: not JSON"},
		// Not white space to JSON: it was skipped as a blank line (audit 39).
		{"a no-break space", "{\"a\": 1}\n\u00a0\n", "", `in.jsonl:2: want a JSON object, not '\u00a0', which starts no JSON value`},
		{"two values", `{"a": 1} {}`, "", "in.jsonl:1: more than one JSON value on the line"},
		{"member twice", `{"a": 1, "a": 2}`, "", `in.jsonl:1: member "a" twice`},
		{"null in an array", `{"a": [1, null]}`, "", `in.jsonl:1: member "a" holds a null in an array: an Example's list has no nulls`},
		{"beyond float32", `{"a": 1e39}`, "", `in.jsonl:1: member "a": "1e39" is not a float32 (float, the type of its values in the first line; give it another with --columns a:string)`},
		{"a fraction after the sample", sample + `{"a": 2.5}`, "",
			fmt.Sprintf(`in.jsonl:%d: member "a": 2.5 is not an int64 (int64, the type of its values in the first %d lines; give it another with --columns a:float or a:string)`, csvSampleLines+1, csvSampleLines)},
		{"a string after the sample", sample + "{\"z\": 4}\n{\"z\": \"q\"}", "",
			fmt.Sprintf(`in.jsonl:%d: member "z": "q" is not an int64 (int64, the type of its first values, at `, csvSampleLines+2)},
		{"against the type given", `{"a": 1.5}`, "a:int64", `in.jsonl:1: member "a": 1.5 is not an int64 (its type given with --columns)`},
		{"string as a float", `{"a": "x"}`, "a:float", `member "a": "x" is not a float (its type given with --columns)`},
		{"bad --columns", `{"a": 1}`, "a:bool", "--columns: want name:int64, name:float or name:string for --from jsonl"},
		{"--columns twice", `{"a": 1}`, "a:int64,a:float", `--columns: member "a" named twice`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			code, _, errOut := runJSONL(t, dir, tc.lines, tc.columns)
			if code != 1 || !strings.Contains(errOut, tc.want) {
				t.Errorf("exit %d: %q\nwant %q", code, errOut, tc.want)
			}
			if names := ls(t, dir); !slices.Equal(names, []string{"in.jsonl"}) {
				t.Errorf("directory holds %q", names)
			}
		})
	}
}

// cat's lines given to --from jsonl, and plain objects to --from json, are
// refused with a pointer to the other.
func TestConvertJSONLOrJSON(t *testing.T) {
	dir := t.TempDir()
	plain := writeFile(t, filepath.Join(dir, "plain.jsonl"), []byte(`{"a": 1}`))
	if _, _, errOut := run(t, "convert", "--from", "json", plain, "--out", filepath.Join(dir, "x")); !strings.Contains(errOut, "are --from jsonl") {
		t.Errorf("--from json of plain objects: %q", errOut)
	}
	cat := writeFile(t, filepath.Join(dir, "cat.jsonl"), []byte(`{"features":{"a":{"int64":[1]}}}`))
	if _, _, errOut := run(t, "convert", "--from", "jsonl", cat, "--out", filepath.Join(dir, "x")); !strings.Contains(errOut, `member "features" holds an object`) ||
		!strings.Contains(errOut, "sluice cat's lines are --from json") {
		t.Errorf("--from jsonl of cat's lines: %q", errOut)
	}
}

// schema --from jsonl reports the Examples convert --from jsonl writes:
// the same as schema of the converted file, in every output format.
func TestSchemaJSONL(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, filepath.Join(dir, "in.jsonl"), []byte(`{"label": 3, "x": [0.5, 2], "name": "ann", "ok": true}
{"label": -1, "x": [1], "name": null, "tags": ["p", "q"]}
{"label": 4, "x": [], "ok": false}
`))
	out := filepath.Join(dir, "out")
	if code, _, errOut := run(t, "convert", "--from", "jsonl", in, "--out", out); code != 0 {
		t.Fatal(errOut)
	}
	for _, format := range []string{"text", "go", "python", "json"} {
		for _, limit := range []string{"-1", "2"} {
			_, want, _ := run(t, "schema", "--output", format, "--limit", limit, out+".tfrecord")
			code, got, errOut := run(t, "schema", "--from", "jsonl", "--output", format, "--limit", limit, in)
			if code != 0 || got != want {
				t.Errorf("--output %s --limit %s: exit %d %s\n%s\nwant\n%s", format, limit, code, errOut, got, want)
			}
		}
	}
	if code, _, errOut := run(t, "schema", "--from", "jsonl", "--compression", "GZIP", in); code != 1 || !strings.Contains(errOut, "found from each file's first bytes") {
		t.Errorf("--compression: exit %d %q", code, errOut)
	}
	bad := writeFile(t, filepath.Join(dir, "bad.jsonl"), []byte("{\"a\": 1}\n{\"a\": {}}\n"))
	if code, _, errOut := run(t, "schema", "--from", "jsonl", bad); code != 1 || !strings.Contains(errOut, `bad.jsonl:2: member "a" holds an object`) {
		t.Errorf("a bad line: exit %d %q", code, errOut)
	}
}

// Inference holds at most sampleBytes of lines (and the line that
// reaches it): a sample of long lines ends early, and its size is what
// an error names.
func TestSampleBytes(t *testing.T) {
	defer func(n int) { sampleBytes = n }(sampleBytes)
	sampleBytes = 20
	dir := t.TempDir()
	code, _, errOut := runJSONL(t, dir, "{\"v\": 1}\n{\"v\": 2}\n{\"v\": 3}\n{\"v\": 2.5}\n", "")
	if want := `in.jsonl:4: member "v": 2.5 is not an int64 (int64, the type of its values in the first 3 lines;`; code != 1 || !strings.Contains(errOut, want) {
		t.Errorf("jsonl: exit %d %q, want %q", code, errOut, want)
	}
	sampleBytes = 3
	in := writeFile(t, filepath.Join(dir, "in.csv"), []byte("v\n1\n2\n3\n2.5\n"))
	code, _, errOut = run(t, "convert", "--from", "csv", "--header", in, "--out", filepath.Join(dir, "csv"))
	if want := "the type inferred from the first 3 lines"; code != 1 || !strings.Contains(errOut, want) || !strings.Contains(errOut, "in.csv:5") {
		t.Errorf("csv: exit %d %q, want %q", code, errOut, want)
	}
}

// cat --flat writes NaN and the infinities as protobuf's JSON strings;
// convert --from jsonl reads them back as floats (inferred, or with a
// float column given), and a member whose other values are text keeps
// them as text.
func TestConvertJSONLNonFinite(t *testing.T) {
	dir := t.TempDir()
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	in := writeRecords(t, dir, "in.tfrecord", tfrecord.None,
		example.New().Float("f", nan, 1.5).Float("g", -inf).Marshal(),
		example.New().Float("f", inf).Bytes("s", []byte("NaN")).Marshal(),
		example.New().Bytes("s", []byte("hello")).Marshal())
	code, flat, errOut := run(t, "cat", "--flat", in)
	if code != 0 {
		t.Fatal(errOut)
	}
	for _, columns := range []string{"", "f:float,g:float"} {
		code, _, errOut = runJSONL(t, dir, flat, columns)
		if code != 0 {
			t.Fatalf("--columns %q: %s", columns, errOut)
		}
		_, want, _ := run(t, "cat", in)
		_, got, _ := run(t, "cat", filepath.Join(dir, "out.tfrecord"))
		if got != want {
			t.Errorf("--columns %q: the round trip through cat --flat gives\n%s, want\n%s", columns, got, want)
		}
	}
}

// cat --flat | convert --from jsonl gives back the Examples cat read,
// every value of every kind: bytes whose text is a float's word, and
// bytes that are not text, are written {"b64":...}, which jsonl reads as
// bytes.
func TestFlatJSONLRoundTrip(t *testing.T) {
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	for _, tc := range []struct {
		name string
		recs [][]byte
	}{
		{"bytes NaN and infinities", [][]byte{
			example.New().Bytes("word", []byte("NaN")).Marshal(),
			example.New().Bytes("word", []byte("Infinity"), []byte("-Infinity")).Marshal()}},
		{"bytes not text", [][]byte{
			example.New().Bytes("b", []byte{0xff, 0x00}, []byte("ok")).Marshal(),
			example.New().Bytes("b", []byte("\x01")).Marshal()}},
		{"floats NaN and infinities", [][]byte{
			example.New().Float("f", nan, -inf, inf, 0.5).Marshal()}},
		{"text like numbers and markers", [][]byte{
			example.New().Bytes("s", []byte("1.5"), []byte(`{"b64":"TmFO"}`), []byte("nan"), []byte("true")).Marshal()}},
		{"every kind", [][]byte{
			example.New().Int64("i", math.MaxInt64, math.MinInt64, 0).Float("f", 2, float32(math.Copysign(0, -1)), 1e-45).Bytes("b", []byte("NaN"), []byte{0x80}).Marshal(),
			example.New().Int64("i", 1).Float("f", nan).Bytes("b", []byte("x")).Marshal()}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			in := writeRecords(t, dir, "in.tfrecord", tfrecord.None, tc.recs...)
			code, flat, errOut := run(t, "cat", "--flat", in)
			if code != 0 {
				t.Fatal(errOut)
			}
			if code, _, errOut = runJSONL(t, dir, flat, ""); code != 0 {
				t.Fatalf("convert --from jsonl of\n%s: %s", flat, errOut)
			}
			_, want, _ := run(t, "cat", in)
			_, got, _ := run(t, "cat", filepath.Join(dir, "out.tfrecord"))
			if got != want {
				t.Errorf("through\n%sthe records became\n%swant\n%s", flat, got, want)
			}
		})
	}
}

// A line may hold one value for each jsonlValueCost bytes of
// --max-record-size, and no more, which convert and schema refuse naming
// the file, line and member: an array of four million zeros, an 8 KB gzip
// file, took 870 MB (audit 62).
func TestJSONLValueLimit(t *testing.T) {
	const maxRecord = 2 << 20
	const limit = maxRecord / jsonlValueCost
	array := func(n int) string { return `{"a": 1, "b": [` + strings.Repeat("0,", n-1) + "0]}\n" }
	for _, tc := range []struct {
		name, lines, want string
	}{
		{"at the limit", array(limit - 1), ""},
		{"past the limit", `{"b": [1]}` + "\n" + array(limit), fmt.Sprintf(`in.jsonl:2: member "b": more than %d values in the line`, limit)},
	} {
		for _, cmd := range []string{"convert", "schema"} {
			t.Run(tc.name+"/"+cmd, func(t *testing.T) {
				dir := t.TempDir()
				in := writeFile(t, filepath.Join(dir, "in.jsonl"), []byte(tc.lines))
				args := []string{cmd, "--max-record-size", fmt.Sprint(maxRecord), "--from", "jsonl", in}
				if cmd == "convert" {
					args = append(args, "--out", filepath.Join(dir, "out"))
				}
				code, _, errOut := run(t, args...)
				switch {
				case tc.want == "" && code != 0:
					t.Fatalf("exit %d: %s", code, errOut)
				case tc.want != "" && (code == 0 || !strings.Contains(errOut, tc.want)):
					t.Fatalf("exit %d, stderr %q: want an error saying %q", code, errOut, tc.want)
				}
			})
		}
	}
}

// A line's values cost the converter, in the buffers it keeps for the next
// line, a few tens of bytes each, not the ninety of a value that held a
// slice and had room in all three value buffers (audit 62).
func TestJSONLValueMemory(t *testing.T) {
	const n = 1 << 20
	line := []byte(`{"a": [` + strings.Repeat("0,", n-1) + "0]}")
	records := 0
	c := newJSONLConverter(0, func([]byte) error { records++; return nil })
	c.sampled = 1 // types fixed: convert at once
	c.types["a"] = &jsonlType{kind: jsonlInt, given: true}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if err := c.convert(line, jsonlLine{"in.jsonl", 1}); err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(c)
	if records != 1 {
		t.Fatalf("%d records", records)
	}
	// A jsonlValue (12 bytes, with its slice's room to grow), an int64
	// and the Example's bytes.
	if got := (int64(after.HeapAlloc) - int64(before.HeapAlloc)) / n; got > 40 {
		t.Errorf("%d bytes a value kept", got)
	}
}
