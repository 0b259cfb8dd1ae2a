package parquet

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"runtime"
	"strings"
	"testing"

	"github.com/sluiceml/sluice/dataerr"
)

// This file builds hostile files byte by byte, for the tests here and as
// seeds of FuzzRows: the sizes a page or the footer claims are whatever
// a test says, not what a writer would make of them.

// A testPage is one page of a testFile: its header, whose sizes testFile
// fills in, and its bytes before compression.
type testPage struct {
	h    pageHeader
	body []byte
}

// testDataPage is a v1 data page of n entries in encoding enc, its
// levels RLE.
func testDataPage(n int32, enc encoding, body []byte) testPage {
	return testPage{pageHeader{Type: pageData, Data: &dataPageHeader{NumValues: n, Encoding: enc,
		DefinitionLevelEncoding: encRLE, RepetitionLevelEncoding: encRLE}}, body}
}

// testDictPage is a PLAIN dictionary page of n values.
func testDictPage(n int32, body []byte) testPage {
	return testPage{pageHeader{Type: pageDictionary, Dictionary: &dictionaryPageHeader{NumValues: n, Encoding: encPlain}}, body}
}

// testRLELevels is levels of a v1 page in the RLE encoding: a length,
// then one run of n entries of level v (of one byte).
func testRLELevels(n uint64, v byte) []byte {
	run := append(binary.AppendUvarint(nil, n<<1), v)
	return append(binary.LittleEndian.AppendUint32(nil, uint32(len(run))), run...)
}

// testFile builds a file of one row group of rows rows and the columns
// of schema (after its root), the chunk of each holding the pages given
// for it, compressed with codec.
func testFile(t testing.TB, schema []schemaElement, rows int64, codec codec, chunks ...[]testPage) []byte {
	t.Helper()
	file := []byte("PAR1")
	meta := fileMetaData{Version: 1, NumRows: rows, Schema: schema}
	g := rowGroup{NumRows: rows}
	leaf := 0
	for _, el := range schema[1:] {
		if !el.HasType {
			continue
		}
		pages := chunks[leaf]
		leaf++
		start := int64(len(file))
		m := columnMetaData{Type: el.Type, Encodings: []encoding{encPlain, encRLE}, PathInSchema: []string{el.Name},
			Codec: codec, DataPageOffset: start}
		data := false // a data page's offset is in m
		for _, p := range pages {
			stored := p.body
			if codec == codecGzip {
				var z bytes.Buffer
				w, _ := gzip.NewWriterLevel(&z, gzip.BestCompression)
				w.Write(p.body)
				w.Close()
				stored = z.Bytes()
			} else if codec != codecUncompressed {
				t.Fatalf("testFile compresses with gzip only, not %v", codec)
			}
			h := p.h
			h.UncompressedSize, h.CompressedSize = int32(len(p.body)), int32(len(stored))
			if h.Type == pageDictionary {
				m.DictionaryPageOffset, m.HasDictionaryPageOffset = int64(len(file)), true
			} else if !data {
				m.DataPageOffset, data = int64(len(file)), true
			}
			if h.Data != nil {
				m.NumValues += int64(h.Data.NumValues)
			}
			if h.DataV2 != nil {
				m.NumValues += int64(h.DataV2.NumValues)
			}
			file = append(file, newEnc().writePageHeader(&h, false)...)
			file = append(file, stored...)
		}
		m.TotalCompressedSize = int64(len(file)) - start
		m.TotalUncompressedSize = m.TotalCompressedSize
		g.Columns = append(g.Columns, columnChunk{FileOffset: start, HasMeta: true, Meta: m})
	}
	meta.RowGroups = []rowGroup{g}
	return testAppendFooter(file, &meta)
}

// testAppendFooter appends the footer of meta to file, and the magic.
func testAppendFooter(file []byte, meta *fileMetaData) []byte {
	footer := newEnc().writeFileMetaData(meta, false)
	file = append(file, footer...)
	file = binary.LittleEndian.AppendUint32(file, uint32(len(footer)))
	return append(file, magic...)
}

// testSchema is a root of the leaves given.
func testSchema(leaves ...schemaElement) []schemaElement {
	return append([]schemaElement{{Name: "schema", NumChildren: int32(len(leaves))}}, leaves...)
}

// testReadAll reads every readable column of every row of a file and
// returns the rows read, the error and the bytes allocated meanwhile.
func testReadAll(b []byte, opts ...Option) (rows int, err error, alloc uint64) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	defer func() {
		runtime.ReadMemStats(&after)
		alloc = after.TotalAlloc - before.TotalAlloc
	}()
	f, err := Open(bytes.NewReader(b), int64(len(b)), "hostile.parquet", opts...)
	if err != nil {
		return 0, err, 0
	}
	r, err := f.Rows(nil)
	if err != nil {
		return 0, err, 0
	}
	for r.Next() {
		rows++
	}
	return rows, r.Err(), 0
}

// checkDataError checks that err is a dataerr.Error of the hostile file
// saying want.
func checkDataError(t *testing.T, err error, want string) {
	t.Helper()
	var de *dataerr.Error
	if !errors.As(err, &de) || de.File != "hostile.parquet" || !strings.Contains(err.Error(), want) {
		t.Fatalf("error %v, want a dataerr.Error of hostile.parquet saying %q", err, want)
	}
}

// A FIXED_LEN_BYTE_ARRAY column of a length below 1 cannot be read,
// whatever its logical type: a DECIMAL one read as BYTE_STREAM_SPLIT once
// divided by its length.
func TestFixedLenNotPositive(t *testing.T) {
	for _, tc := range []struct {
		name string
		el   schemaElement
	}{
		{"decimal", schemaElement{HasConvertedType: true, ConvertedType: convDecimal, Scale: 2, Precision: 5}},
		{"logical decimal", schemaElement{Logical: logicalType{Kind: logicalDecimal, Scale: 2, Precision: 5}}},
		{"float16", schemaElement{Logical: logicalType{Kind: logicalFloat16}}},
		{"bytes", schemaElement{}},
	} {
		for _, length := range []int32{0, -1} {
			t.Run(fmt.Sprintf("%s/%d", tc.name, length), func(t *testing.T) {
				el := tc.el
				el.Name, el.HasType, el.Type, el.TypeLength = "d", true, typeFixedLenByteArray, length
				el.HasRepetition, el.Repetition = true, repRequired
				for _, enc := range []encoding{encByteStreamSplit, encPlain, encDeltaByteArray} {
					file := testFile(t, testSchema(el), 4, codecUncompressed, []testPage{testDataPage(4, enc, []byte{1, 2, 3, 4})})
					f, err := Open(bytes.NewReader(file), int64(len(file)), "hostile.parquet")
					if err != nil {
						t.Fatal(err)
					}
					want := fmt.Sprintf("FIXED_LEN_BYTE_ARRAY of length %d", length)
					if err := f.Columns()[0].Err; err == nil || !strings.Contains(err.Error(), want) {
						t.Fatalf("column error %v, want %q", err, want)
					}
					_, err, _ = testReadAll(file)
					checkDataError(t, err, want)
				}
			})
		}
	}
}

// testOverlapFile is a file of ncols columns whose chunks all claim the
// same region bytes: one page, then padding.
func testOverlapFile(ncols, region int) []byte {
	file := []byte("PAR1")
	h := pageHeader{Type: pageData, UncompressedSize: 8, CompressedSize: 8,
		Data: &dataPageHeader{NumValues: 1, Encoding: encPlain, DefinitionLevelEncoding: encRLE, RepetitionLevelEncoding: encRLE}}
	file = appendPageHeader(file, &h)
	file = append(file, make([]byte, 8)...)
	file = append(file, make([]byte, 4+region-len(file))...)
	meta := fileMetaData{Version: 1, NumRows: 1, Schema: []schemaElement{{Name: "schema", NumChildren: int32(ncols)}}}
	g := rowGroup{NumRows: 1}
	for i := range ncols {
		name := fmt.Sprintf("c%d", i)
		meta.Schema = append(meta.Schema, schemaElement{Name: name, HasType: true, Type: typeInt64, HasRepetition: true, Repetition: repRequired})
		g.Columns = append(g.Columns, columnChunk{FileOffset: 4, HasMeta: true, Meta: columnMetaData{Type: typeInt64,
			Encodings: []encoding{encPlain}, PathInSchema: []string{name}, Codec: codecUncompressed, NumValues: 1,
			TotalCompressedSize: int64(region), TotalUncompressedSize: int64(region), DataPageOffset: 4}})
	}
	meta.RowGroups = []rowGroup{g}
	return testAppendFooter(file, &meta)
}

// Column chunks that share bytes are refused when the file is opened: a
// reader's window a chunk then adds up to at most the file, where 2000
// chunks of one 256 KiB region took 500 MiB.
func TestOverlappingChunks(t *testing.T) {
	file := testOverlapFile(2000, 256<<10)
	_, err, alloc := testReadAll(file)
	checkDataError(t, err, `column "c0" of row group 0 (bytes 4 to 262148) overlaps column "c1" of row group 0`)
	if alloc > 16<<20 {
		t.Errorf("a %d KiB file made the reader allocate %d MiB", len(file)>>10, alloc>>20)
	}

	// Two chunks that overlap by a byte; then the same chunks apart.
	el := func(name string) schemaElement {
		return schemaElement{Name: name, HasType: true, Type: typeInt64, HasRepetition: true, Repetition: repRequired}
	}
	page := []testPage{testDataPage(1, encPlain, make([]byte, 8))}
	good := testFile(t, testSchema(el("a"), el("b")), 1, codecUncompressed, page, page)
	if rows, err, _ := testReadAll(good); err != nil || rows != 1 {
		t.Fatalf("%d rows, %v", rows, err)
	}
	meta := footerOf(t, good)
	meta.RowGroups[0].Columns[1].Meta.DataPageOffset--
	meta.RowGroups[0].Columns[1].Meta.TotalCompressedSize++
	end := len(good) - 8 - int(binary.LittleEndian.Uint32(good[len(good)-8:]))
	bad := testAppendFooter(bytes.Clone(good[:end]), meta)
	_, err, _ = testReadAll(bad)
	checkDataError(t, err, `column "a" of row group 0 (bytes 4 to 29) overlaps column "b" of row group 0 (bytes 28 to 54)`)
}

// A page's entries are decoded a batch at a time: every encoding of
// values and levels reads the same across batches as at once, with rows
// of nulls and values split between batches anywhere.
func TestPageBatches(t *testing.T) {
	const n = 3*entryBatch + 123
	// Every third entry is null; the values are the others'.
	defs := make([]int32, n)
	var vals int
	for i := range defs {
		if i%3 != 1 {
			defs[i] = 1
			vals++
		}
	}
	ints := make([]int64, vals)
	for i := range ints {
		ints[i] = int64(i)*7919 - 1e6
	}
	strs := make([][]byte, vals)
	for i := range strs {
		strs[i] = fmt.Appendf(nil, "value %d", i/3) // shared prefixes for DELTA_BYTE_ARRAY
	}
	var i64, i32, f32, f64, fixed, bools []byte
	for i, v := range ints {
		i64 = binary.LittleEndian.AppendUint64(i64, uint64(v))
		i32 = binary.LittleEndian.AppendUint32(i32, uint32(v))
		f32 = binary.LittleEndian.AppendUint32(f32, math.Float32bits(float32(v)))
		f64 = binary.LittleEndian.AppendUint64(f64, math.Float64bits(float64(v)))
		fixed = append(fixed, byte(v), byte(v>>8), byte(v>>16))
		if i%8 == 0 {
			bools = append(bools, 0)
		}
		if v%3 == 0 {
			bools[len(bools)-1] |= 1 << (i % 8)
		}
	}
	boolLevels := make([]int32, vals)
	for i, v := range ints {
		if v%3 == 0 {
			boolLevels[i] = 1
		}
	}
	rle := testEncHybrid(boolLevels, 1)
	rleBools := append(binary.LittleEndian.AppendUint32(nil, uint32(len(rle))), rle...)
	layout := testEncDeltaLayouts[0]
	for _, tc := range []struct {
		name string
		typ  physicalType
		size int32
		enc  encoding
		body []byte
	}{
		{"int64 plain", typeInt64, 0, encPlain, i64},
		{"int64 delta", typeInt64, 0, encDeltaBinaryPacked, testEncDelta(ints, layout)},
		{"int64 split", typeInt64, 0, encByteStreamSplit, testEncSplit(i64, 8)},
		{"int32 delta", typeInt32, 0, encDeltaBinaryPacked, testEncDelta(ints, layout)},
		{"int32 split", typeInt32, 0, encByteStreamSplit, testEncSplit(i32, 4)},
		{"float split", typeFloat, 0, encByteStreamSplit, testEncSplit(f32, 4)},
		{"double split", typeDouble, 0, encByteStreamSplit, testEncSplit(f64, 8)},
		{"fixed split", typeFixedLenByteArray, 3, encByteStreamSplit, testEncSplit(fixed, 3)},
		{"fixed plain", typeFixedLenByteArray, 3, encPlain, fixed},
		{"boolean plain", typeBoolean, 0, encPlain, bools},
		{"boolean rle", typeBoolean, 0, encRLE, rleBools},
		{"bytes plain", typeByteArray, 0, encPlain, testEncPlainByteArray(strs)},
		{"bytes delta length", typeByteArray, 0, encDeltaLengthByteArray, testEncDeltaLength(strs, layout)},
		{"bytes delta", typeByteArray, 0, encDeltaByteArray, testEncDeltaBytes(strs, layout)},
	} {
		el := schemaElement{Name: "x", HasType: true, Type: tc.typ, TypeLength: tc.size, HasRepetition: true, Repetition: repOptional}
		hybrid := testEncHybrid(defs, 1)
		levelsRLE := append(binary.LittleEndian.AppendUint32(nil, uint32(len(hybrid))), hybrid...)
		v1 := testDataPage(n, tc.enc, append(bytes.Clone(levelsRLE), tc.body...))
		packed := testDataPage(n, tc.enc, append(testEncPackMSB(defs, 1), tc.body...))
		packed.h.Data.DefinitionLevelEncoding = encBitPacked
		v2 := testPage{pageHeader{Type: pageDataV2, DataV2: &dataPageHeaderV2{NumValues: n, NumNulls: int32(n - vals), NumRows: n,
			Encoding: tc.enc, DefinitionLevelsByteLength: int32(len(hybrid))}}, append(bytes.Clone(hybrid), tc.body...)}
		for _, levels := range []struct {
			name string
			page testPage
		}{{"rle", v1}, {"bit-packed", packed}, {"v2", v2}} {
			t.Run(tc.name+"/"+levels.name, func(t *testing.T) {
				file := testFile(t, testSchema(el), n, codecUncompressed, []testPage{levels.page})
				f, err := Open(bytes.NewReader(file), int64(len(file)), "hostile.parquet")
				if err != nil {
					t.Fatal(err)
				}
				rows, err := f.Rows(nil)
				if err != nil {
					t.Fatal(err)
				}
				k := 0 // the next value
				for i := 0; rows.Next(); i++ {
					if rows.Null(0) != (defs[i] == 0) {
						t.Fatalf("row %d: null %v", i, rows.Null(0))
					}
					if rows.Null(0) {
						continue
					}
					var got, want string
					v := ints[k]
					switch tc.typ {
					case typeInt64, typeInt32:
						got, want = fmt.Sprint(rows.Int64s(0)), fmt.Sprint([]int64{v})
					case typeFloat, typeDouble:
						got, want = fmt.Sprint(rows.Floats(0)), fmt.Sprint([]float32{float32(v)})
					case typeBoolean:
						got, want = fmt.Sprint(rows.Int64s(0)), fmt.Sprint([]int64{int64(boolLevels[k])})
					case typeFixedLenByteArray:
						got, want = fmt.Sprint(rows.Bytes(0)), fmt.Sprint([][]byte{fixed[3*k : 3*k+3]})
					default:
						got, want = fmt.Sprint(rows.Bytes(0)), fmt.Sprint([][]byte{strs[k]})
					}
					if got != want {
						t.Fatalf("row %d: %s, want %s", i, got, want)
					}
					k++
				}
				if err := rows.Err(); err != nil || k != vals {
					t.Fatalf("%d values of %d: %v", k, vals, err)
				}
			})
		}
	}
}

// testBombFile is a file of one optional INT64 column: a dictionary of
// one value, then a gzip data page of n entries, each the value (one RLE
// run of levels, one of indices), padded with zeros to pad bytes.
func testBombFile(t testing.TB, n int32, pad int) []byte {
	body := testRLELevels(uint64(n), 1)
	body = append(body, 1) // the indices' bit width
	body = append(binary.AppendUvarint(body, uint64(n)<<1), 0)
	body = append(body, make([]byte, max(pad-len(body), 0))...)
	el := schemaElement{Name: "x", HasType: true, Type: typeInt64, HasRepetition: true, Repetition: repOptional}
	return testFile(t, testSchema(el), int64(n), codecGzip, []testPage{testDictPage(1, make([]byte, 8)), testDataPage(n, encRLEDictionary, body)})
}

// testNullsFile is a file of one optional INT64 column of n rows, every
// one null: a page of a few bytes of levels, v1 or v2.
func testNullsFile(t testing.TB, n int32, v2 bool) []byte {
	el := schemaElement{Name: "x", HasType: true, Type: typeInt64, HasRepetition: true, Repetition: repOptional}
	page := testDataPage(n, encPlain, testRLELevels(uint64(n), 0))
	if v2 {
		run := testRLELevels(uint64(n), 0)[4:]
		page = testPage{pageHeader{Type: pageDataV2, DataV2: &dataPageHeaderV2{NumValues: n, NumNulls: n, NumRows: n,
			Encoding: encPlain, DefinitionLevelsByteLength: int32(len(run))}}, run}
	}
	return testFile(t, testSchema(el), int64(n), codecUncompressed, []testPage{page})
}

// testLongListFile is our Writer's file of one row: a list of n zeros,
// which it writes as one page of a few bytes (a row is never split).
func testLongListFile(t testing.TB, n int) []byte {
	return writeRows(t, []Column{{Name: "l", Kind: Int64, List: true}}, []testRow{{make([]int64, n)}}, WriterOptions{Compression: Snappy})
}

// Pages whose runs pack millions of entries into a few bytes are read, as
// pyarrow reads them: a row of a list of 2^21 values, which our Writer
// writes, and pages of 3 million nulls. Where they once were refused, the
// memory they take is now a page and a batch of entries, and a row's
// values, which MaxPageSize bounds.
func TestManyEntriesInFewBytes(t *testing.T) {
	const nulls = 3 << 20
	for _, tc := range []struct {
		name       string
		file       []byte
		rows, vals int
	}{
		{"long list", testLongListFile(t, 2<<20), 1, 2 << 20},
		{"nulls", testNullsFile(t, nulls, false), nulls, 0},
		{"nulls v2", testNullsFile(t, nulls, true), nulls, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := Open(bytes.NewReader(tc.file), int64(len(tc.file)), "hostile.parquet")
			if err != nil {
				t.Fatal(err)
			}
			rows, err := f.Rows(nil)
			if err != nil {
				t.Fatal(err)
			}
			n, vals := 0, 0
			for rows.Next() {
				n++
				vals += len(rows.Int64s(0))
			}
			if err := rows.Err(); err != nil || n != tc.rows || vals != tc.vals {
				t.Fatalf("%d rows of %d values, want %d of %d: %v", n, vals, tc.rows, tc.vals, err)
			}
		})
	}
	// A row's values past MaxPageSize are an error naming the row, the
	// column, the row group and the page.
	file := testLongListFile(t, 2<<20)
	_, err, _ := testReadAll(file, MaxPageSize(1<<20))
	checkDataError(t, err, `row 0, column "l", row group 0, page at offset 33: the row's values take more than the 1048576-byte limit (MaxPageSize)`)
	if _, err, _ := testReadAll(file, MaxPageSize(16<<20+1)); err != nil {
		t.Fatalf("a row of 16 MiB with a limit of 16 MiB: %v", err)
	}
}

// The memory a page takes is bounded by its bytes decompressed, not by
// the entries it claims: an 8 KiB file of a gzip page of 8 MiB claiming
// 64 million entries once had the reader allocate 3.3 GiB for levels,
// indices and values.
func TestPageEntriesDoNotSizeMemory(t *testing.T) {
	const pad = 8 << 20
	file := testBombFile(t, 8*pad, pad)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f, err := Open(bytes.NewReader(file), int64(len(file)), "hostile.parquet")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := f.Rows(nil)
	if err != nil {
		t.Fatal(err)
	}
	for range 100_000 {
		if !rows.Next() {
			t.Fatal(rows.Err())
		}
	}
	runtime.ReadMemStats(&after)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > pad+4<<20 {
		t.Errorf("a %d-byte file of one %d-byte page made the reader allocate %d MiB", len(file), pad, alloc>>20)
	}
}

// hostileSeeds are files of this file's tests, small enough for FuzzRows.
func hostileSeeds(t testing.TB) [][]byte {
	el := schemaElement{Name: "d", HasType: true, Type: typeFixedLenByteArray, HasRepetition: true, Repetition: repRequired,
		HasConvertedType: true, ConvertedType: convDecimal, Scale: 2, Precision: 5}
	return [][]byte{
		testFile(t, testSchema(el), 4, codecUncompressed, []testPage{testDataPage(4, encByteStreamSplit, []byte{1, 2, 3, 4})}),
		testOverlapFile(20, 4<<10),
		testBombFile(t, 1<<22, 64<<10),
		testNullsFile(t, 1<<21, false),
		testNullsFile(t, 1<<21, true),
		testLongListFile(t, 1<<21),
	}
}

// A GZIP page is checked as it is inflated: its member's CRC-32 and size,
// which only the read past the page's bytes reaches, fail the page. They
// were read and their error dropped, so a flipped bit in the compressed
// data came out as another value (audit 34); a file without page CRCs
// (pyarrow's default) has no other check.
func TestGzipPageChecksum(t *testing.T) {
	el := schemaElement{Name: "x", HasType: true, Type: typeInt64, HasRepetition: true, Repetition: repRequired}
	var body []byte
	for i := range 100 {
		body = binary.LittleEndian.AppendUint64(body, uint64(i))
	}
	for _, tc := range []struct {
		name  string
		field int // of the member's trailer: 0 the CRC-32, 4 the size
	}{{"CRC-32", 0}, {"size", 4}} {
		file := testFile(t, testSchema(el), 100, codecGzip, []testPage{testDataPage(100, encPlain, body)})
		if rows, err, _ := testReadAll(file); err != nil || rows != 100 {
			t.Fatalf("the file whole: %d rows, %v", rows, err)
		}
		// The member ends the column chunk, just before the footer: its
		// trailer is the CRC-32, then the size (100·8 = 800).
		at := bytes.LastIndex(file, binary.LittleEndian.AppendUint32(nil, 800)) - 4
		if at < 0 {
			t.Fatal("no gzip trailer")
		}
		file[at+tc.field] ^= 0x01
		if rows, err, _ := testReadAll(file); !errors.Is(err, gzip.ErrChecksum) {
			t.Errorf("a GZIP page whose %s is wrong: %d rows, %v; want gzip.ErrChecksum", tc.name, rows, err)
		}
	}
}

// A dictionary's decoded values count against the page limit, as a row's
// do: a bit becomes a bool and an int64, a one-byte array two slices, so a
// dictionary page within the limit could take 9 to 72 times it (a 16 KB
// GZIP file took 4 GB and 17 s; audit 34). One the limit holds decodes.
func TestDictionaryDecodedSize(t *testing.T) {
	const page = 1 << 20
	for _, tc := range []struct {
		name string
		typ  physicalType
		n    int32 // values in the page's bytes
		ok   bool
	}{
		{"bool", typeBoolean, 8 * page, false},
		{"bytes", typeByteArray, page / 4, false},
		{"fixed1", typeFixedLenByteArray, page, false},
		{"bool within", typeBoolean, page / 9 / 2, true},
		{"fixed1 within", typeFixedLenByteArray, page / 48 / 2, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			el := schemaElement{Name: "x", HasType: true, Type: tc.typ, HasRepetition: true, Repetition: repRequired, TypeLength: 1}
			// One row, dictionary index 0 (a bit width of 0, one run).
			file := testFile(t, testSchema(el), 1, codecGzip, []testPage{
				testDictPage(tc.n, make([]byte, page)), testDataPage(1, encRLEDictionary, []byte{0, 2, 0})})
			rows, err, alloc := testReadAll(file, MaxPageSize(page))
			if tc.ok != (err == nil) || !tc.ok && !strings.Contains(fmt.Sprint(err), "over the 1048576-byte page limit") {
				t.Errorf("%d rows, %v", rows, err)
			}
			// The page, inflated; its copy the values alias; the
			// decoded values, up to the limit; buffers grown to them.
			if alloc > 8*page {
				t.Errorf("allocated %d bytes for a page limit of %d", alloc, page)
			}
		})
	}
}

// A codec the format does not define is damage to the footer, which Open
// refuses, not a compression sluice leaves out: as one, the column was
// only left unread, and verify passed the file as sound (audit 49).
func TestCodecNotInFormat(t *testing.T) {
	el := schemaElement{Name: "a", HasType: true, Type: typeInt64, HasRepetition: true, Repetition: repRequired}
	page := []testPage{testDataPage(1, encPlain, make([]byte, 8))}
	good := testFile(t, testSchema(el), 1, codecUncompressed, page)
	end := len(good) - 8 - int(binary.LittleEndian.Uint32(good[len(good)-8:]))
	for _, c := range []codec{-60, 8} {
		meta := footerOf(t, good)
		meta.RowGroups[0].Columns[0].Meta.Codec = c
		file := testAppendFooter(bytes.Clone(good[:end]), meta)
		_, err := Open(bytes.NewReader(file), int64(len(file)), "damaged.parquet")
		if want := fmt.Sprintf("column \"a\" of row group 0: %v is not a Parquet compression codec", c); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("codec %d: %v; want %q", c, err, want)
		}
	}
}

// A stream (a pipe or device: no size) is said to be one, not "-1 bytes
// is too short for a Parquet file" (audit 84); a file under 12 bytes is
// too short, naming its size.
func TestOpenWithoutASize(t *testing.T) {
	for _, tc := range []struct {
		size int64
		want string
	}{
		{-1, "a stream (a pipe or device), which cannot be read as Parquet"},
		{5, "5 bytes is too short for a Parquet file"},
	} {
		_, err := Open(bytes.NewReader(nil), tc.size, "x.parquet")
		if err == nil || !strings.Contains(err.Error(), "x.parquet") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("size %d: %v, want %q", tc.size, err, tc.want)
		}
	}
}
