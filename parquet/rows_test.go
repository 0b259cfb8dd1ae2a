package parquet

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/sluiceml/sluice/dataerr"
)

// expectation is what tools/parquetref/gen.py says a test file holds.
type expectation struct {
	SameAs  string `json:"same_as"`
	Error   string `json:"error"`
	Columns []struct {
		Name string `json:"name"`
		Kind string `json:"kind"`
		List bool   `json:"list"`
	} `json:"columns"`
	Rows [][]*[]json.RawMessage `json:"rows"`
}

func readExpectation(t *testing.T, name string) expectation {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var e expectation
	if err := json.Unmarshal(b, &e); err != nil {
		t.Fatal(err)
	}
	if e.SameAs != "" {
		return readExpectation(t, e.SameAs)
	}
	return e
}

func openTestFile(t testing.TB, name string, opts ...Option) (*File, error) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name+".parquet"))
	if err != nil {
		t.Fatal(err)
	}
	return Open(bytes.NewReader(b), int64(len(b)), name+".parquet", opts...)
}

// render writes a row's value of column i as gen.py does.
func render(r *Rows, i int) string {
	if r.Null(i) {
		return "null"
	}
	var parts []string
	switch r.Columns()[i].Kind {
	case Int64:
		for _, v := range r.Int64s(i) {
			parts = append(parts, fmt.Sprint(v))
		}
	case Float:
		for _, v := range r.Floats(i) {
			parts = append(parts, fmt.Sprint(float64(v)))
		}
	default:
		for _, v := range r.Bytes(i) {
			parts = append(parts, base64.StdEncoding.EncodeToString(v))
		}
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// renderExpected writes an expected value as render does: integers as
// their JSON text, floats as the float32 they round to, bytes as their
// base64 string.
func renderExpected(v *[]json.RawMessage, kind string) string {
	if v == nil {
		return "null"
	}
	var parts []string
	for _, m := range *v {
		switch kind {
		case "float":
			f, err := strconv.ParseFloat(string(m), 64)
			if err != nil {
				panic(err)
			}
			parts = append(parts, fmt.Sprint(float64(float32(f))))
		case "bytes":
			var s string
			if err := json.Unmarshal(m, &s); err != nil {
				panic(err)
			}
			parts = append(parts, s)
		default:
			parts = append(parts, string(m))
		}
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// TestReadsPyarrowFiles reads the files pyarrow wrote
// (tools/parquetref/gen.py) and compares every value of every row with
// what pyarrow reads back.
func TestReadsPyarrowFiles(t *testing.T) {
	names, _ := filepath.Glob("testdata/*.parquet")
	if len(names) == 0 {
		t.Fatal("no test files")
	}
	for _, path := range names {
		name := strings.TrimSuffix(filepath.Base(path), ".parquet")
		t.Run(name, func(t *testing.T) {
			want := readExpectation(t, name)
			f, err := openTestFile(t, name)
			if err != nil {
				t.Fatal(err)
			}
			rows, err := f.Rows(nil)
			if want.Error != "" {
				for err == nil && rows.Next() {
				}
				if err == nil {
					err = rows.Err()
				}
				if err == nil || !strings.Contains(err.Error(), want.Error) {
					t.Fatalf("error %v, want one saying %q", err, want.Error)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			cols := rows.Columns()
			if len(cols) != len(want.Columns) {
				t.Fatalf("%d columns, want %d", len(cols), len(want.Columns))
			}
			for i, c := range cols {
				w := want.Columns[i]
				if c.Name != w.Name || c.Kind.String() != w.Kind || c.List != w.List {
					t.Errorf("column %d is %s %v list=%v, want %s %s list=%v", i, c.Name, c.Kind, c.List, w.Name, w.Kind, w.List)
				}
			}
			n := 0
			for rows.Next() {
				if n >= len(want.Rows) {
					t.Fatalf("more than %d rows", len(want.Rows))
				}
				for i := range cols {
					if got, w := render(rows, i), renderExpected(want.Rows[n][i], want.Columns[i].Kind); got != w {
						t.Errorf("row %d column %s: %s, want %s", n, cols[i].Name, got, w)
					}
				}
				n++
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
			if n != len(want.Rows) || int64(n) != f.NumRows() {
				t.Fatalf("%d rows, want %d (footer %d)", n, len(want.Rows), f.NumRows())
			}
		})
	}
}

func TestRowsChosenColumns(t *testing.T) {
	f, err := openTestFile(t, "default")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := f.Rows([]string{"slist", "i64"})
	if err != nil {
		t.Fatal(err)
	}
	if c := rows.Columns(); c[0].Name != "slist" || c[1].Name != "i64" {
		t.Fatalf("columns %v", c)
	}
	all, _ := f.Rows(nil)
	for rows.Next() {
		all.Next()
		if render(rows, 0) != render(all, 11) || render(rows, 1) != render(all, 1) {
			t.Fatalf("row %d differs from the full read", rows.Row())
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Rows([]string{"nope"}); err == nil || !strings.Contains(err.Error(), `no column "nope"`) {
		t.Fatalf("unknown column: %v", err)
	}
}

// A map column is refused only when it is read.
func TestUnsupportedColumnLeftOut(t *testing.T) {
	f, err := openTestFile(t, "map")
	if err != nil {
		t.Fatal(err)
	}
	var bad []string
	for _, c := range f.Columns() {
		if c.Err != nil {
			if !errors.Is(c.Err, ErrUnsupported) {
				t.Errorf("%s: %v does not wrap ErrUnsupported", c.Name, c.Err)
			}
			bad = append(bad, c.Name)
		}
	}
	if len(bad) == 0 {
		t.Fatal("no column refused")
	}
	_, err = f.Rows(nil)
	var de *dataerr.Error
	if !errors.As(err, &de) || de.File != "map.parquet" || !errors.Is(err, ErrUnsupported) {
		t.Fatalf("error %v", err)
	}
}

// A column whose pages are in a compression sluice lacks (LZ4), or
// encrypted under a footer in the clear, is refused as a column when the
// file opens, as a map column is, and the other column reads; both were
// found out only when a row was read, and the encrypted one as a garbled
// page header (audit 34).
func TestColumnRefusedAtOpen(t *testing.T) {
	for _, tc := range []struct{ file, why string }{
		{"lz4_column", `column "b" of row group 0: LZ4_RAW compression is not supported`},
		{"encrypted_column", `column "b" is encrypted: encrypted columns are not supported`},
	} {
		f, err := openTestFile(t, tc.file)
		if err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		cols := f.Columns()
		if len(cols) != 2 || cols[0].Err != nil || !errors.Is(cols[1].Err, ErrUnsupported) || cols[1].Err.Error() != tc.why {
			t.Errorf("%s: columns %+v", tc.file, cols)
			continue
		}
		rows, err := f.Rows([]string{"a"})
		if err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		n := 0
		for rows.Next() {
			n++
		}
		if rows.Err() != nil || n != 10 {
			t.Errorf("%s: column a: %d rows, %v", tc.file, n, rows.Err())
		}
	}
}

// A flipped byte in a page of a file with page checksums is a CRC error
// naming the file, the row and the page's offset.
func TestPageCRC(t *testing.T) {
	good, err := os.ReadFile("testdata/crc.parquet")
	if err != nil {
		t.Fatal(err)
	}
	bad := bytes.Clone(good)
	bad[200] ^= 0x10 // inside the first row group's pages
	f, err := Open(bytes.NewReader(bad), int64(len(bad)), "crc.parquet")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := f.Rows(nil)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
	}
	err = rows.Err()
	var de *dataerr.Error
	if !errors.As(err, &de) || de.File != "crc.parquet" || de.Offset < 4 || de.Offset > 200 || !strings.Contains(err.Error(), "page CRC mismatch") {
		t.Fatalf("error %v", err)
	}
}

// A file cut anywhere, or damaged anywhere in its footer, is an error that
// names the file.
func TestDamagedFiles(t *testing.T) {
	good, err := os.ReadFile("testdata/gzip_v2.parquet")
	if err != nil {
		t.Fatal(err)
	}
	read := func(b []byte) error {
		f, err := Open(bytes.NewReader(b), int64(len(b)), "d.parquet")
		if err != nil {
			return err
		}
		rows, err := f.Rows(nil)
		if err != nil {
			return err
		}
		for rows.Next() {
		}
		return rows.Err()
	}
	check := func(what string, err error) {
		t.Helper()
		var de *dataerr.Error
		if !errors.As(err, &de) || de.File != "d.parquet" {
			t.Fatalf("%s: error %v", what, err)
		}
	}
	for cut := 0; cut < len(good); cut += 101 {
		check(fmt.Sprintf("cut at %d", cut), read(good[:cut]))
	}
	footer := len(good) - 8 - int(binary.LittleEndian.Uint32(good[len(good)-8:]))
	for i := footer; i < len(good)-8; i += 7 {
		bad := bytes.Clone(good)
		bad[i] = ^bad[i]
		if err := read(bad); err != nil {
			check(fmt.Sprintf("byte %d flipped", i), err)
		}
	}
}

// A page over MaxPageSize is refused before it is read.
func TestMaxPageSize(t *testing.T) {
	f, err := openTestFile(t, "default", MaxPageSize(1000))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := f.Rows(nil)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
	}
	if err := rows.Err(); err == nil || !strings.Contains(err.Error(), "over the 1000-byte limit") {
		t.Fatalf("error %v", err)
	}
}

// BenchmarkRows reads every column of every row of pyarrow's files: one
// op is the whole file; MB/s is of the file's bytes.
func BenchmarkRows(b *testing.B) {
	for _, name := range []string{"default", "plain", "delta", "zstd"} {
		b.Run(name, func(b *testing.B) {
			data, err := os.ReadFile(filepath.Join("testdata", name+".parquet"))
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				f, err := Open(bytes.NewReader(data), int64(len(data)), name)
				if err != nil {
					b.Fatal(err)
				}
				rows, err := f.Rows(nil)
				if err != nil {
					b.Fatal(err)
				}
				for rows.Next() {
					n++
				}
				if err := rows.Err(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/row")
		})
	}
}

// BenchmarkRowsLargePages reads rows of testColumns from pages of
// thousands of entries each, which are decoded a batch at a time: one op
// is the whole file; MB/s is of the file's bytes.
func BenchmarkRowsLargePages(b *testing.B) {
	for _, mode := range dictionaryModes {
		b.Run(mode.name, func(b *testing.B) {
			data := writeRows(b, testColumns, testRows(20000), WriterOptions{Compression: Snappy, PageSize: 8 << 20, DictionaryPageSize: mode.size})
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				f, err := Open(bytes.NewReader(data), int64(len(data)), "large")
				if err != nil {
					b.Fatal(err)
				}
				rows, err := f.Rows(nil)
				if err != nil {
					b.Fatal(err)
				}
				for rows.Next() {
					n++
				}
				if err := rows.Err(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/row")
		})
	}
}

// countingReaderAt counts the reads made of it.
type countingReaderAt struct {
	r     *bytes.Reader
	reads int
}

func (c *countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	c.reads++
	return c.r.ReadAt(p, off)
}

// A column chunk of many small pages is read in one read, not two a
// page, so that an object store fetches each block once.
func TestReadsChunksWhole(t *testing.T) {
	data, err := os.ReadFile("testdata/pages.parquet")
	if err != nil {
		t.Fatal(err)
	}
	r := &countingReaderAt{r: bytes.NewReader(data)}
	f, err := Open(r, int64(len(data)), "pages.parquet")
	if err != nil {
		t.Fatal(err)
	}
	footerReads := r.reads
	rows, err := f.Rows(nil)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	chunks := len(f.meta.RowGroups) * len(f.cols)
	pages := 0
	for g := range f.meta.RowGroups {
		for i := range f.cols {
			start, end := chunkBounds(&f.meta.RowGroups[g].Columns[i].Meta)
			for off := start; off < end; {
				b, _ := (&pageReader{r: bytes.NewReader(data), end: end, window: 1 << 20}).bytes(off, int(min(256, end-off)))
				h, n, err := parsePageHeader(b)
				if err != nil {
					t.Fatal(err)
				}
				off += int64(n) + int64(h.CompressedSize)
				pages++
			}
		}
	}
	if got := r.reads - footerReads; got != chunks || pages <= chunks {
		t.Fatalf("%d reads for %d chunks of %d pages", got, chunks, pages)
	}
}

func TestColumnTypes(t *testing.T) {
	f, err := openTestFile(t, "logical")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"u32": "INT32 (INTEGER(32,unsigned))", "day": "INT32 (DATE)", "dec": "FIXED_LEN_BYTE_ARRAY (DECIMAL(9,2))",
		"ts_ms": "INT64 (TIMESTAMP(MILLIS,UTC))", "half": "FIXED_LEN_BYTE_ARRAY (FLOAT16)", "fixed": "FIXED_LEN_BYTE_ARRAY",
	}
	for _, c := range f.Columns() {
		if w, ok := want[c.Name]; ok && c.Type != w {
			t.Errorf("%s: type %q, want %q", c.Name, c.Type, w)
		}
	}
}

// Skip passes over whole row groups unread and lands on the same row as
// reading would.
func TestSkip(t *testing.T) {
	f, err := openTestFile(t, "pages") // row groups of 128 rows
	if err != nil {
		t.Fatal(err)
	}
	var all []string
	rows, _ := f.Rows(nil)
	for rows.Next() {
		all = append(all, render(rows, 9)+render(rows, 1))
	}
	for _, n := range []int64{0, 1, 127, 128, 129, 256, 299} {
		r := &countingReaderAt{r: bytes.NewReader(mustRead(t, "testdata/pages.parquet"))}
		f, err := Open(r, int64(r.r.Len()), "pages.parquet")
		if err != nil {
			t.Fatal(err)
		}
		rows, _ := f.Rows(nil)
		before := r.reads
		if err := rows.Skip(n); err != nil {
			t.Fatalf("skip %d: %v", n, err)
		}
		if n%128 == 0 && r.reads != before {
			t.Errorf("skip %d: %d reads for whole row groups", n, r.reads-before)
		}
		if !rows.Next() || rows.Row() != n || render(rows, 9)+render(rows, 1) != all[n] {
			t.Fatalf("skip %d: then row %d, %v", n, rows.Row(), rows.Err())
		}
	}
	rows, _ = f.Rows(nil)
	if err := rows.Skip(301); err == nil || !strings.Contains(err.Error(), "past the last") {
		t.Fatalf("skip past the end: %v", err)
	}
}

func mustRead(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A Rows reset onto other files reads each as a new one would.
func TestRowsReset(t *testing.T) {
	read := func(r *Rows) string {
		var b strings.Builder
		for r.Next() {
			for i := range r.Columns() {
				b.WriteString(render(r, i))
			}
			b.WriteByte('\n')
		}
		if err := r.Err(); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	r := new(Rows)
	for _, name := range []string{"default", "logical", "zstd", "delta", "default"} {
		f, err := openTestFile(t, name)
		if err != nil {
			t.Fatal(err)
		}
		fresh, err := f.Rows(nil)
		if err != nil {
			t.Fatal(err)
		}
		want := read(fresh)
		if err := r.Reset(f, nil); err != nil {
			t.Fatal(err)
		}
		r.Next() // stop part-way: Reset must start the next file afresh
		if err := r.Reset(f, nil); err != nil {
			t.Fatal(err)
		}
		if got := read(r); got != want {
			t.Fatalf("%s read after a Reset differs", name)
		}
	}
}

// A value with no Example value fails the row that holds it, whose
// values before it are read: the error names that row, whether the value
// is in the page or in its dictionary (gen.py's uint64_big files: an
// unsigned value above int64's range at row 5, after a null at row 2).
func TestValueErrorNamesItsRow(t *testing.T) {
	for _, name := range []string{"uint64_big", "uint64_big_dict"} {
		t.Run(name, func(t *testing.T) {
			f, err := openTestFile(t, name)
			if err != nil {
				t.Fatal(err)
			}
			rows, err := f.Rows(nil)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for rows.Next() {
				got = append(got, render(rows, 0))
			}
			if want := []string{"[1]", "[2]", "null", "[3]", "[4]"}; !slices.Equal(got, want) {
				t.Errorf("rows before the error: %v, want %v", got, want)
			}
			var de *dataerr.Error
			if err := rows.Err(); !errors.As(err, &de) || de.Record != 5 || de.File != name+".parquet" ||
				!strings.Contains(err.Error(), "9223372036854775813 is above int64's range") {
				t.Fatalf("error %v, want one about row 5's value", err)
			}
			// Skip meets it too, and so does a Reset and a read again.
			if err := rows.Reset(f, nil); err != nil {
				t.Fatal(err)
			}
			if err := rows.Skip(7); !errors.As(err, &de) || de.Record != 5 {
				t.Errorf("Skip(7): %v, want the error of row 5", err)
			}
		})
	}
}
