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
