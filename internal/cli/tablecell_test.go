package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sluiceml/sluice/example"
	"github.com/sluiceml/sluice/tfrecord"
)

func TestCell(t *testing.T) {
	for _, tc := range []struct{ name, want string }{
		{"label", "label"},
		{"ünï code", "ünï code"},
		{"a\tb", `"a\tb"`},
		{"two\nlines", `"two\nlines"`},
		{"\xffz", `"\xffz"`},
		{"", `""`},
		{`"q"`, `"\"q\""`},
		{"bell\a", `"bell\a"`},
		{" ", `" "`},
		{"a ", `"a "`},
		{" a", `" a"`},
		{"a b", "a b"},
	} {
		if got := cell(tc.name); got != tc.want {
			t.Errorf("cell(%q) = %s, want %s", tc.name, got, tc.want)
		}
	}
}

// Text tables give each feature or column one row, whatever its name: a
// name of two lines printed raw made a row that began with its second
// line, and a tab shifted its row's columns (audit 77).
func TestTextTablesQuoteNames(t *testing.T) {
	names := []string{"a\tb", "two\nlines", "\xffz", `"q"`, "plain"}
	dir := t.TempDir()
	b := example.New()
	for _, n := range names {
		b.Int64(n, 7)
	}
	records := writeRecords(t, dir, "x.tfrecord", tfrecord.None, b.Marshal())
	// CSV is read a line at a time (as TensorFlow's readers read it), and
	// its names must be UTF-8.
	csvNames := []string{"a\tb", "cr\rhere", "bell\a", `"q"`, "plain"}
	var header []string
	for _, n := range csvNames {
		header = append(header, `"`+strings.ReplaceAll(n, `"`, `""`)+`"`)
	}
	csvFile := filepath.Join(dir, "x.csv")
	if err := os.WriteFile(csvFile, []byte(strings.Join(header, ",")+"\n1,2,3,4,5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args  []string
		names []string
	}{
		{[]string{"schema", records}, names},
		{[]string{"stats", records}, names},
		{[]string{"schema", "--from", "csv", "--header", csvFile}, csvNames},
	} {
		args := tc.args
		code, out, errOut := run(t, args...)
		if code != 0 {
			t.Fatalf("%q: exit %d: %s", args, code, errOut)
		}
		rows := map[string]int{}
		for _, line := range strings.Split(out, "\n") {
			first, _, _ := strings.Cut(line, "  ")
			rows[first]++
		}
		for _, n := range tc.names {
			if rows[cell(n)] == 0 {
				t.Errorf("%q: no row for %q:\n%s", args, n, out)
			}
		}
		if rows["lines\""] != 0 || rows["lines"] != 0 {
			t.Errorf("%q: a name's second line began a row:\n%s", args, out)
		}
	}
}
