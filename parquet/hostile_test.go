package parquet

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
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
			file = appendPageHeader(file, &h)
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
