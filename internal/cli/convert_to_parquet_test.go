package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/sluiceml/sluice/example"
	"github.com/sluiceml/sluice/example/pb"
	"github.com/sluiceml/sluice/internal/interrupt"
	"github.com/sluiceml/sluice/parquet"
	"github.com/sluiceml/sluice/storage"
	"github.com/sluiceml/sluice/tfrecord"
	"google.golang.org/protobuf/proto"
)

// normalized returns the records as Examples marshalled deterministically,
// sorted: the same multiset of Examples gives the same slice.
func normalized(t *testing.T, recs [][]byte) []string {
	t.Helper()
	out := make([]string, len(recs))
	for i, r := range recs {
		var ex pb.Example
		if err := proto.Unmarshal(r, &ex); err != nil {
			t.Fatal(err)
		}
		b, err := proto.MarshalOptions{Deterministic: true}.Marshal(&ex)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = string(b)
	}
	slices.Sort(out)
	return out
}

func openParquet(t *testing.T, name string) *parquet.File {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	f, err := parquet.Open(bytes.NewReader(b), int64(len(b)), name)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// convert --to parquet and back gives the Examples it was given: pyarrow's
// files, made Examples by convert --from parquet, written to Parquet,
// whole or in shards, in order or shuffled, and read back as Examples. A
// column stays a scalar column, of its kind, and strings stay strings.
func TestConvertToParquetRoundTrip(t *testing.T) {
	for _, name := range []string{"default", "polars", "logical"} {
		for _, extra := range [][]string{nil, {"--compression", "zstd", "--shards", "3"}, {"--shuffle", "--compression", "NONE"}} {
			t.Run(fmt.Sprint(name, extra), func(t *testing.T) {
				dir := t.TempDir()
				src := filepath.Join(parquetTestdata, name+".parquet")
				if code, _, errOut := run(t, "convert", "--from", "parquet", src, "--out", filepath.Join(dir, "a")); code != 0 {
					t.Fatal(errOut)
				}
				args := append([]string{"convert", "--to", "parquet", filepath.Join(dir, "a.tfrecord"), "--out", filepath.Join(dir, "b")}, extra...)
				code, stdout, errOut := run(t, args...)
				if code != 0 {
					t.Fatal(errOut)
				}
				outs, _ := filepath.Glob(filepath.Join(dir, "b*.parquet"))
				files := 1
				if slices.Contains(extra, "--shards") {
					files = 3
				}
				if len(outs) != files {
					t.Fatalf("wrote %v, want %d files", outs, files)
				}
				if !strings.HasPrefix(stdout, "wrote ") || !strings.Contains(stdout, " rows of ") {
					t.Errorf("stdout %q", stdout)
				}
				if ls := ls(t, dir); slices.ContainsFunc(ls, storage.IsTemp) {
					t.Errorf("temporaries left: %q", ls)
				}
				if code, _, errOut := run(t, "convert", "--from", "parquet", filepath.Join(dir, "b*.parquet"), "--out", filepath.Join(dir, "c")); code != 0 {
					t.Fatal(errOut)
				}
				a := readFile(t, filepath.Join(dir, "a.tfrecord"), tfrecord.None)
				c := readFile(t, filepath.Join(dir, "c.tfrecord"), tfrecord.None)
				if len(extra) == 0 {
					if len(a) != len(c) {
						t.Fatalf("%d records back, want %d", len(c), len(a))
					}
					for i := range a {
						if !slices.Equal(normalized(t, a[i:i+1]), normalized(t, c[i:i+1])) {
							t.Fatalf("record %d came back as\n%x\nwant\n%x", i, c[i], a[i])
						}
					}
				} else if !slices.Equal(normalized(t, a), normalized(t, c)) {
					t.Fatal("the records that came back are not the ones written")
				}

				srcCols := openParquet(t, src).Columns()
				for _, col := range openParquet(t, outs[0]).Columns() {
					i := slices.IndexFunc(srcCols, func(c parquet.Column) bool { return c.Name == col.Name })
					if i < 0 {
						t.Errorf("column %q is not in %s", col.Name, name)
						continue
					}
					sc := srcCols[i]
					if col.Kind != sc.Kind || !sc.List && col.List || col.Text && !sc.Text && sc.Kind == parquet.Bytes && strings.Contains(sc.Type, "STRING") {
						t.Errorf("column %q: %v list=%v text=%v, from %v list=%v %s", col.Name, col.Kind, col.List, col.Text, sc.Kind, sc.List, sc.Type)
					}
					if sc.Text && !col.Text {
						t.Errorf("string column %q is no longer text", col.Name)
					}
				}
			})
		}
	}
}

// Each feature becomes the column its values need, whatever the order the
// records show them in: a scalar, a list (a record of two values, or of
// none, or of no kind), text or binary bytes; a record without the
// feature is a null.
func TestConvertToParquetColumns(t *testing.T) {
	dir := t.TempDir()
	recs := [][]byte{
		example.New().Int64("n", 1).Float("f", 0.5).Bytes("s", []byte("a")).Bytes("b", []byte("x")).Int64("late", 1).Marshal(),
		example.New().Int64("n", 2).Floats("f", []float32{1, 2}).Bytes("s", []byte("ü")).Bytes("b", []byte{0xff}).Marshal(),
		example.New().Int64("n", 3).Floats("f", nil).Marshal(),
		example.New().Int64("n", 4).Set("e", example.Feature{}).Marshal(),
	}
	in := writeRecords(t, dir, "in.tfrecord", tfrecord.Gzip, recs...)
	if code, _, errOut := run(t, "convert", "--to", "parquet", in, "--out", filepath.Join(dir, "out.parquet")); code != 0 {
		t.Fatal(errOut)
	}
	f := openParquet(t, filepath.Join(dir, "out.parquet"))
	var got []string
	for _, c := range f.Columns() {
		got = append(got, fmt.Sprintf("%s %v list=%v text=%v", c.Name, c.Kind, c.List, c.Text))
	}
	want := []string{
		"b bytes list=false text=false",
		// No column for e, which no record gives a kind: it holds no
		// values, and a bytes list would come back as a bytes_list,
		// which parses as int64 or float no more (audit 45).
		"f float list=true text=false",
		"late int64 list=false text=false",
		"n int64 list=false text=false",
		"s bytes list=false text=true",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("columns\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	rows, err := f.Rows(nil)
	if err != nil {
		t.Fatal(err)
	}
	var table []string
	for rows.Next() {
		table = append(table, fmt.Sprintf("b=%q null=%v f=%v null=%v late=%v n=%v s=%q",
			rows.Bytes(0), rows.Null(0), rows.Floats(1), rows.Null(1), rows.Int64s(2), rows.Int64s(3), rows.Bytes(4)))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	wantRows := []string{
		`b=["x"] null=false f=[0.5] null=false late=[1] n=[1] s=["a"]`,
		`b=["\xff"] null=false f=[1 2] null=false late=[] n=[2] s=["ü"]`,
		`b=[] null=true f=[] null=false late=[] n=[3] s=[]`,
		`b=[] null=true f=[] null=true late=[] n=[4] s=[]`,
	}
	if !slices.Equal(table, wantRows) {
		t.Fatalf("rows\n%s\nwant\n%s", strings.Join(table, "\n"), strings.Join(wantRows, "\n"))
	}
}

// --columns keeps the features named, in the file's order (by name).
func TestConvertToParquetKeepsColumns(t *testing.T) {
	dir := t.TempDir()
	in := writeExamples(t, dir, "in.tfrecord", 5, tfrecord.None)
	out := filepath.Join(dir, "out")
	if code, _, errOut := run(t, "convert", "--to", "parquet", in, "--columns", "x", "--out", out); code != 0 {
		t.Fatal(errOut)
	}
	f := openParquet(t, out+".parquet")
	if cols := f.Columns(); len(cols) != 1 || cols[0].Name != "x" || cols[0].Kind != parquet.Float || cols[0].List {
		t.Fatalf("columns %+v, want x alone", cols)
	}
	rows, err := f.Rows(nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []float32
	for rows.Next() {
		got = append(got, rows.Floats(0)...)
	}
	if err := rows.Err(); err != nil || !slices.Equal(got, []float32{0, 0.5, 1, 1.5, 2}) {
		t.Fatalf("x %v (%v)", got, err)
	}
}

// --parquet-dictionary=false writes every value PLAIN: a column of two
// strings repeated takes a few bits a row in a dictionary, its bytes and
// length each PLAIN, and both files read back as the same Examples.
func TestConvertToParquetDictionary(t *testing.T) {
	dir := t.TempDir()
	var recs [][]byte
	for i := range 2000 {
		recs = append(recs, example.New().Strings("kind", []string{"cat", "dog"}[i%2]).Int64("label", int64(i%3)).Marshal())
	}
	in := writeRecords(t, dir, "in.tfrecord", tfrecord.None, recs...)
	sizes := map[string]int64{}
	for _, dict := range []string{"true", "false"} {
		out := filepath.Join(dir, "dict-"+dict)
		if code, _, errOut := run(t, "convert", "--to", "parquet", "--compression", "NONE", "--parquet-dictionary="+dict, in, "--out", out); code != 0 {
			t.Fatal(errOut)
		}
		fi, err := os.Stat(out + ".parquet")
		if err != nil {
			t.Fatal(err)
		}
		sizes[dict] = fi.Size()
		back := filepath.Join(dir, "back-"+dict)
		if code, _, errOut := run(t, "convert", "--from", "parquet", out+".parquet", "--out", back); code != 0 {
			t.Fatal(errOut)
		}
		if got := readFile(t, back+".tfrecord", tfrecord.None); !slices.Equal(normalized(t, got), normalized(t, recs)) {
			t.Errorf("--parquet-dictionary=%s: the Examples read back differ", dict)
		}
	}
	// PLAIN: 2000 × (4+3) bytes of strings and 2000 × 8 of labels.
	if sizes["false"] < 25000 || sizes["true"] > sizes["false"]/5 {
		t.Errorf("sizes with dictionaries %d, without %d: want far smaller with", sizes["true"], sizes["false"])
	}
	if code, _, errOut := run(t, "convert", "--parquet-dictionary=false", in, "--out", filepath.Join(dir, "tf")); code == 0 || !strings.Contains(errOut, "--parquet-dictionary goes with --to parquet") {
		t.Errorf("without --to parquet: exit %d, %q", code, errOut)
	}
}

// What a table cannot hold, or convert cannot read twice, is refused,
// naming the problem, and nothing is written.
func TestConvertToParquetErrors(t *testing.T) {
	dir := t.TempDir()
	mixed := writeRecords(t, dir, "mixed.tfrecord", tfrecord.None,
		example.New().Int64("x", 1).Marshal(), example.New().Float("x", 1).Marshal())
	mixedRecs := mixedRecords()
	seq := writeRecords(t, dir, "seq.tfrecord", tfrecord.None, mixedRecs[0], mixedRecs[1])
	raw := writeRecords(t, dir, "raw.tfrecord", tfrecord.None, mixedRecs[0], mixedRecs[2])
	empty := writeRecords(t, dir, "empty.tfrecord", tfrecord.None, mixedRecs[4], mixedRecs[5])
	good := writeExamples(t, dir, "good.tfrecord", 10, tfrecord.None)
	b, _ := os.ReadFile(good)
	b[len(b)-1] ^= 1 // the last record's data CRC
	corrupt := writeFile(t, filepath.Join(dir, "corrupt.tfrecord"), b)
	// A record's problems name it by its key, file:offset, which the
	// first record's length gives (audit 45: "record 1 of the input").
	second := func(name string, first []byte) string { return fmt.Sprintf("%s:%d: ", name, 16+len(first)) }
	x1 := example.New().Int64("x", 1).Marshal()
	badName := writeRecords(t, dir, "badname.tfrecord", tfrecord.None, x1, example.New().Int64("\xff\xfe", 1).Marshal())
	noName := writeRecords(t, dir, "noname.tfrecord", tfrecord.None, x1, example.New().Int64("", 1).Marshal())
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"mixed kinds", []string{mixed}, second(mixed, x1) + `feature "x" is float here and int64 in an earlier record`},
		{"sequence", []string{seq}, second(seq, mixedRecs[0]) + "the record is a SequenceExample with feature lists"},
		{"not an Example", []string{raw}, second(raw, mixedRecs[0]) + "the record is not an Example"},
		{"name not UTF-8", []string{badName}, second(badName, x1) + `feature name "\xff\xfe" is not UTF-8`},
		{"empty name", []string{noName}, second(noName, x1) + "a feature with an empty name"},
		{"no features", []string{empty}, "the 2 records hold no features"},
		{"columns of none", []string{good, "--columns", "nope,nix"}, `--columns: no record holds the features ["nix" "nope"]`},
		{"corrupt", []string{corrupt}, corrupt + ": corrupted record at 453"},
		{"stdin", []string{"-"}, "not from standard input"},
		{"codec", []string{good, "--compression", "LZ4"}, "--to parquet writes NONE, SNAPPY, GZIP or ZSTD"},
		{"format", []string{good, "--to", "csv"}, `--to must be tfrecord or parquet, not "csv"`},
		{"over its input", []string{filepath.Join(dir, "x.parquet"), "--from", "parquet"}, "is also an input"},
		{"no such feature", []string{good, "--columns", "label,nope"}, `--columns: no record holds the feature "nope"`},
		{"columns typed", []string{good, "--columns", "label:int64"}, "--columns: --to parquet takes the names of the features to keep"},
		{"columns for nothing", []string{good, "--to", "tfrecord", "--columns", "label"}, "--columns goes with --from csv, jsonl or parquet, or with --to parquet"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := ls(t, dir)
			out := filepath.Join(dir, "x")
			args := append([]string{"convert", "--to", "parquet", "--out", out}, tc.args...)
			if tc.name == "over its input" {
				writeFile(t, out+".parquet", []byte("PAR1"))
				before = ls(t, dir)
			}
			code, _, errOut := run(t, args...)
			if code == 0 || !strings.Contains(errOut, tc.want) {
				t.Fatalf("exit %d, stderr %q, want %q", code, errOut, tc.want)
			}
			if after := ls(t, dir); !slices.Equal(after, before) {
				t.Errorf("files %q, before %q", after, before)
			}
			os.Remove(out + ".parquet")
		})
	}
}

// An interrupt while the rows are written (the second pass) exits 130 or
// 143 and leaves no output and no temporaries; an earlier file of the
// output's name stays as it was.
func TestConvertToParquetInterrupted(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			var b bytes.Buffer
			w := tfrecord.NewWriter(&b)
			for i := range 1000 {
				w.Write(example.New().Int64("i", int64(i)).Marshal())
			}
			w.Close()
			s := &stallFS{data: b.Bytes(), blocked: make(chan struct{}), stallOpen: 3}
			storage.Register("stall", s)
			t.Cleanup(func() { storage.Unregister("stall") })
			dir := t.TempDir()
			old := filepath.Join(dir, "out.parquet")
			if err := os.WriteFile(old, []byte("an earlier table"), 0o644); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			var out, errOut bytes.Buffer
			code := make(chan int)
			args := []string{"convert", "--to", "parquet", "stall://in", "--input-compression", "NONE", "--out", filepath.Join(dir, "out"), "--shards", "2"}
			go func() { code <- Main(ctx, args, &out, &errOut) }()
			<-s.blocked // the second pass (the third open): rows written, temporaries open
			if len(ls(t, dir)) < 3 {
				t.Errorf("no temporaries while converting: %q", ls(t, dir))
			}
			cancel(interrupt.Error{Signal: sig})
			if got, want := <-code, 128+int(sig); got != want {
				t.Errorf("exit %d, want %d", got, want)
			}
			if errOut.String() != "sluice: interrupted\n" {
				t.Errorf("stderr %q, want sluice: interrupted", errOut.String())
			}
			if got := ls(t, dir); !slices.Equal(got, []string{"out.parquet"}) {
				t.Errorf("files left %q, want only the earlier out.parquet", got)
			}
			if b, _ := os.ReadFile(old); string(b) != "an earlier table" {
				t.Errorf("the earlier out.parquet was changed to %q", b)
			}
		})
	}
}
