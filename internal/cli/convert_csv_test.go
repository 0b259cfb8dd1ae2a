package cli

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sluiceml/sluice/tensor"
)

// convertCSVFiles writes files (name → content) to a temporary directory,
// runs convert --from csv over them in the given order with args, and
// returns the exit code, `sluice cat` of the output (one JSON object per
// line) and stderr.
func convertCSVFiles(t *testing.T, files [][2]string, args ...string) (int, string, string) {
	t.Helper()
	dir := t.TempDir()
	var paths []string
	for _, f := range files {
		paths = append(paths, writeFile(t, filepath.Join(dir, f[0]), []byte(f[1])))
	}
	out := filepath.Join(dir, "out")
	code, _, errOut := run(t, append(append([]string{"convert", "--from", "csv", "--out", out}, args...), paths...)...)
	if code != 0 {
		return code, "", errOut
	}
	code, stdout, errOut := run(t, "cat", out+".tfrecord")
	if code != 0 {
		t.Fatalf("cat: %s", errOut)
	}
	return 0, stdout, ""
}

// Each file's header maps its own columns, by name: files whose headers
// order the columns differently give the same features.
func TestConvertCSVHeaderPerFile(t *testing.T) {
	want := `{"features":{"id":{"int64":[1]},"name":{"bytes":["x"]},"price":{"float":[2.5]}}}
{"features":{"id":{"int64":[2]},"name":{"bytes":["y"]},"price":{"float":[3.5]}}}
{"features":{"id":{"int64":[3]},"name":{"bytes":["z"]},"price":{"float":[4]}}}
`
	a := [2]string{"a.csv", "id,price,name\n1,2.5,x\n"}
	for _, tc := range []struct {
		name  string
		files [][2]string
		args  []string
	}{
		{"reordered", [][2]string{a, {"b.csv", "name,id,price\ny,2,3.5\n"}, {"c.csv", "price,name,id\n4,z,3\n"}}, nil},
		{"reordered, typed by name", [][2]string{a, {"b.csv", "name,id,price\ny,2,3.5\n"}, {"c.csv", "price,name,id\n4,z,3\n"}},
			[]string{"--columns", "name,price:float,id:int64"}},
		// --columns naming none of the header's columns renames them in
		// the first file's order; later files map through their headers.
		{"renamed", [][2]string{{"a.csv", "ID,PRICE,NAME\n1,2.5,x\n"}, {"b.csv", "NAME,ID,PRICE\ny,2,3.5\n"}, {"c.csv", "PRICE,NAME,ID\n4,z,3\n"}},
			[]string{"--columns", "id:int64,price:float,name"}},
		{"BOM", [][2]string{{"a.csv", "\ufeffid,price,name\n1,2.5,x\n"}, {"b.csv", "\ufeffname,id,price\ny,2,3.5\n"}, {"c.csv", "price,name,id\n4,z,3\n"}}, nil},
		{"delimiter", [][2]string{{"a.csv", "id;price;name\n1;2.5;x\n"}, {"b.csv", "name;id;price\ny;2;3.5\n"}, {"c.csv", "price;name;id\n4;z;3\n"}},
			[]string{"--delimiter", ";"}},
		{"tab", [][2]string{{"a.csv", "id\tprice\tname\n1\t2.5\tx\n"}, {"b.csv", "name\tid\tprice\ny\t2\t3.5\n"}, {"c.csv", "price\tname\tid\n4\tz\t3\n"}},
			[]string{"--delimiter", `\t`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, got, errOut := convertCSVFiles(t, tc.files, append([]string{"--header"}, tc.args...)...)
			if code != 0 {
				t.Fatalf("convert: %s", errOut)
			}
			if got != want {
				t.Fatalf("got\n%s\nwant\n%s", got, want)
			}
		})
	}
}

// A BOM starts a file without a header too; it is not part of the first
// field.
func TestConvertCSVBOMWithoutHeader(t *testing.T) {
	code, got, errOut := convertCSVFiles(t, [][2]string{{"a.csv", "\ufeff1,x\n"}, {"b.csv", "\ufeff2,y\n"}}, "--columns", "id,name")
	if code != 0 {
		t.Fatalf("convert: %s", errOut)
	}
	want := `{"features":{"id":{"int64":[1]},"name":{"bytes":["x"]}}}
{"features":{"id":{"int64":[2]},"name":{"bytes":["y"]}}}
`
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

// A file whose header lacks a column, or has one more, fails naming the
// file and the column; so do bad --delimiter values.
func TestConvertCSVHeaderErrors(t *testing.T) {
	a := [2]string{"a.csv", "id,price,name\n1,2.5,x\n"}
	for _, tc := range []struct {
		name  string
		files [][2]string
		args  []string
		want  []string
	}{
		{"missing", [][2]string{a, {"b.csv", "name,id\ny,2\n"}}, nil, []string{"b.csv:1: header", `no column "price"`}},
		{"extra", [][2]string{a, {"b.csv", "name,id,price,colour\ny,2,3.5,red\n"}}, nil, []string{"b.csv:1: header", `column "colour"`}},
		{"renamed", [][2]string{a, {"b.csv", "name,id,cost\ny,2,3.5\n"}}, nil, []string{"b.csv:1: header", `column "cost"`, `no column "price"`}},
		{"columns differ from header", [][2]string{a}, []string{"--columns", "id,cost,name"}, []string{"a.csv:1: header", `column "price"`, `no column "cost"`}},
		{"delimiter too long", [][2]string{a}, []string{"--delimiter", ";;"}, []string{`--delimiter must be one character`, `";;"`}},
		{"delimiter empty", [][2]string{a}, []string{"--delimiter", ""}, []string{`--delimiter must be one character`}},
		{"delimiter newline", [][2]string{a}, []string{"--delimiter", "\n"}, []string{`--delimiter cannot be a newline or a double quote`}},
		{"delimiter quote", [][2]string{a}, []string{"--delimiter", `"`}, []string{`--delimiter cannot be a newline or a double quote`}},
		{"delimiter not ASCII", [][2]string{a}, []string{"--delimiter", "§"}, []string{`--delimiter must be one character`}},
		// It said "header: EOF" (audit 39).
		{"header line empty", [][2]string{{"h.csv", "\nx,y\n1,2\n"}}, nil, []string{"h.csv:1: header: the line is empty"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errOut := convertCSVFiles(t, tc.files, append([]string{"--header"}, tc.args...)...)
			if code == 0 {
				t.Fatal("converted")
			}
			for _, w := range tc.want {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr %q does not say %q", errOut, w)
				}
			}
		})
	}
}

// A value that does not fit its column's inferred type names the file,
// line, column and value, and the --columns flag that fixes it.
func TestConvertCSVInferredTypeHint(t *testing.T) {
	var late strings.Builder
	late.WriteString("id,price,name\n")
	for i := range 1200 {
		late.WriteString("1,2,x\n")
		_ = i
	}
	for _, tc := range []struct {
		name, bad string
		want      []string
	}{
		{"float in int64", "1,3.5,x\n", []string{`b.csv:4: `, `column "price"`, `"3.5"`, `int64`, `first 1000 lines`, `--columns id,price:float,name`}},
		{"text in int64", "1,abc,x\n", []string{`b.csv:4: `, `column "price"`, `"abc"`, `--columns id,price:string,name`}},
		// Go's ParseFloat reads "2_5" as 25; decode_csv does not.
		{"digit separator in int64", "1,2_5,x\n", []string{`b.csv:4: `, `column "price"`, `"2_5"`, `--columns id,price:string,name`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The other file has the columns in another order: the hint
			// names them as the first file (and the output) does.
			code, _, errOut := convertCSVFiles(t, [][2]string{{"a.csv", late.String()}, {"b.csv", "price,name,id\n2,y,1\n4,y,1\n" + reorder(tc.bad)}}, "--header")
			if code == 0 {
				t.Fatal("converted")
			}
			for _, w := range tc.want {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr %q does not say %q", errOut, w)
				}
			}
		})
	}
}

// reorder turns a line of id,price,name into price,name,id.
func reorder(line string) string {
	f := strings.Split(strings.TrimSuffix(line, "\n"), ",")
	return f[1] + "," + f[2] + "," + f[0] + "\n"
}

// The case: columns of one type, so a positional reading of the
// second file would swap them without any error.
func TestConvertCSVHeaderSwapSameType(t *testing.T) {
	code, got, errOut := convertCSVFiles(t, [][2]string{{"a.csv", "first,last\nAda,Lovelace\n"}, {"b.csv", "last,first\nHopper,Grace\n"}}, "--header")
	if code != 0 {
		t.Fatalf("convert: %s", errOut)
	}
	// Text bytes show as text.
	want := `{"features":{"first":{"bytes":["Ada"]},"last":{"bytes":["Lovelace"]}}}
{"features":{"first":{"bytes":["Grace"]},"last":{"bytes":["Hopper"]}}}
`
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

// A column's type is inferred by the rules decode_csv reads it with
// (TensorFlow's, checked against tf.io.decode_csv): never a type some of
// its values then fail to decode as, nor a narrower one than they have.
func TestCSVInferType(t *testing.T) {
	for _, tc := range []struct {
		values []string
		want   tensor.DType
	}{
		{[]string{"1", "-2", "+3"}, tensor.Int64},
		{[]string{" 5", "6 "}, tensor.Int64}, // spaces around a number are skipped
		{[]string{"1", "2.5"}, tensor.Float32},
		{[]string{"1e39"}, tensor.Float32}, // too large for float32: inf
		{[]string{"-nan", "inf", "-Infinity", "nan(abc)"}, tensor.Float32},
		{[]string{"0x10"}, tensor.Float32},
		{[]string{"9223372036854775808"}, tensor.Float32}, // beyond int64
		{[]string{"1_000"}, tensor.String},                // Go's digit separators are not numbers
		{[]string{"2023_01", "2023_02"}, tensor.String},
		{[]string{"1", "1_0.5"}, tensor.String},
		{[]string{"", ""}, tensor.String},
		{[]string{"", "7"}, tensor.Int64},
		{[]string{"0b101"}, tensor.String},
	} {
		values := make([][]byte, len(tc.values))
		for i, v := range tc.values {
			values[i] = []byte(v)
		}
		if got := inferType(values); got != tc.want {
			t.Errorf("inferType(%q) = %v, want %v", tc.values, got, tc.want)
		}
		// schema --from csv infers a field at a time, and must agree.
		dt := tensor.Invalid
		for _, v := range values {
			if len(v) > 0 {
				dt = widen(dt, v)
			}
		}
		if dt == tensor.Invalid {
			dt = tensor.String
		}
		if dt != tc.want {
			t.Errorf("widen over %q = %v, want %v", tc.values, dt, tc.want)
		}
	}
}

// The audit's case: a column of periods, 2023_01, is text, which schema
// reports and convert and stats read.
func TestCSVDigitSeparatorsAreText(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, filepath.Join(dir, "period.csv"), []byte("a,b\n2023_01,1\n2023_02,2\n"))
	if code, out, errOut := run(t, "schema", "--from", "csv", "--header", "--json", p); code != 0 || !regexp.MustCompile(`"name": "a",\s*"type": "string"`).MatchString(out) {
		t.Errorf("schema: exit %d, %s%s; want a string", code, out, errOut)
	}
	if code, _, errOut := run(t, "stats", "--from", "csv", "--header", p); code != 0 {
		t.Errorf("stats: exit %d, %s", code, errOut)
	}
	code, out, errOut := convertCSVFiles(t, [][2]string{{"period.csv", "a,b\n2023_01,1\n2023_02,2\n"}}, "--header")
	if code != 0 || !strings.Contains(out, `"a":{"bytes":["2023_01"]}`) {
		t.Errorf("convert: exit %d, %s%s", code, out, errOut)
	}
}

// A line of white space is a record, as decode_csv and sluice.CSV read it:
// a tab-separated line of empty fields, a line of spaces in one column, a
// no-break space; only an empty line holds none. They were dropped (audit
// 39). A file without a header may begin with a record of empty or
// repeated values, which only a header may not have: it was refused as a
// header (audit 39).
func TestConvertCSVRecordsLikeDecodeCSV(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		args       []string
		want       string
	}{
		{"tab-separated empty fields", "x\ty\n1\t2\n\t\n3\t4\n", []string{"--header", "--delimiter", "\t"},
			`{"features":{"x":{"int64":[1]},"y":{"int64":[2]}}}
{"features":{"x":{"int64":[0]},"y":{"int64":[0]}}}
{"features":{"x":{"int64":[3]},"y":{"int64":[4]}}}
`},
		{"spaces, one column", "s\na\n   \n\u00a0\n\nb\r\n\r\n", []string{"--header"},
			`{"features":{"s":{"bytes":["a"]}}}
{"features":{"s":{"bytes":["   "]}}}
{"features":{"s":{"bytes":[" "]}}}
{"features":{"s":{"bytes":["b"]}}}
`},
		{"no header, first record repeats", "0,0,1\n1,,3\n", nil,
			`{"features":{"c0":{"int64":[0]},"c1":{"int64":[0]},"c2":{"int64":[1]}}}
{"features":{"c0":{"int64":[1]},"c1":{"int64":[0]},"c2":{"int64":[3]}}}
`},
		{"no header, first record has an empty field", ",2\n3,4\n", nil,
			`{"features":{"c0":{"int64":[0]},"c1":{"int64":[2]}}}
{"features":{"c0":{"int64":[3]},"c1":{"int64":[4]}}}
`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, got, errOut := convertCSVFiles(t, [][2]string{{"a.csv", tc.text}}, tc.args...)
			if code != 0 {
				t.Fatalf("convert: %s", errOut)
			}
			if got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

// A line of more fields than --max-record-size pays a column for is
// refused, naming the file and line, by convert and schema, before it is
// split: a line of two million empty fields, a 4 KB gzip file, took
// convert past 3.5 GB (audit 62). Delimiters inside quotes are not fields.
func TestCSVColumnLimit(t *testing.T) {
	const limit = 2048 // --max-record-size 2 MiB: 1 KiB a column
	fields := func(n int) string { return strings.Repeat(",", n-1) + "\n" }
	quotedName := `"` + strings.Repeat(",", 3*limit) + `",b` + "\n"
	for _, tc := range []struct {
		name    string
		content string
		header  bool
		want    string // "" for no error
	}{
		{"record at the limit", fields(limit), false, ""},
		// A later line is split by the decoder, which keeps no more
		// fields than the columns.
		{"later record past the limit", "1\n" + fields(limit+1), false, "a.csv:2: Expect 1 fields but have 2049"},
		{"first record past the limit", fields(limit + 1), false, "a.csv:1: more than 2048 columns"},
		{"header past the limit", "x" + fields(limit+1) + "1\n", true, "a.csv:1: header: more than 2048 columns"},
		{"delimiters quoted in a header", quotedName + "1,2\n", true, ""},
		{"delimiters quoted in a record", `"` + strings.Repeat(",", 3*limit) + `",2` + "\n", false, ""},
	} {
		for _, cmd := range []string{"convert", "schema"} {
			t.Run(tc.name+"/"+cmd, func(t *testing.T) {
				dir := t.TempDir()
				in := writeFile(t, filepath.Join(dir, "a.csv"), []byte(tc.content))
				args := []string{cmd, "--max-record-size", "2097152", "--from", "csv"}
				if cmd == "convert" {
					args = append(args, "--out", filepath.Join(dir, "out"))
				}
				if tc.header {
					args = append(args, "--header")
				}
				code, _, errOut := run(t, append(args, in)...)
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
