package parquet

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// A chunk falls back to PLAIN at the value that would take its dictionary
// past DictionaryPageSize: the row holding it is PLAIN, the pages before
// it dictionary-encoded if the first of them paid for the dictionary. A
// chunk whose first value is too big has no dictionary page. The next row
// group starts a dictionary afresh.
func TestWriterDictionaryFallback(t *testing.T) {
	cols := []Column{
		{Name: "big", Kind: Bytes},
		{Name: "mid", Kind: Int64, List: true},
		{Name: "few", Kind: Bytes, Text: true},
	}
	var rows []testRow
	for i := range 6 {
		row := testRow{nil, []int64{}, [][]byte{[]byte([]string{"a", "b", "c"}[i%3])}}
		if i == 2 {
			row[0] = [][]byte{bytes.Repeat([]byte{'x'}, 200)}
		} else if i > 2 {
			row[0] = [][]byte{[]byte("small")}
		}
		for j := range 5 {
			row[1] = append(row[1].([]int64), int64(5*i+j))
		}
		rows = append(rows, row)
	}
	for _, tc := range []struct {
		name  string
		group int64
		// By row group, each column's data pages: dictionary-encoded +
		// PLAIN, then its dictionary's size.
		want []string
	}{
		// 100 bytes hold 12 int64s: rows 0 and 1 take 10, and row 2's
		// third does not fit. The page of rows 0 and 1 ends there, and
		// is PLAIN: its ten distinct values take 80 bytes PLAIN, more
		// with the dictionary. "few" repeats three letters: it pays.
		{"one group", 0, []string{"0+1 0+2 1+0, 0 0 3"}},
		// A chunk of one row never pays for a dictionary.
		{"a group a row", 1, []string{
			"0+1 0+1 0+1, 0 0 0", "0+1 0+1 0+1, 0 0 0", "0+1 0+1 0+1, 0 0 0",
			"0+1 0+1 0+1, 0 0 0", "0+1 0+1 0+1, 0 0 0", "0+1 0+1 0+1, 0 0 0",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := writeRows(t, cols, rows, WriterOptions{RowGroupSize: tc.group, DictionaryPageSize: 100})
			checkEncodings(t, b)
			f, err := Open(bytes.NewReader(b), int64(len(b)), "fallback.parquet")
			if err != nil {
				t.Fatal(err)
			}
			var chunks []string
			for _, rg := range f.meta.RowGroups {
				var pages, dicts []string
				for _, c := range rg.Columns {
					n := make(map[encoding]int32) // data pages
					for _, s := range c.Meta.EncodingStats {
						if s.PageType == pageData {
							n[s.Encoding] += s.Count
						}
					}
					size := int32(0)
					if c.Meta.HasDictionaryPageOffset {
						h, _, err := parsePageHeader(b[c.Meta.DictionaryPageOffset:])
						if err != nil {
							t.Fatal(err)
						}
						size = h.Dictionary.NumValues
					}
					pages = append(pages, fmt.Sprintf("%d+%d", n[encRLEDictionary], n[encPlain]))
					dicts = append(dicts, fmt.Sprint(size))
				}
				chunks = append(chunks, strings.Join(pages, " ")+", "+strings.Join(dicts, " "))
			}
			if !slices.Equal(chunks, tc.want) {
				t.Errorf("by row group, data pages and dictionaries\n%q, want\n%q", chunks, tc.want)
			}
			_, got := readBack(t, b)
			for i, row := range rows {
				if want := renderRow(row); !reflect.DeepEqual(got[i], want) {
					t.Fatalf("row %d: %v, want %v", i, got[i], want)
				}
			}
		})
	}
}

// A chunk's first page decides whether it has a dictionary, as
// parquet-mr's writer decides: kept if the page and the dictionary take
// fewer bytes than the page PLAIN. A chunk that keeps it falls back to
// PLAIN only when the dictionary fills, the pages before staying
// dictionary-encoded.
func TestWriterDictionaryMustPay(t *testing.T) {
	var rows []testRow
	for i := range 300 {
		n := int64(i % 4)
		if i >= 200 {
			n = int64(i) // distinct from here on
		}
		rows = append(rows, testRow{[]int64{n}, []int64{int64(i)}})
	}
	cols := []Column{{Name: "repeats", Kind: Int64}, {Name: "distinct", Kind: Int64}}
	b := writeRows(t, cols, rows, WriterOptions{PageSize: 256, DictionaryPageSize: 100})
	checkEncodings(t, b)
	f, err := Open(bytes.NewReader(b), int64(len(b)), "pay.parquet")
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []struct {
		dictPages, dictValues int32
		plain                 bool
	}{
		// Rows 0 to 199 take four values; rows 200 to 207 eight more,
		// which fill the 100 bytes (12 int64s); row 208 falls back.
		{4, 12, true},
		{0, 0, true},
	} {
		m := f.meta.RowGroups[0].Columns[i].Meta
		var dictPages, plainPages int32
		for _, s := range m.EncodingStats {
			switch {
			case s.PageType == pageData && s.Encoding == encRLEDictionary:
				dictPages += s.Count
			case s.PageType == pageData && s.Encoding == encPlain:
				plainPages += s.Count
			}
		}
		var values int32
		if m.HasDictionaryPageOffset {
			h, _, err := parsePageHeader(b[m.DictionaryPageOffset:])
			if err != nil {
				t.Fatal(err)
			}
			values = h.Dictionary.NumValues
		}
		if dictPages != want.dictPages || values != want.dictValues || (plainPages > 0) != want.plain {
			t.Errorf("column %s: %d dictionary-encoded pages, %d PLAIN, a dictionary of %d; want %d, some, %d",
				cols[i].Name, dictPages, plainPages, values, want.dictPages, want.dictValues)
		}
	}
	_, got := readBack(t, b)
	for i, row := range rows {
		if want := renderRow(row); !reflect.DeepEqual(got[i], want) {
			t.Fatalf("row %d: %v, want %v", i, got[i], want)
		}
	}
}

// Floats are dictionary keys by their bits: each NaN payload and either
// zero is a value of its own, and comes back bit for bit.
func TestWriterDictionaryFloatBits(t *testing.T) {
	bits := []uint32{0x7fc00000, 0x7fc00001, 0xffc00000, 0x7f800001, 0, 0x80000000, 0x3f800000, 0x7f800000, 0xff800000}
	cols := []Column{{Name: "f", Kind: Float}, {Name: "l", Kind: Float, List: true}}
	var rows []testRow
	for i := range 3 * len(bits) {
		v := math.Float32frombits(bits[i%len(bits)])
		rows = append(rows, testRow{[]float32{v}, []float32{v, math.Float32frombits(bits[(i+1)%len(bits)])}})
	}
	for _, mode := range dictionaryModes {
		b := writeRows(t, cols, rows, WriterOptions{DictionaryPageSize: mode.size})
		f, err := Open(bytes.NewReader(b), int64(len(b)), "floats.parquet")
		if err != nil {
			t.Fatal(err)
		}
		if mode.size == 0 {
			h, _, err := parsePageHeader(b[f.meta.RowGroups[0].Columns[0].Meta.DictionaryPageOffset:])
			if err != nil || h.Dictionary.NumValues != int32(len(bits)) {
				t.Errorf("a dictionary of %+v values (%v), want %d", h.Dictionary, err, len(bits))
			}
		}
		r, err := f.Rows(nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; r.Next(); i++ {
			for c := range cols {
				got, want := r.Floats(c), rows[i][c].([]float32)
				for j := range want {
					if math.Float32bits(got[j]) != math.Float32bits(want[j]) {
						t.Fatalf("%s: row %d, column %s, value %d: bits %#x, want %#x", mode.name, i, cols[c].Name, j, math.Float32bits(got[j]), math.Float32bits(want[j]))
					}
				}
			}
		}
		if err := r.Err(); err != nil {
			t.Fatal(err)
		}
	}
}

// A dictionary-encoded page starts with the bit width of its indices:
// its largest index's, but 1 for a dictionary of one value, as pyarrow
// writes it.
func TestWriterDictionaryBitWidth(t *testing.T) {
	for _, tc := range []struct {
		distinct int
		width    byte
	}{{1, 1}, {2, 1}, {3, 2}, {256, 8}, {257, 9}, {70000, 17}} {
		var rows []testRow
		for i := range max(4*tc.distinct, 20) { // repeated, so that the dictionary pays
			rows = append(rows, testRow{[]int64{int64(i % tc.distinct)}})
		}
		b := writeRows(t, []Column{{Name: "n", Kind: Int64}}, rows, WriterOptions{PageSize: math.MaxInt})
		f, err := Open(bytes.NewReader(b), int64(len(b)), "width.parquet")
		if err != nil {
			t.Fatal(err)
		}
		at := f.meta.RowGroups[0].Columns[0].Meta.DataPageOffset
		h, n, err := parsePageHeader(b[at:])
		if err != nil {
			t.Fatal(err)
		}
		body := b[at+int64(n):]
		levels := 4 + int(binary.LittleEndian.Uint32(body)) // definition levels, and their length
		if h.Data.Encoding != encRLEDictionary || body[levels] != tc.width {
			t.Errorf("%d distinct values: a %v page of indices of %d bits, want %v and %d", tc.distinct, h.Data.Encoding, body[levels], encRLEDictionary, tc.width)
		}
		if _, got := readBack(t, b); len(got) != len(rows) || got[len(got)-1][0] != renderRow(rows[len(rows)-1])[0] {
			t.Errorf("%d distinct values: read back wrong", tc.distinct)
		}
	}
}

// Repeated strings, labels and categories, take a few bits each with
// dictionaries: several times less than PLAIN, compressed or not (ten
// labels in random order take over 3.3 bits each, however compressed).
func TestWriterDictionaryShrinksRepeatedStrings(t *testing.T) {
	labels := make([]string, 10)
	for i := range labels {
		labels[i] = fmt.Sprintf("category-%s", strings.Repeat(string(rune('a'+i)), 1+i))
	}
	r := rand.New(rand.NewPCG(3, 5))
	rows := make([]testRow, 100000)
	for i := range rows {
		rows[i] = testRow{[][]byte{[]byte(labels[r.IntN(len(labels))])}}
	}
	cols := []Column{{Name: "label", Kind: Bytes, Text: true}}
	for _, c := range []Compression{Uncompressed, Snappy, Zstd} {
		plain := len(writeRows(t, cols, rows, WriterOptions{Compression: c, DictionaryPageSize: -1}))
		dict := len(writeRows(t, cols, rows, WriterOptions{Compression: c}))
		t.Logf("%v: %d bytes PLAIN, %d with a dictionary (%.1f times less)", c, plain, dict, float64(plain)/float64(dict))
		if dict*3 > plain {
			t.Errorf("%v: %d bytes with a dictionary, %d without: want at least 3 times less", c, dict, plain)
		}
	}
}

// A dictionary numbers values in the order first seen, finds them again
// however its hash table has grown, tells apart values that differ only
// in their bits or by a prefix, and starts afresh after reset.
func TestDictionary(t *testing.T) {
	nan := math.Float32frombits(0x7fc00001)
	for _, tc := range []struct {
		kind Kind
		add  func(d *dictionary, idx []uint32, i int) ([]uint32, bool)
	}{
		{Int64, func(d *dictionary, idx []uint32, i int) ([]uint32, bool) {
			return d.addInt64s(idx, []int64{int64(i) << 40, int64(i), -int64(i)})
		}},
		{Float, func(d *dictionary, idx []uint32, i int) ([]uint32, bool) {
			return d.addFloats(idx, []float32{float32(i), -float32(i), math.Float32frombits(math.Float32bits(nan) + uint32(i))})
		}},
		{Bytes, func(d *dictionary, idx []uint32, i int) ([]uint32, bool) {
			s := []byte(fmt.Sprint(i))
			return d.addBytes(idx, [][]byte{s, s[:len(s)-1], append(s, 0)})
		}},
	} {
		d := newDictionary(tc.kind, 1<<30)
		for range 2 {
			var first []uint32
			for i := range 5000 {
				var ok bool
				if first, ok = tc.add(&d, first, i); !ok {
					t.Fatalf("%v: value %d does not fit", tc.kind, i)
				}
			}
			n := d.len()
			var again []uint32
			for i := range 5000 {
				again, _ = tc.add(&d, again, i)
			}
			if d.len() != n || !slices.Equal(first, again) {
				t.Fatalf("%v: %d values, then %d, the indices differing: values found again were added", tc.kind, n, d.len())
			}
			// Values are numbered as first seen: 0, 1, 2 for the three of
			// the first row, whose zeros are one value but as floats.
			if want := map[Kind][]uint32{Int64: {0, 0, 0, 1}, Float: {0, 1, 2, 3}, Bytes: {0, 1, 2, 3}}[tc.kind]; !slices.Equal(first[:4], want) {
				t.Errorf("%v: indices %v, want %v", tc.kind, first[:4], want)
			}
			d.reset()
		}
	}
}
