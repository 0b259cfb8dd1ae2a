package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/sluiceml/sluice/example"
	"github.com/sluiceml/sluice/storage"
	"github.com/sluiceml/sluice/tfrecord"
)

// count --json prints one document: each file's count in the files'
// order, and the total. --json and --output json are the same.
func TestCountJSON(t *testing.T) {
	dir := t.TempDir()
	a := writeExamples(t, dir, "a.tfrecord", 3, tfrecord.None)
	b := writeExamples(t, dir, "b.tfrecord.gz", 2, tfrecord.Gzip)
	c := writeRecords(t, dir, "c.tfrecord", tfrecord.None)
	want := countReport{Files: []fileCount{{Name: a, Records: 3}, {Name: b, Records: 2}, {Name: c, Records: 0}}, Records: 5}
	for _, flag := range [][]string{{"--json"}, {"-o", "json"}, {"--output", "json", "--json"}} {
		code, out, errOut := run(t, append(append([]string{"count"}, flag...), filepath.Join(dir, "*"))...)
		var got countReport
		if code != 0 || errOut != "" {
			t.Fatalf("count %v: exit %d, %q", flag, code, errOut)
		}
		if err := json.Unmarshal([]byte(out), &got); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("count %v: %v\n%s\nwant %+v", flag, err, out, want)
		}
	}
	// One file is a document too, with its total.
	code, out, _ := run(t, "count", "--json", a)
	if code != 0 || !json.Valid([]byte(out)) || !strings.Contains(out, `"records": 3`) || strings.Contains(out, "\t") {
		t.Errorf("count --json of one file: exit %d\n%s", code, out)
	}
}

// A flag that asks for JSON and one that asks for text are refused, and
// so is an --output no command knows.
func TestOutputFlagConflicts(t *testing.T) {
	dir := t.TempDir()
	a := writeExamples(t, dir, "a.tfrecord", 1, tfrecord.None)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"count", "--json", "-o", "text", a}, "--json asks for --output json, not text"},
		{[]string{"verify", "--json", "--output", "text", a}, "--json asks for --output json, not text"},
		{[]string{"schema", "--json", "-o", "go", a}, "--json asks for --output json, not go"},
		{[]string{"count", "-o", "yaml", a}, `--output must be text or json, not "yaml"`},
		{[]string{"verify", "-o", "go", a}, `--output must be text or json, not "go"`},
		{[]string{"schema", "-o", "yaml", a}, `--output must be text, go, python or json, not "yaml"`},
	} {
		code, out, errOut := run(t, tc.args...)
		if code == 0 || out != "" || !strings.Contains(errOut, tc.want) {
			t.Errorf("%q: exit %d, %q %q; want %q", tc.args, code, out, errOut, tc.want)
		}
	}
	// schema --json is schema --output json.
	_, j1, _ := run(t, "schema", "--json", a)
	_, j2, _ := run(t, "schema", "-o", "json", a)
	if j1 != j2 || !json.Valid([]byte(j1)) {
		t.Errorf("schema --json:\n%s\nschema -o json:\n%s", j1, j2)
	}
	for _, cmd := range []string{"count", "verify", "schema"} {
		if _, help, _ := run(t, cmd, "--help"); !strings.Contains(help, "--json") || !strings.Contains(help, "--output json") {
			t.Errorf("%s --help does not tell of --json:\n%s", cmd, help)
		}
	}
}

// verify --json gives each file's good and bad records and where each
// problem is, the leftovers of interrupted writes, and the exit code of
// the text output.
func TestVerifyJSON(t *testing.T) {
	dir := t.TempDir()
	n := int64(len(example.New().Int64("label", 0).Float("x", 0).Marshal()) + 16) // every record's framed size
	bad := writeExamples(t, dir, "a-bad.tfrecord", 5, tfrecord.None)
	data, _ := os.ReadFile(bad)
	data[1*n+12] ^= 1 // record 1's data
	data[2*n+12] ^= 1 // and record 2's
	data = data[:len(data)-5]
	os.WriteFile(bad, data, 0o644)
	good := writeExamples(t, dir, "b-good.tfrecord.gz", 2, tfrecord.Gzip)
	leftover := filepath.Join(dir, ".b-good.tfrecord.gz"+storage.TempMarker+"dead01")
	writeExamples(t, dir, filepath.Base(leftover), 1, tfrecord.None)

	code, out, errOut := run(t, "verify", "--json", filepath.Join(dir, "*"))
	if code != 1 || errOut != "sluice: 3 bad records in 1 file; 1 incomplete file left by interrupted writes\n" {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
	var got verifyReport
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	off := func(v int64) *int64 { return &v }
	want := verifyReport{
		Files: []*fileVerdict{
			{Name: bad, Records: 2, Bad: 3, Problems: []verifyProblem{
				{Offset: off(n), End: off(3 * n), Records: 2, Error: "2 corrupt records"},
				{Offset: off(4 * n), Records: 1, Error: fmt.Sprintf("%s: truncated record at %d", bad, 4*n)},
			}},
			{Name: good, Records: 2, Problems: []verifyProblem{}},
		},
		Records:    4,
		Bad:        3,
		Incomplete: []string{leftover},
		Writing:    []string{},
		Unchecked:  []string{},
		Unread:     []string{},
	}
	if !reflect.DeepEqual(got, want) {
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		t.Errorf("got  %s\nwant %s", g, w)
	}
	// A clean run is a document with no problems, and exits 0.
	clean := writeExamples(t, t.TempDir(), "clean.tfrecord", 2, tfrecord.None)
	code, out, _ = run(t, "verify", "--json", clean)
	if code != 0 || !strings.Contains(out, `"problems": []`) || !strings.Contains(out, `"bad_records": 0`) {
		t.Errorf("verify --json of a good file: exit %d\n%s", code, out)
	}
}

// count and verify show progress on a terminal and nothing otherwise: a
// script that pipes or redirects them gets only their output.
func TestCountVerifyProgress(t *testing.T) {
	dir := t.TempDir()
	p := writeExamples(t, dir, "many.tfrecord", 5000, tfrecord.None)
	for _, cmd := range []string{"count", "verify"} {
		for _, terminal := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s terminal=%v", cmd, terminal), func(t *testing.T) {
				saved := isTerminal
				defer func() { isTerminal = saved }()
				isTerminal = func(io.Writer) bool { return terminal }
				code, out, errOut := run(t, cmd, p)
				if code != 0 || out == "" {
					t.Fatalf("exit %d, %q %q", code, out, errOut)
				}
				if !terminal && errOut != "" {
					t.Errorf("stderr off a terminal: %q", errOut)
				}
				// The bar names the command and counts bytes of the
				// file's size (it is cleared when done, on a terminal).
				fi, _ := os.Stat(p)
				size := fmt.Sprintf("%.0f kB", float64(fi.Size())/1000)
				if terminal && (!strings.Contains(errOut, cmd) || !strings.Contains(errOut, size)) {
					t.Errorf("stderr on a terminal lacks %q and %q: %q", cmd, size, errOut)
				}
				if strings.Contains(out, "\r") {
					t.Errorf("progress on stdout: %q", out)
				}
			})
		}
	}
}
