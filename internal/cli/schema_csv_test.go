package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sluiceml/sluice/tfrecord"
)

// writeText writes text into dir/name, compressed as c.
func writeText(t *testing.T, dir, name, text string, c tfrecord.Compression) string {
	t.Helper()
	var b bytes.Buffer
	w, err := tfrecord.NewCompressor(c, &b)
	if err == nil {
		_, err = w.Write([]byte(text))
	}
	if err == nil {
		err = w.Close()
	}
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, name), b.Bytes(), 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, name)
}

// schema --from csv: each column's narrowest type over every file's lines
// (a later file can widen a column), empty fields counted, blank lines
// reported, plain and compressed files alike.
func TestSchemaCSV(t *testing.T) {
	dir := t.TempDir()
	a := writeText(t, dir, "a.csv", "id,score,name,maybe,none\n1,2,alice,,\n2,3,\"b, c\",7,\n", tfrecord.None)
	b := writeText(t, dir, "b.csv.gz", "id,score,name,maybe,none\n3,0.5,dan,8,\n\n", tfrecord.Gzip)
	code, out, errOut := run(t, "schema", "--from", "csv", "--header", "--json", a, b)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got struct {
		Files, Lines int
		Blank        int `json:"blank_lines"`
		Columns      []struct {
			Name, Type string
			Empty      int
		}
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	want := []string{"id int64 0", "score float 0", "name string 0", "maybe int64 1", "none string 3"}
	var cols []string
	for _, c := range got.Columns {
		cols = append(cols, strings.Join([]string{c.Name, c.Type, string(rune('0' + c.Empty))}, " "))
	}
	if got.Files != 2 || got.Lines != 3 || got.Blank != 1 || strings.Join(cols, "; ") != strings.Join(want, "; ") {
		t.Fatalf("%+v, columns %q, want %q", got, cols, want)
	}

	// The spec printers, for the same files.
	_, goOut, _ := run(t, "schema", "--from", "csv", "--header", "--output", "go", a, b)
	_, pyOut, _ := run(t, "schema", "--from", "csv", "--header", "--output", "python", a, b)
	for _, w := range []string{`sluice.Col("score", decode.Float32Column(0))`, `sluice.Col("none", decode.StringColumn(""))`,
		`sluice.CSV("FILES", columns, sluice.SkipHeaderLines(1))`} {
		if !strings.Contains(goOut, w) {
			t.Errorf("--output go lacks %s:\n%s", w, goOut)
		}
	}
	for _, w := range []string{`("id", "int64")`, `("name", bytes)`, `header_lines=1`,
		`record_defaults = [tf.constant([0], tf.int64), [0.0], [""], tf.constant([0], tf.int64), [""]]`} {
		if !strings.Contains(pyOut, w) {
			t.Errorf("--output python lacks %s:\n%s", w, pyOut)
		}
	}
}

// Without --header the columns are c0, c1, ...; --delimiter and --limit
// are kept; bad input names its file and line.
func TestSchemaCSVOptionsAndErrors(t *testing.T) {
	dir := t.TempDir()
	tsv := writeText(t, dir, "a.tsv.zst", "1\tx\n2\ty\n3.5\tz\n", tfrecord.Zstd)
	code, out, errOut := run(t, "schema", "--from", "csv", "--delimiter", `\t`, "--limit", "2", "--output", "go", tsv)
	if code != 0 || !strings.Contains(out, `sluice.Col("c0", decode.Int64Column(0))`) ||
		!strings.Contains(out, `sluice.FieldDelim("\t")`) || !strings.Contains(out, "// 2 lines of CSV") {
		t.Fatalf("exit %d: %s%s", code, out, errOut)
	}

	short := writeText(t, dir, "short.csv", "a,b\n1,2\n3\n", tfrecord.None)
	other := writeText(t, dir, "other.csv", "a,c\n1,2\n", tfrecord.None)
	good := writeText(t, dir, "good.csv", "a,b\n1,2\n", tfrecord.None)
	for _, tc := range []struct {
		args []string
		want string
	}{
		// The record counted as convert and stats count it, the line
		// alone: it said "record 1" of the two lines split together
		// (audit 72).
		{[]string{short}, short + ":3: Expect 2 fields but have 1 in record 0"},
		{[]string{good, other}, other + `:1: header: column 1 is "c", where the first file's is "b"`},
		{[]string{"--compression", "GZIP", good}, "--compression"},
		{[]string{"--delimiter", "ab", good}, "--delimiter"},
	} {
		code, _, errOut := run(t, append([]string{"schema", "--from", "csv", "--header"}, tc.args...)...)
		if code == 0 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, %q, want an error with %q", tc.args, code, errOut, tc.want)
		}
	}
	if code, _, errOut := run(t, "schema", "--header", good); code == 0 || !strings.Contains(errOut, "--from csv") {
		t.Errorf("--header without --from csv: exit %d, %q", code, errOut)
	}
}
