package parquet

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/sluice_*.parquet (then run tools/parquetref/readback.py)")

// A testRow holds one row's values, nil for a null column.
type testRow []any // []int64, []float32 or [][]byte

var testColumns = []Column{
	{Name: "id", Kind: Int64},
	{Name: "score", Kind: Float},
	{Name: "word", Kind: Bytes, Text: true},
	{Name: "blob", Kind: Bytes},
	{Name: "ilist", Kind: Int64, List: true},
	{Name: "flist", Kind: Float, List: true},
	{Name: "slist", Kind: Bytes, List: true, Text: true},
}

// testRows makes n rows of testColumns: nulls, empty lists, runs of the
// same level long enough for RLE runs and short enough for bit-packing,
// extreme values and bytes that are not UTF-8.
func testRows(n int) []testRow {
	r := rand.New(rand.NewPCG(7, 11))
	words := []string{"alpha", "beta", "", "ünïcødé", strings.Repeat("x", 40)}
	rows := make([]testRow, n)
	for i := range rows {
		row := make(testRow, len(testColumns))
		row[0] = []int64{int64(i)*int64(1e12) - 5e13}
		if i%7 != 3 && (i < 100 || i > 160) { // a run of nulls
			row[1] = []float32{float32(r.NormFloat64())}
		}
		if i%3 != 0 {
			row[2] = [][]byte{[]byte(words[r.IntN(len(words))])}
		}
		row[3] = [][]byte{{byte(i), 0xff, 0xfe, byte(i >> 8)}}
		switch k := r.IntN(6); {
		case k == 0: // null
		case k == 1:
			row[4] = []int64{}
		default:
			v := make([]int64, r.IntN(12))
			for j := range v {
				v[j] = r.Int64() - math.MaxInt64/2
			}
			v = append(v, math.MinInt64, math.MaxInt64)
			row[4] = v
		}
		if i >= 200 { // a long run of lists of one value
			row[5] = []float32{float32(i), float32(math.Inf(1))}[:1]
		} else if i%4 != 0 {
			row[5] = []float32{-0.5, float32(i) / 3}
		}
		if i%5 != 0 {
			v := make([][]byte, r.IntN(4))
			for j := range v {
				v[j] = []byte(words[r.IntN(len(words))])
			}
			row[6] = v
		}
		rows[i] = row
	}
	return rows
}

func writeRows(t testing.TB, cols []Column, rows []testRow, opts WriterOptions) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, cols, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range rows {
		setRow(w, row)
		if err := w.WriteRow(); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func setRow(w *Writer, row testRow) {
	for i, v := range row {
		switch v := v.(type) {
		case []int64:
			w.SetInt64s(i, v)
		case []float32:
			w.SetFloats(i, v)
		case [][]byte:
			w.SetBytes(i, v)
		}
	}
}

// renderRow writes a row as render writes what Rows reads.
func renderRow(row testRow) []string {
	out := make([]string, len(row))
	for i, v := range row {
		var parts []string
		switch v := v.(type) {
		case nil:
			out[i] = "null"
			continue
		case []int64:
			for _, x := range v {
				parts = append(parts, fmt.Sprint(x))
			}
		case []float32:
			for _, x := range v {
				parts = append(parts, fmt.Sprint(float64(x)))
			}
		case [][]byte:
			for _, x := range v {
				parts = append(parts, base64.StdEncoding.EncodeToString(x))
			}
		}
		out[i] = "[" + strings.Join(parts, ",") + "]"
	}
	return out
}

// readBack reads every row of a file with Rows.
func readBack(t testing.TB, b []byte) ([]Column, [][]string) {
	t.Helper()
	f, err := Open(bytes.NewReader(b), int64(len(b)), "written.parquet")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := f.Rows(nil)
	if err != nil {
		t.Fatal(err)
	}
	var got [][]string
	for rows.Next() {
		row := make([]string, len(rows.Columns()))
		for i := range row {
			row[i] = render(rows, i)
		}
		got = append(got, row)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if int64(len(got)) != f.NumRows() {
		t.Fatalf("read %d rows, the footer says %d", len(got), f.NumRows())
	}
	return rows.Columns(), got
}

// dictionaryModes are the ways a Writer encodes values: dictionaries of
// the default size, which testRows's chunks never fill; dictionaries so
// small that many chunks fall back to PLAIN; no dictionaries.
var dictionaryModes = []struct {
	name string
	size int
}{{"dict", 0}, {"fallback", 64}, {"plain", -1}}

func TestWriterRoundTrip(t *testing.T) {
	rows := testRows(500)
	for _, c := range []Compression{Uncompressed, Snappy, Gzip, Zstd} {
		for _, size := range []struct {
			page  int
			group int64
		}{{0, 0}, {64, 1}, {512, 4096}} {
			for _, mode := range dictionaryModes {
				t.Run(fmt.Sprintf("%v/page%d/group%d/%s", c, size.page, size.group, mode.name), func(t *testing.T) {
					opts := WriterOptions{Compression: c, PageSize: size.page, RowGroupSize: size.group, DictionaryPageSize: mode.size}
					testRoundTrip(t, rows, opts, mode.name)
				})
			}
		}
	}
}

// testRoundTrip writes rows of testColumns with opts, checks that the
// chunks' pages are encoded as the dictionary mode says, and reads the
// rows back.
func testRoundTrip(t *testing.T, rows []testRow, opts WriterOptions, mode string) {
	b := writeRows(t, testColumns, rows, opts)
	checkMode(t, b, mode)
	cols, got := readBack(t, b)
	for i, col := range cols {
		w := testColumns[i]
		if col.Name != w.Name || col.Kind != w.Kind || col.List != w.List || col.Text != w.Text {
			t.Errorf("column %d reads as %+v, want %+v", i, col, w)
		}
	}
	if len(got) != len(rows) {
		t.Fatalf("%d rows, want %d", len(got), len(rows))
	}
	for i, row := range rows {
		if want := renderRow(row); !reflect.DeepEqual(got[i], want) {
			t.Fatalf("row %d: %v, want %v", i, got[i], want)
		}
	}
}

// checkMode checks that file b's data pages are encoded as the
// dictionary mode (of dictionaryModes) says: "dict", dictionary-encoded
// pages (and PLAIN ones of the chunks whose first page did not pay for a
// dictionary); "fallback", some of each; "plain", all PLAIN.
func checkMode(t *testing.T, b []byte, mode string) {
	t.Helper()
	pages := checkEncodings(t, b)
	got := [2]bool{pages[encRLEDictionary] > 0, pages[encPlain] > 0}
	if mode == "dict" {
		// Columns whose dictionary does not pay are PLAIN.
		got[1] = false
	}
	if want := map[string][2]bool{"dict": {true, false}, "fallback": {true, true}, "plain": {false, true}}[mode]; got != want {
		t.Errorf("data pages by encoding %v; want dictionary-encoded ones %v, PLAIN ones %v", pages, want[0], want[1])
	}
}

// checkEncodings checks that each column chunk of file b says what its
// pages are as Writer writes them: a dictionary page first if a data page
// is dictionary-encoded, offsets to match, encodings and encoding_stats
// to match the pages. It returns the file's data pages by encoding.
func checkEncodings(t testing.TB, b []byte) map[encoding]int {
	t.Helper()
	f, err := Open(bytes.NewReader(b), int64(len(b)), "written.parquet")
	if err != nil {
		t.Fatal(err)
	}
	pages := make(map[encoding]int)
	for g, rg := range f.meta.RowGroups {
		for _, c := range rg.Columns {
			m := c.Meta
			where := fmt.Sprintf("row group %d, column %s", g, strings.Join(m.PathInSchema, "."))
			var dict, data []encoding // pages, in the file's order
			for at := c.FileOffset; at < c.FileOffset+m.TotalCompressedSize; {
				h, n, err := parsePageHeader(b[at:])
				if err != nil {
					t.Fatalf("%s: page at %d: %v", where, at, err)
				}
				if h.Dictionary != nil {
					if at != m.DictionaryPageOffset || !m.HasDictionaryPageOffset || len(data) > 0 {
						t.Errorf("%s: a dictionary page at %d, the chunk says %d (%v), after %d data pages", where, at, m.DictionaryPageOffset, m.HasDictionaryPageOffset, len(data))
					}
					dict = append(dict, h.Dictionary.Encoding)
				} else {
					if len(data) == 0 && at != m.DataPageOffset {
						t.Errorf("%s: the first data page at %d, the chunk says %d", where, at, m.DataPageOffset)
					}
					data = append(data, h.Data.Encoding)
					pages[h.Data.Encoding]++
				}
				at += int64(n) + int64(h.CompressedSize)
			}
			var want []pageEncodingStats
			encs := []encoding{encPlain, encRLE}
			if n := count(data, encRLEDictionary); n > 0 {
				want = append(want, pageEncodingStats{pageDictionary, encPlain, 1}, pageEncodingStats{pageData, encRLEDictionary, n})
				encs = append(encs, encRLEDictionary)
				if !slices.Equal(dict, []encoding{encPlain}) {
					t.Errorf("%s: dictionary pages %v, want one PLAIN", where, dict)
				}
			} else if len(dict) > 0 || m.HasDictionaryPageOffset {
				t.Errorf("%s: a dictionary page, and no data page using it", where)
			}
			if n := count(data, encPlain); n > 0 {
				want = append(want, pageEncodingStats{pageData, encPlain, n})
				// Only the last pages of a chunk can be PLAIN.
				if k := slices.Index(data, encPlain); count(data[k:], encPlain) != int32(len(data)-k) {
					t.Errorf("%s: data pages %v, dictionary-encoded after PLAIN", where, data)
				}
			}
			if !slices.Equal(m.EncodingStats, want) || !slices.Equal(m.Encodings, encs) {
				t.Errorf("%s: encodings %v and encoding_stats %v, want %v and %v", where, m.Encodings, m.EncodingStats, encs, want)
			}
		}
	}
	return pages
}

func count[T comparable](s []T, v T) int32 {
	n := int32(0)
	for _, x := range s {
		if x == v {
			n++
		}
	}
	return n
}

// TestWriterMatchesPyarrow holds the writer to the files in testdata that
// pyarrow and DuckDB read back (tools/parquetref/readback.py wrote their
// JSON): what pyarrow read must be the rows written, and the writer must
// still write those bytes (compressions whose bytes depend on the Go
// release, gzip's, or on a dependency's version, zstd's, are compared by
// their rows only). The files are dictionary-encoded, but for two: one
// of dictionaries so small that chunks fall back to PLAIN partway, and
// one without dictionaries. TestReadsPyarrowFiles reads the same files.
func TestWriterMatchesPyarrow(t *testing.T) {
	rows := testRows(300)
	for _, tc := range []struct {
		name  string
		opts  WriterOptions
		mode  string // of dictionaryModes
		exact bool
	}{
		{"uncompressed", WriterOptions{Compression: Uncompressed}, "dict", true},
		{"snappy", WriterOptions{Compression: Snappy}, "dict", true},
		{"gzip", WriterOptions{Compression: Gzip}, "dict", false},
		{"zstd", WriterOptions{Compression: Zstd}, "dict", false},
		{"fallback", WriterOptions{Compression: Snappy, DictionaryPageSize: 100}, "fallback", true},
		{"plain", WriterOptions{DictionaryPageSize: -1}, "plain", true},
	} {
		name := "sluice_" + tc.name
		t.Run(name, func(t *testing.T) {
			tc.opts.PageSize, tc.opts.RowGroupSize, tc.opts.CreatedBy = 512, 4096, "sluice test"
			b := writeRows(t, testColumns, rows, tc.opts)
			checkMode(t, b, tc.mode)
			path := filepath.Join("testdata", name+".parquet")
			if *update {
				if err := os.WriteFile(path, b, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if tc.exact {
				old, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(old, b) {
					t.Fatalf("the writer no longer writes %s: rewrite it with -update, then check it with tools/parquetref/readback.py", path)
				}
			}
			want := readExpectation(t, name)
			if len(want.Rows) != len(rows) {
				t.Fatalf("pyarrow read %d rows, want %d", len(want.Rows), len(rows))
			}
			for i, row := range rows {
				r := renderRow(row)
				for j := range r {
					if got := renderExpected(want.Rows[i][j], want.Columns[j].Kind); got != r[j] {
						t.Fatalf("row %d column %s: pyarrow read %s, written %s", i, testColumns[j].Name, got, r[j])
					}
				}
			}
		})
	}
}

func TestWriterRefusesBadRows(t *testing.T) {
	cols := []Column{{Name: "n", Kind: Int64}, {Name: "l", Kind: Float, List: true}}
	for _, tc := range []struct {
		name string
		set  func(w *Writer)
		want string
	}{
		{"kind", func(w *Writer) { w.SetFloats(0, []float32{1}) }, `column "n" holds int64 values, not float`},
		{"two values", func(w *Writer) { w.SetInt64s(0, []int64{1, 2}) }, `column "n" holds one value a row, not 2`},
		{"no value", func(w *Writer) { w.SetInt64s(0, nil) }, `column "n" holds one value a row, not 0`},
		{"list kind", func(w *Writer) { w.SetBytes(1, [][]byte{{1}}) }, `column "l" holds float values, not bytes`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			w, err := NewWriter(&buf, cols, WriterOptions{})
			if err != nil {
				t.Fatal(err)
			}
			w.SetInt64s(0, []int64{7})
			if err := w.WriteRow(); err != nil {
				t.Fatal(err)
			}
			w.SetFloats(1, []float32{1, 2})
			tc.set(w)
			err = w.WriteRow()
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "row 1") {
				t.Fatalf("error %v, want one naming row 1 and saying %q", err, tc.want)
			}
			// The refused row left nothing behind: the next row is row 1.
			w.SetFloats(1, []float32{3})
			if err := w.WriteRow(); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			_, got := readBack(t, buf.Bytes())
			want := [][]string{{"[7]", "null"}, {"null", "[3]"}}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("rows %v, want %v", got, want)
			}
		})
	}
}

func TestNewWriterRefusesSchema(t *testing.T) {
	for _, tc := range []struct {
		name string
		cols []Column
		opts WriterOptions
	}{
		{"no columns", nil, WriterOptions{}},
		{"empty name", []Column{{Kind: Int64}}, WriterOptions{}},
		{"same name", []Column{{Name: "a", Kind: Int64}, {Name: "a", Kind: Float}}, WriterOptions{}},
		{"name not UTF-8", []Column{{Name: "\xff", Kind: Int64}}, WriterOptions{}}, // pyarrow could not open the file (audit 45)
		{"no kind", []Column{{Name: "a"}}, WriterOptions{}},
		{"codec", []Column{{Name: "a", Kind: Int64}}, WriterOptions{Compression: 9}},
	} {
		if _, err := NewWriter(&bytes.Buffer{}, tc.cols, tc.opts); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
}

// failAfter fails every write after the first n bytes.
type failAfter struct{ n int }

var errDisk = errors.New("disk full")

func (f *failAfter) Write(b []byte) (int, error) {
	if len(b) > f.n {
		n := f.n
		f.n = 0
		return n, errDisk
	}
	f.n -= len(b)
	return len(b), nil
}

func TestWriterKeepsWriteError(t *testing.T) {
	w, err := NewWriter(&failAfter{n: 100}, testColumns, WriterOptions{RowGroupSize: 1})
	if err != nil {
		t.Fatal(err)
	}
	var werr error
	for _, row := range testRows(50) {
		setRow(w, row)
		if werr = w.WriteRow(); werr != nil {
			break
		}
	}
	if !errors.Is(werr, errDisk) {
		t.Fatalf("WriteRow: %v, want the write's error", werr)
	}
	setRow(w, testRows(1)[0])
	if err := w.WriteRow(); !errors.Is(err, errDisk) {
		t.Fatalf("WriteRow after the error: %v", err)
	}
	if err := w.Close(); !errors.Is(err, errDisk) {
		t.Fatalf("Close: %v", err)
	}
}

func TestWriterNoRows(t *testing.T) {
	b := writeRows(t, testColumns, nil, WriterOptions{})
	cols, got := readBack(t, b)
	if len(cols) != len(testColumns) || len(got) != 0 {
		t.Fatalf("%d columns and %d rows, want %d and none", len(cols), len(got), len(testColumns))
	}
}

// TestAppendHybrid decodes what appendHybrid encodes: runs of every length
// around the RLE threshold, starting at every position within a group, of
// levels (a byte each) and of dictionary indices up to 32 bits wide.
func TestAppendHybrid(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, width := range []int{1, 2, 3, 8} {
		testAppendHybrid(t, r, width, func(v uint64) uint8 { return uint8(v) })
	}
	for _, width := range []int{1, 7, 9, 16, 17, 24, 31, 32} {
		testAppendHybrid(t, r, width, func(v uint64) uint32 { return uint32(v) })
	}
	// A run of a thousand is one RLE run: a header and a byte.
	if b := appendHybrid(nil, make([]uint8, 1000), 1); len(b) != 3 {
		t.Errorf("1000 zeros take %d bytes, want 3", len(b))
	}
	// Its value takes as many bytes as the width needs.
	if b := appendHybrid(nil, make([]uint32, 1000), 17); len(b) != 5 {
		t.Errorf("1000 zeros of 17 bits take %d bytes, want 5", len(b))
	}
}

func testAppendHybrid[T uint8 | uint32](t *testing.T, r *rand.Rand, width int, conv func(uint64) T) {
	t.Helper()
	for trial := range 300 {
		var vals []T
		for len(vals) < trial {
			v := conv(r.Uint64N(1 << width))
			if r.IntN(4) == 0 {
				v = conv(1<<width - 1) // the widest value
			}
			for range 1 + r.IntN(20) {
				vals = append(vals, v)
			}
		}
		b := appendHybrid(nil, vals, width)
		got := make([]int32, len(vals))
		if _, err := decodeHybrid(b, width, got); err != nil {
			t.Fatalf("width %d, %v: %v", width, vals, err)
		}
		for i, v := range vals {
			if uint32(got[i]) != uint32(v) {
				t.Fatalf("width %d, value %d: %d, want %d (values %v)", width, i, uint32(got[i]), v, vals)
			}
		}
	}
}

// TestThriftWriterRoundTrip reads back with the footer's and the page
// header's readers what the writers wrote.
func TestThriftWriterRoundTrip(t *testing.T) {
	w, err := NewWriter(&bytes.Buffer{}, testColumns, WriterOptions{CreatedBy: "me"})
	if err != nil {
		t.Fatal(err)
	}
	m := w.meta
	m.NumRows = 1 << 40
	cols := make([]columnChunk, 20) // a list of more than 14 elements
	for i := range cols {
		cols[i] = columnChunk{FileOffset: int64(i) << 33, HasMeta: true, Meta: columnMetaData{
			Type: typeByteArray, Encodings: []encoding{encPlain, encRLE}, PathInSchema: []string{"a", "list", "element"},
			Codec: codecZstd, NumValues: -1, TotalUncompressedSize: 5, TotalCompressedSize: 1 << 50, DataPageOffset: 4}}
		if i%2 == 1 {
			m := &cols[i].Meta
			m.Encodings = []encoding{encPlain, encRLE, encRLEDictionary}
			m.DictionaryPageOffset, m.HasDictionaryPageOffset = 1<<40, true
			m.EncodingStats = []pageEncodingStats{{pageDictionary, encPlain, 1}, {pageData, encRLEDictionary, 1 << 30}, {pageData, encPlain, 2}}
		}
	}
	m.RowGroups = []rowGroup{{Columns: cols, TotalByteSize: 9, NumRows: 3, FileOffset: 4, TotalCompressedSize: 8}}
	got, err := parseFileMetaData(appendFileMetaData(nil, &m))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(*got, m) {
		t.Fatalf("read back\n%+v\nwant\n%+v", *got, m)
	}
	h := pageHeader{Type: pageData, UncompressedSize: 300, CompressedSize: math.MaxInt32, CRC: -5, HasCRC: true,
		Data: &dataPageHeader{NumValues: 77, Encoding: encPlain, DefinitionLevelEncoding: encRLE, RepetitionLevelEncoding: encRLE}}
	dict := pageHeader{Type: pageDictionary, UncompressedSize: 1 << 30, CompressedSize: 7, CRC: math.MinInt32, HasCRC: true,
		Dictionary: &dictionaryPageHeader{NumValues: math.MaxInt32, Encoding: encPlain}}
	for _, h := range []pageHeader{h, dict} {
		b := appendPageHeader(nil, &h)
		gh, n, err := parsePageHeader(append(b, 1, 2, 3))
		if err != nil {
			t.Fatal(err)
		}
		if n != len(b) || !reflect.DeepEqual(gh, h) {
			t.Fatalf("read back %+v (%d bytes), want %+v (%d)", gh, n, h, len(b))
		}
	}
}

func BenchmarkWriter(b *testing.B) {
	rows := testRows(1000)
	size := int64(len(writeRows(b, testColumns, rows, WriterOptions{})))
	for _, c := range []Compression{Uncompressed, Snappy, Zstd} {
		b.Run(c.String(), func(b *testing.B) {
			b.SetBytes(size)
			b.ReportAllocs()
			var buf bytes.Buffer
			for b.Loop() {
				buf.Reset()
				w, err := NewWriter(&buf, testColumns, WriterOptions{Compression: c})
				if err != nil {
					b.Fatal(err)
				}
				for _, row := range rows {
					setRow(w, row)
					if err := w.WriteRow(); err != nil {
						b.Fatal(err)
					}
				}
				if err := w.Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// FuzzWriterRoundTrip writes rows made from the input, with the codec,
// page, row group and dictionary sizes from it too, and reads them back:
// every row must come back as written, every chunk's metadata must say
// how its pages are encoded.
func FuzzWriterRoundTrip(f *testing.F) {
	f.Add([]byte{0, 0, 0})
	f.Add([]byte("\x03\x05some rows of values \x00\x01\x02\xff\xfe"))
	f.Add(bytes.Repeat([]byte{1, 2, 3, 4, 5, 6, 7, 250}, 40))
	f.Add(append([]byte{5, 9}, bytes.Repeat([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9}, 60)...)) // falls back
	f.Add(append([]byte{8, 40}, bytes.Repeat([]byte{6, 1, 1, 1}, 60)...))               // no dictionaries
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 2 {
			return
		}
		opts := WriterOptions{Compression: Compression(data[0] % 4), PageSize: int(data[1]) * 8, RowGroupSize: int64(data[1]) * 64,
			// Dictionaries of the default size, so small that chunks
			// fall back to PLAIN, or none.
			DictionaryPageSize: []int{0, 1 + int(data[1])/2, -1}[data[0]/4%3]}
		data = data[2:]
		take := func() byte {
			if len(data) == 0 {
				return 0
			}
			b := data[0]
			data = data[1:]
			return b
		}
		var rows []testRow
		for len(data) > 0 {
			row := make(testRow, len(testColumns))
			for i, c := range testColumns {
				b := take()
				if b%5 == 0 {
					continue // null
				}
				n := 1
				if c.List {
					n = int(b % 7)
					if b > 250 {
						n = 250 + int(b) // over 255: repetition levels past a byte's index
					}
				}
				switch c.Kind {
				case Int64:
					v := make([]int64, n)
					for j := range v {
						v[j] = int64(take()) << (8 * (b % 8))
					}
					row[i] = v
				case Float:
					v := make([]float32, n)
					for j := range v {
						v[j] = float32(take()) / 7
					}
					row[i] = v
				case Bytes:
					v := make([][]byte, n)
					for j := range v {
						k := int(take() % 9)
						v[j] = append([]byte{}, data[:min(k, len(data))]...)
						data = data[min(k, len(data)):]
					}
					row[i] = v
				}
			}
			rows = append(rows, row)
		}
		b := writeRows(t, testColumns, rows, opts)
		checkEncodings(t, b)
		_, got := readBack(t, b)
		if len(got) != len(rows) {
			t.Fatalf("%d rows, want %d", len(got), len(rows))
		}
		for i, row := range rows {
			if want := renderRow(row); !reflect.DeepEqual(got[i], want) {
				t.Fatalf("row %d: %v, want %v", i, got[i], want)
			}
		}
	})
}

// Each column chunk carries its statistics: the nulls of a column that is
// not a list, and its least and greatest values, NaNs left out, zero's
// sign as the format asks, bytes over maxStatBytes leaving them out.
func TestWriterStatistics(t *testing.T) {
	cols := []Column{
		{Name: "i", Kind: Int64},
		{Name: "f", Kind: Float},
		{Name: "z", Kind: Float},
		{Name: "s", Kind: Bytes, Text: true},
		{Name: "long", Kind: Bytes},
		{Name: "l", Kind: Int64, List: true},
		{Name: "nan", Kind: Float},
	}
	nan := float32(math.NaN())
	rows := []testRow{
		{[]int64{5}, []float32{nan}, []float32{0}, [][]byte{[]byte("m")}, [][]byte{[]byte("a")}, []int64{}, []float32{nan}},
		{[]int64{-3}, []float32{2.5}, []float32{float32(math.Copysign(0, -1))}, [][]byte{[]byte("b")}, [][]byte{make([]byte, maxStatBytes+1)}, nil, nil},
		{nil, []float32{-1}, []float32{0}, nil, [][]byte{[]byte("z")}, []int64{9, -9}, nil},
		{[]int64{7}, nil, nil, [][]byte{[]byte("zz")}, nil, nil, nil},
	}
	b := writeRows(t, cols, rows, WriterOptions{})
	f, err := Open(bytes.NewReader(b), int64(len(b)), "stats.parquet")
	if err != nil {
		t.Fatal(err)
	}
	le64 := func(v int64) string { return string(binary.LittleEndian.AppendUint64(nil, uint64(v))) }
	le32 := func(v float32) string { return string(binary.LittleEndian.AppendUint32(nil, math.Float32bits(v))) }
	want := []statistics{
		{NullCount: 1, HasNullCount: true, Min: le64(-3), Max: le64(7), HasMinMax: true},
		{NullCount: 1, HasNullCount: true, Min: le32(-1), Max: le32(2.5), HasMinMax: true},
		{NullCount: 1, HasNullCount: true, Min: le32(float32(math.Copysign(0, -1))), Max: le32(0), HasMinMax: true},
		{NullCount: 1, HasNullCount: true, Min: "b", Max: "zz", HasMinMax: true},
		{NullCount: 1, HasNullCount: true},
		{Min: le64(-9), Max: le64(9), HasMinMax: true},
		{NullCount: 3, HasNullCount: true},
	}
	if len(f.meta.RowGroups) != 1 || len(f.meta.ColumnOrders) != len(cols) {
		t.Fatalf("%d row groups, column orders %v", len(f.meta.RowGroups), f.meta.ColumnOrders)
	}
	for i, c := range f.meta.RowGroups[0].Columns {
		if !c.Meta.HasStats || c.Meta.Stats != want[i] {
			t.Errorf("column %s: statistics %+v (%v), want %+v", cols[i].Name, c.Meta.Stats, c.Meta.HasStats, want[i])
		}
	}
}

// Lists longer than 255 values, MNIST's 784 among them, keep their rows:
// each value after a row's first repeats the list (a repetition level
// made of the value's index once wrapped at 256, starting a row there).
func TestWriterLongLists(t *testing.T) {
	cols := []Column{{Name: "f", Kind: Float, List: true}, {Name: "n", Kind: Int64}}
	var rows []testRow
	for i := range 700 {
		v := make([]float32, []int{784, 256, 257, 1, 0, 1000}[i%6])
		for j := range v {
			v[j] = float32(i*1000 + j)
		}
		rows = append(rows, testRow{v, []int64{int64(i)}})
	}
	for _, page := range []int{0, 4096} {
		_, got := readBack(t, writeRows(t, cols, rows, WriterOptions{PageSize: page}))
		if len(got) != len(rows) {
			t.Fatalf("page size %d: %d rows, want %d", page, len(got), len(rows))
		}
		for i, row := range rows {
			if want := renderRow(row); !reflect.DeepEqual(got[i], want) {
				t.Fatalf("page size %d, row %d differs", page, i)
			}
		}
	}
}

// shortWriter takes only half of each write and says nothing: it breaks
// io.Writer's rule.
type shortWriter struct{ bytes.Buffer }

func (w *shortWriter) Write(p []byte) (int, error) { return w.Buffer.Write(p[:len(p)/2]) }

// A write cut short without an error is an error: Close said the file
// was written, and it was cut short (audit 101).
func TestWriterShortWrite(t *testing.T) {
	var dst shortWriter
	w, err := NewWriter(&dst, []Column{{Name: "n", Kind: Int64}}, WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w.SetInt64s(0, []int64{7})
	err = w.WriteRow()
	if err == nil {
		err = w.Close()
	}
	if !errors.Is(err, io.ErrShortWrite) {
		t.Errorf("a writer that took half of each write: %v, want io.ErrShortWrite", err)
	}
}
