package parquet

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
	"unsafe"
)

// The test encoders below write metadata structs the way a Parquet
// writer would, so that decoding can be checked against the value that
// was encoded. With extra, every struct also carries the fields the
// decoder skips (statistics, indexes, sort orders) and unknown fields
// of every type, as a newer writer's file would.

func (e *tenc) writeFileMetaData(m *fileMetaData, extra bool) []byte {
	e.elem().i32(1, m.Version)
	e.list(2, ctStruct, len(m.Schema))
	for i := range m.Schema {
		e.writeSchemaElement(&m.Schema[i], extra)
	}
	e.i64(3, m.NumRows)
	e.list(4, ctStruct, len(m.RowGroups))
	for i := range m.RowGroups {
		e.writeRowGroup(&m.RowGroups[i], extra)
	}
	if m.KeyValue != nil {
		e.list(5, ctStruct, len(m.KeyValue))
		for _, kv := range m.KeyValue {
			e.writeKeyValue(kv, extra)
		}
	}
	if m.CreatedBy != "" {
		e.str(6, m.CreatedBy)
	}
	if m.Encrypted { // an EncryptionAlgorithm union, which is skipped
		e.begin(8).begin(1).str(1, "aad").end().end()
	}
	if m.ColumnOrders != nil { // ColumnOrder unions
		e.list(7, ctStruct, len(m.ColumnOrders))
		for _, id := range m.ColumnOrders {
			e.elem().empty(id).end()
		}
	}
	if extra {
		e.everyType(30)
	}
	return e.end().bytes()
}

func (e *tenc) writeKeyValue(kv keyValue, extra bool) {
	e.elem().str(1, kv.Key)
	if kv.Value != "" {
		e.str(2, kv.Value)
	}
	if extra {
		e.everyType(30)
	}
	e.end()
}

func (e *tenc) writeSchemaElement(s *schemaElement, extra bool) {
	e.elem()
	if s.HasType {
		e.i32(1, int32(s.Type))
	}
	if s.TypeLength != 0 {
		e.i32(2, s.TypeLength)
	}
	if s.HasRepetition {
		e.i32(3, int32(s.Repetition))
	}
	e.str(4, s.Name)
	if s.NumChildren != 0 {
		e.i32(5, s.NumChildren)
	}
	if s.HasConvertedType {
		e.i32(6, int32(s.ConvertedType))
	}
	if s.Scale != 0 || s.Precision != 0 {
		e.i32(7, s.Scale).i32(8, s.Precision)
	}
	if s.HasFieldID {
		e.i32(9, s.FieldID)
	}
	if s.Logical.Kind != 0 {
		e.writeLogicalType(10, s.Logical, extra)
	}
	if extra {
		e.everyType(30)
	}
	e.end()
}

func (e *tenc) writeLogicalType(id int16, l logicalType, extra bool) {
	e.begin(id).begin(l.Kind)
	switch l.Kind {
	case logicalDecimal:
		e.i32(1, l.Scale).i32(2, l.Precision)
	case logicalTime, logicalTimestamp:
		e.boolean(1, l.AdjustedToUTC).begin(2).empty(l.Unit).end()
	case logicalInteger:
		e.i8(1, l.BitWidth).boolean(2, l.Signed)
	}
	if extra {
		e.everyType(30)
	}
	e.end().end()
}

func (e *tenc) writeRowGroup(g *rowGroup, extra bool) {
	e.elem().list(1, ctStruct, len(g.Columns))
	for i := range g.Columns {
		e.writeColumnChunk(&g.Columns[i], extra)
	}
	e.i64(2, g.TotalByteSize).i64(3, g.NumRows)
	if extra { // sorting_columns
		e.list(4, ctStruct, 1).elem().i32(1, 0).boolean(2, false).boolean(3, true).end()
	}
	if g.FileOffset != 0 {
		e.i64(5, g.FileOffset)
	}
	if g.TotalCompressedSize != 0 {
		e.i64(6, g.TotalCompressedSize)
	}
	if extra {
		e.i16(7, 0) // ordinal
		e.everyType(30)
	}
	e.end()
}

func (e *tenc) writeColumnChunk(c *columnChunk, extra bool) {
	e.elem()
	if c.FilePath != "" {
		e.str(1, c.FilePath)
	}
	e.i64(2, c.FileOffset)
	if c.HasMeta {
		e.begin(3)
		e.writeColumnMetaData(&c.Meta, extra)
		e.end()
	}
	if c.Encrypted { // encrypted_column_metadata
		e.str(9, "")
	}
	if extra { // the offset and column indexes' places
		e.i64(4, 1000).i32(5, 20).i64(6, 1020).i32(7, 30)
		e.everyType(30)
	}
	e.end()
}

func (e *tenc) writeColumnMetaData(m *columnMetaData, extra bool) {
	e.i32(1, int32(m.Type)).list(2, ctI32, len(m.Encodings))
	for _, enc := range m.Encodings {
		e.zigzag(int64(enc))
	}
	e.list(3, ctBinary, len(m.PathInSchema))
	for _, p := range m.PathInSchema {
		e.uvarint(uint64(len(p))).raw([]byte(p)...)
	}
	e.i32(4, int32(m.Codec)).i64(5, m.NumValues).i64(6, m.TotalUncompressedSize).i64(7, m.TotalCompressedSize)
	if extra { // key_value_metadata
		e.list(8, ctStruct, 1).elem().str(1, "k").str(2, "v").end()
	}
	e.i64(9, m.DataPageOffset)
	if m.HasIndexPageOffset {
		e.i64(10, m.IndexPageOffset)
	}
	if m.HasDictionaryPageOffset {
		e.i64(11, m.DictionaryPageOffset)
	}
	if m.HasStats {
		e.writeStatistics(12, m.Stats, extra)
	}
	if m.EncodingStats != nil { // an empty list too, which decodes as one
		e.list(13, ctStruct, len(m.EncodingStats))
		for _, s := range m.EncodingStats {
			e.elem().i32(1, int32(s.PageType)).i32(2, int32(s.Encoding)).i32(3, s.Count).end()
		}
	}
	if extra {
		e.i64(14, 5000).i32(15, 64) // bloom filter
		e.begin(16).i64(1, 10).list(2, ctI64, 2).zigzag(1).zigzag(2).list(3, ctI64, 0).end()
		e.everyType(30)
	}
}

// writeStatistics writes st; with extra, the fields the decoder skips
// too (the deprecated max and min, distinct_count, exactness).
func (e *tenc) writeStatistics(id int16, st statistics, extra bool) {
	e.begin(id)
	if extra {
		e.str(1, "max").str(2, "min")
	}
	if st.HasNullCount {
		e.i64(3, st.NullCount)
	}
	if extra {
		e.i64(4, 3)
	}
	if st.HasMinMax {
		e.str(5, st.Max).str(6, st.Min)
	}
	if extra {
		e.boolean(7, true).boolean(8, false).i64(9, 0)
	}
	e.end()
}

func (e *tenc) writePageHeader(h *pageHeader, extra bool) []byte {
	e.elem().i32(1, int32(h.Type)).i32(2, h.UncompressedSize).i32(3, h.CompressedSize)
	if h.HasCRC {
		e.i32(4, h.CRC)
	}
	if d := h.Data; d != nil {
		e.begin(5).i32(1, d.NumValues).i32(2, int32(d.Encoding))
		e.i32(3, int32(d.DefinitionLevelEncoding)).i32(4, int32(d.RepetitionLevelEncoding))
		if extra {
			e.writeStatistics(5, statistics{NullCount: 0, HasNullCount: true, Min: "a", Max: "z", HasMinMax: true}, true)
			e.everyType(30)
		}
		e.end()
	}
	if extra {
		e.empty(6) // index_page_header
	}
	if d := h.Dictionary; d != nil {
		e.begin(7).i32(1, d.NumValues).i32(2, int32(d.Encoding))
		if d.IsSorted {
			e.boolean(3, true)
		}
		e.end()
	}
	if d := h.DataV2; d != nil {
		e.begin(8).i32(1, d.NumValues).i32(2, d.NumNulls).i32(3, d.NumRows).i32(4, int32(d.Encoding))
		e.i32(5, d.DefinitionLevelsByteLength).i32(6, d.RepetitionLevelsByteLength)
		if !d.IsCompressed {
			e.boolean(7, false)
		}
		if extra {
			e.writeStatistics(8, statistics{NullCount: 0, HasNullCount: true, Min: "a", Max: "z", HasMinMax: true}, true)
		}
		e.end()
	}
	if extra {
		e.everyType(30)
	}
	return e.end().bytes()
}

// metaFixture is a footer with a bit of everything: groups, every logical
// type with parameters, converted types, two row groups, key-value
// metadata with and without values. With leaves > 0 the schema has that
// many more columns, which makes its lists long.
func metaFixture(leaves int) *fileMetaData {
	leaf := func(name string, t physicalType, rep repetition) schemaElement {
		return schemaElement{Name: name, Type: t, HasType: true, Repetition: rep, HasRepetition: true}
	}
	id := leaf("id", typeInt64, repRequired)
	id.FieldID, id.HasFieldID = -1, true
	id.Logical = logicalType{Kind: logicalInteger, BitWidth: 64, Signed: true}
	id.ConvertedType, id.HasConvertedType = convInt64, true
	name := leaf("name", typeByteArray, repOptional)
	name.Logical = logicalType{Kind: logicalString}
	name.ConvertedType, name.HasConvertedType = convUTF8, true
	dec := leaf("dec", typeFixedLenByteArray, repOptional)
	dec.TypeLength, dec.Scale, dec.Precision = 16, 2, 30
	dec.ConvertedType, dec.HasConvertedType = convDecimal, true
	dec.Logical = logicalType{Kind: logicalDecimal, Scale: 2, Precision: 30}
	ts := leaf("ts", typeInt64, repOptional)
	ts.Logical = logicalType{Kind: logicalTimestamp, Unit: unitNanos, AdjustedToUTC: true}
	tm := leaf("tm", typeInt32, repRequired)
	tm.Logical = logicalType{Kind: logicalTime, Unit: unitMillis}
	u8 := leaf("u8", typeInt32, repRequired)
	u8.Logical = logicalType{Kind: logicalInteger, BitWidth: 8}
	tags := schemaElement{Name: "tags", Repetition: repOptional, HasRepetition: true, NumChildren: 1,
		ConvertedType: convList, HasConvertedType: true, Logical: logicalType{Kind: logicalList}}
	list := schemaElement{Name: "list", Repetition: repRepeated, HasRepetition: true, NumChildren: 1}
	elem := leaf("element", typeByteArray, repOptional)
	schema := []schemaElement{{Name: "schema", NumChildren: int32(7 + leaves)}, id, name, dec, ts, tm, u8, tags, list, elem}
	for i := range leaves {
		schema = append(schema, leaf(fmt.Sprintf("c%d", i), typeDouble, repOptional))
	}

	chunk := func(path []string, t physicalType, off int64, dict bool) columnChunk {
		c := columnChunk{FileOffset: off, HasMeta: true, Meta: columnMetaData{
			Type: t, Encodings: []encoding{encPlain, encRLE}, PathInSchema: path, Codec: codecZstd,
			NumValues: 3, TotalUncompressedSize: 100, TotalCompressedSize: 80, DataPageOffset: off,
		}}
		if dict {
			c.Meta.Encodings = []encoding{encPlainDictionary, encRLE, encRLEDictionary}
			c.Meta.DictionaryPageOffset, c.Meta.HasDictionaryPageOffset = off, true
			c.Meta.DataPageOffset = off + 40
			c.Meta.EncodingStats = []pageEncodingStats{{pageDictionary, encPlainDictionary, 1}, {pageData, encRLEDictionary, 2}}
		}
		return c
	}
	group := func(off int64) rowGroup {
		g := rowGroup{TotalByteSize: 1000, NumRows: 3, FileOffset: off, TotalCompressedSize: 900}
		for _, s := range schema {
			if s.HasType {
				path := []string{s.Name}
				if s.Name == "element" {
					path = []string{"tags", "list", "element"}
				}
				g.Columns = append(g.Columns, chunk(path, s.Type, off, s.Name == "name"))
				off += 80
			}
		}
		g.Columns[0].Meta.IndexPageOffset, g.Columns[0].Meta.HasIndexPageOffset = 7, true
		g.Columns[0].Meta.Stats = statistics{NullCount: 2, HasNullCount: true, Min: "\x01\x00\x00\x00\x00\x00\x00\x00", Max: "\xff\x00\x00\x00\x00\x00\x00\x00", HasMinMax: true}
		g.Columns[0].Meta.HasStats = true
		g.Columns[1].Meta.Stats, g.Columns[1].Meta.HasStats = statistics{Min: "", Max: "zz", HasMinMax: true}, true
		g.Columns[1].FilePath = "other.parquet"
		return g
	}
	orders := make([]int16, 7+leaves)
	for i := range orders {
		orders[i] = columnOrderType
	}
	return &fileMetaData{
		Version: 2, Schema: schema, NumRows: 6,
		RowGroups:    []rowGroup{group(4), group(5000)},
		KeyValue:     []keyValue{{"ARROW:schema", "/////w=="}, {"empty", ""}},
		CreatedBy:    "parquet-cpp-arrow version 26.0.1",
		ColumnOrders: orders,
	}
}

func TestParseFileMetaData(t *testing.T) {
	for _, leaves := range []int{0, 40} {
		for _, long := range []bool{false, true} {
			for _, extra := range []bool{false, true} {
				want := metaFixture(leaves)
				e := newEnc()
				e.long = long
				b := e.writeFileMetaData(want, extra)
				got, err := parseFileMetaData(b)
				if err != nil {
					t.Fatalf("leaves %d long %v extra %v: %v", leaves, long, extra, err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("leaves %d long %v extra %v:\n got %+v\nwant %+v", leaves, long, extra, got, want)
				}
				// Bytes after the struct are not looked at.
				if _, err := parseFileMetaData(append(b, 0xff, 0xff)); err != nil {
					t.Fatalf("trailing bytes: %v", err)
				}
			}
		}
	}
}

func TestParseFileMetaDataMinimal(t *testing.T) {
	// The fewest fields a footer can have: an empty file.
	b := newEnc().elem().i32(1, 1).list(2, ctStruct, 1).elem().str(4, "schema").end().
		i64(3, 0).list(4, ctStruct, 0).end().b
	got, err := parseFileMetaData(b)
	want := &fileMetaData{Version: 1, Schema: []schemaElement{{Name: "schema"}}, RowGroups: []rowGroup{}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v, %v; want %+v", got, err, want)
	}
}

func TestParseFileMetaDataEncrypted(t *testing.T) {
	m := metaFixture(0)
	m.RowGroups = m.RowGroups[:1]
	m.ColumnOrders = nil // so that field 6 is the last
	e := newEnc()
	b := e.writeFileMetaData(m, false)
	b = b[:len(b)-1] // reopen the struct, to add field 8
	e = &tenc{b: b, last: []int16{6}}
	e.begin(8).begin(1).str(1, "aad").boolean(3, false).end().end().end()
	got, err := parseFileMetaData(e.b)
	if err != nil || !got.Encrypted {
		t.Fatalf("encryption_algorithm: %v, Encrypted %v", err, got != nil && got.Encrypted)
	}
	// A column chunk with crypto metadata, or encrypted metadata.
	for _, f := range []func(*tenc){
		func(e *tenc) { e.begin(8).begin(2).list(1, ctBinary, 1).uvarint(1).raw('a').end().end() },
		func(e *tenc) { e.str(9, "secret") },
	} {
		e := newEnc().elem().i32(1, 1).list(2, ctStruct, 1).elem().str(4, "schema").end().i64(3, 0)
		e.list(4, ctStruct, 1).elem().list(1, ctStruct, 1).elem().i64(2, 0)
		f(e)
		e.end().i64(2, 0).i64(3, 0).end().end()
		got, err := parseFileMetaData(e.b)
		if err != nil || !got.RowGroups[0].Columns[0].Encrypted || got.Encrypted {
			t.Fatalf("column crypto: %v, %+v", err, got)
		}
	}
}

// pageHeaderFixtures are page headers of every kind.
func pageHeaderFixtures() []pageHeader {
	return []pageHeader{
		{Type: pageData, UncompressedSize: 100, CompressedSize: 60, Data: &dataPageHeader{
			NumValues: 10, Encoding: encRLEDictionary, DefinitionLevelEncoding: encRLE, RepetitionLevelEncoding: encBitPacked}},
		{Type: pageData, UncompressedSize: 1 << 30, CompressedSize: 1<<31 - 1, CRC: -12345, HasCRC: true, Data: &dataPageHeader{
			NumValues: 1 << 20, Encoding: encPlain, DefinitionLevelEncoding: encRLE, RepetitionLevelEncoding: encRLE}},
		{Type: pageDictionary, UncompressedSize: 8, CompressedSize: 8, Dictionary: &dictionaryPageHeader{NumValues: 2, Encoding: encPlain}},
		{Type: pageDictionary, CRC: 7, HasCRC: true, Dictionary: &dictionaryPageHeader{Encoding: encPlainDictionary, IsSorted: true}},
		{Type: pageDataV2, UncompressedSize: 50, CompressedSize: 40, DataV2: &dataPageHeaderV2{
			NumValues: 10, NumNulls: 2, NumRows: 5, Encoding: encDeltaBinaryPacked,
			DefinitionLevelsByteLength: 3, RepetitionLevelsByteLength: 4, IsCompressed: true}},
		{Type: pageDataV2, UncompressedSize: 50, CompressedSize: 50, DataV2: &dataPageHeaderV2{
			NumValues: 10, Encoding: encByteStreamSplit}},
		{Type: pageIndex, UncompressedSize: 1, CompressedSize: 1},
	}
}

func TestParsePageHeader(t *testing.T) {
	for i, want := range pageHeaderFixtures() {
		for _, long := range []bool{false, true} {
			for _, extra := range []bool{false, true} {
				e := newEnc()
				e.long = long
				b := e.writePageHeader(&want, extra)
				data := append(bytes.Clone(b), "page data"...)
				got, n, err := parsePageHeader(data)
				if err != nil || n != len(b) {
					t.Fatalf("header %d long %v extra %v: %d bytes of %d, %v", i, long, extra, n, len(b), err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("header %d long %v extra %v:\n got %+v\nwant %+v", i, long, extra, got, want)
				}
			}
		}
	}
	// is_compressed present and true reads as absent.
	b := newEnc().elem().i32(1, 3).i32(2, 0).i32(3, 0).begin(8).i32(1, 0).i32(2, 0).i32(3, 0).i32(4, 0).
		i32(5, 0).i32(6, 0).boolean(7, true).end().end().b
	if h, _, err := parsePageHeader(b); err != nil || !h.DataV2.IsCompressed {
		t.Fatalf("is_compressed true: %+v, %v", h.DataV2, err)
	}
}

// TestParsePageHeaderAllocs guards against the decoder's closures
// escaping to the heap: a data page header costs one allocation, that
// of the dataPageHeader it points to.
func TestParsePageHeaderAllocs(t *testing.T) {
	h := pageHeaderFixtures()[0]
	b := newEnc().writePageHeader(&h, true)
	allocs := testing.AllocsPerRun(100, func() {
		if _, _, err := parsePageHeader(b); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 1 {
		t.Errorf("parsePageHeader allocates %v times, want 1", allocs)
	}
}

func TestParseMetadataErrors(t *testing.T) {
	// footer opens a FileMetaData with its required fields but the row
	// groups, which the test case then writes, or not.
	footer := func() *tenc {
		return newEnc().elem().i32(1, 1).list(2, ctStruct, 1).elem().str(4, "schema").end().i64(3, 0)
	}
	// A page header with its required fields, for the test case to finish.
	page := func() *tenc { return newEnc().elem().i32(1, 0).i32(2, 10).i32(3, 10) }
	tests := []struct {
		name   string
		in     []byte
		header bool // a page header, not a footer
		err    string
		eof    bool
	}{
		{name: "empty footer", in: nil, err: "parquet: file metadata: field header at offset 0: unexpected EOF", eof: true},
		{name: "no row groups", in: footer().end().b,
			err: "parquet: file metadata: FileMetaData at offset 0 lacks required field 4 (row_groups)"},
		{name: "no schema name", in: newEnc().elem().i32(1, 1).list(2, ctStruct, 1).elem().i32(1, 1).end().b,
			err: "parquet: file metadata: field 2 (schema): element 0: SchemaElement at offset 4 lacks required field 4 (name)"},
		{name: "version as i64", in: newEnc().elem().i64(1, 1).b,
			err: "parquet: file metadata: field 1 (version): wire type i64 at offset 0, want i32"},
		{name: "version over i32", in: newEnc().elem().header(1, ctI32).zigzag(1 << 31).b,
			err: "parquet: file metadata: field 1 (version): i32: varint at offset 1 overflows 32 bits"},
		{name: "num_rows varint overflow", in: newEnc().elem().header(3, ctI64).raw(bytes.Repeat([]byte{0xff}, 12)...).b,
			err: "parquet: file metadata: field 3 (num_rows): i64: varint at offset 1 is longer than 10 bytes"},
		{name: "huge string", in: footer().list(4, ctStruct, 0).header(6, ctBinary).uvarint(1000).raw([]byte("abcdefg")...).b,
			err: "parquet: file metadata: field 6 (created_by): string length 1000 at offset 18 exceeds the 7 bytes left", eof: true},
		{name: "huge list", in: footer().header(4, ctList).raw(0xfc).uvarint(1<<30).raw(0, 0, 0).b,
			err: "parquet: file metadata: field 4 (row_groups): list size 1073741824 at offset 17 exceeds the 3 bytes left", eof: true},
		{name: "schema of i32", in: newEnc().elem().i32(1, 1).list(2, ctI32, 1).zigzag(1).b,
			err: "parquet: file metadata: field 2 (schema): list at offset 3 has i32 elements, want struct"},
		{name: "row groups as set", in: footer().header(4, ctSet).listHeader(ctStruct, 0).end().b,
			err: "parquet: file metadata: field 4 (row_groups): wire type set at offset 15, want list"},
		{name: "deep unknown field", in: append(footer().header(20, ctStruct).raw(bytes.Repeat([]byte{0x1c}, 1000)...).b, make([]byte, 1001)...),
			err: "nests deeper than 32"},
		{name: "deep unknown list", in: append(footer().header(20, ctList).raw(bytes.Repeat([]byte{0x19}, 100000)...).b, 0),
			err: "nests deeper than 32"},
		{name: "unknown type", in: footer().raw(0x4e).b,
			err: "parquet: file metadata: field header 0x4e at offset 15: unknown compact type 14"},
		{name: "negative num_children", in: newEnc().elem().i32(1, 1).list(2, ctStruct, 1).elem().str(4, "s").i32(5, -1).b,
			err: "parquet: file metadata: field 2 (schema): element 0: field 5 (num_children): negative value -1 in field at offset 7"},
		{name: "two logical types", in: newEnc().elem().list(2, ctStruct, 1).elem().str(4, "s").begin(10).empty(1).empty(3).b,
			err: "field 10 (logicalType): field 3 (LIST): second member of a union, at offset 8"},
		{name: "logical type not a struct", in: newEnc().elem().list(2, ctStruct, 1).elem().str(4, "s").begin(10).i32(1, 0).b,
			err: "field 10 (logicalType): field 1 (STRING): wire type i32 at offset 6, want struct"},
		{name: "decimal without precision", in: newEnc().elem().list(2, ctStruct, 1).elem().str(4, "s").begin(10).begin(5).i32(1, 2).end().b,
			err: "field 10 (logicalType): field 5 (DECIMAL): DecimalType at offset 7 lacks required field 2 (precision)"},
		{name: "two time units", in: newEnc().elem().list(2, ctStruct, 1).elem().str(4, "s").begin(10).begin(8).boolean(1, true).begin(2).empty(1).empty(2).b,
			err: "field 8 (TIMESTAMP): field 2 (unit): field 2 (MICROS): second member of a union"},
		{name: "bit width as i32", in: newEnc().elem().list(2, ctStruct, 1).elem().str(4, "s").begin(10).begin(10).i32(1, 8).b,
			err: "field 10 (INTEGER): field 1 (bitWidth): wire type i32 at offset 7, want i8"},
		{name: "path of i32", in: footer().list(4, ctStruct, 1).elem().list(1, ctStruct, 1).elem().begin(3).i32(1, 1).list(2, ctI32, 0).list(3, ctI32, 1).zigzag(0).b,
			err: "field 4 (row_groups): element 0: field 1 (columns): element 0: field 3 (meta_data): field 3 (path_in_schema): list at offset 25 has i32 elements, want binary"},
		{name: "column chunk without meta_data", in: footer().list(4, ctStruct, 1).elem().list(1, ctStruct, 2).elem().end().elem().end().b,
			err: "field 4 (row_groups): element 0: field 1 (columns): element 0: ColumnChunk at offset 19 lacks field 3 (meta_data)"},
		{name: "column meta without codec", in: footer().list(4, ctStruct, 1).elem().list(1, ctStruct, 1).elem().begin(3).i32(1, 1).list(2, ctI32, 0).list(3, ctBinary, 0).end().b,
			err: "field 3 (meta_data): ColumnMetaData at offset 20 lacks required field 4 (codec)"},

		{header: true, name: "empty page", in: nil, err: "parquet: page header: field header at offset 0: unexpected EOF", eof: true},
		{header: true, name: "no type", in: newEnc().elem().i32(2, 0).i32(3, 0).end().b,
			err: "parquet: page header: PageHeader at offset 0 lacks required field 1 (type)"},
		{header: true, name: "negative size", in: newEnc().elem().i32(1, 0).i32(2, 10).i32(3, -10).b,
			err: "parquet: page header: field 3 (compressed_page_size): negative value -10 in field at offset 4"},
		{header: true, name: "crc as i64", in: page().i64(4, 1).b,
			err: "parquet: page header: field 4 (crc): wire type i64 at offset 6, want i32"},
		{header: true, name: "data page header as list", in: page().list(5, ctI32, 0).b,
			err: "parquet: page header: field 5 (data_page_header): wire type list at offset 6, want struct"},
		{header: true, name: "data page header without encoding", in: page().begin(5).i32(1, 0).i32(3, 0).i32(4, 0).end().end().b,
			err: "parquet: page header: field 5 (data_page_header): DataPageHeader at offset 7 lacks required field 2 (encoding)"},
		{header: true, name: "negative num_nulls", in: page().begin(8).i32(1, 0).i32(2, -1).b,
			err: "field 8 (data_page_header_v2): field 2 (num_nulls): negative value -1"},
		{header: true, name: "is_sorted as i32", in: page().begin(7).i32(1, 0).i32(2, 0).i32(3, 1).b,
			err: "field 7 (dictionary_page_header): field 3 (is_sorted): wire type i32 at offset 11, want bool"},
		{header: true, name: "string past end", in: page().str(20, "abc").b[:10],
			err: "parquet: page header: field 20: binary length 3 at offset 8 exceeds the 1 bytes left", eof: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			var err error
			if tt.header {
				_, n, e := parsePageHeader(tt.in)
				if e != nil && n != 0 {
					t.Errorf("n = %d with an error", n)
				}
				err = e
			} else {
				m, e := parseFileMetaData(tt.in)
				if e != nil && m != nil {
					t.Errorf("metadata with an error")
				}
				err = e
			}
			checkThriftErr(t, err, tt.err, tt.eof)
			if d := time.Since(start); d > time.Second {
				t.Errorf("took %v", d)
			}
		})
	}
}

// TestMetadataTruncated cuts valid footers and page headers at every byte: the
// error must say that the input ended early, for a stream reader to
// fetch more and retry.
func TestMetadataTruncated(t *testing.T) {
	m := metaFixture(0)
	m.RowGroups = m.RowGroups[:1] // the time taken grows as the square of the size
	footer := newEnc().writeFileMetaData(m, true)
	for i := range len(footer) - 1 {
		_, err := parseFileMetaData(footer[:i])
		if !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatalf("footer cut to %d of %d bytes: %v", i, len(footer), err)
		}
	}
	for _, h := range pageHeaderFixtures() {
		b := newEnc().writePageHeader(&h, true)
		for i := range len(b) - 1 {
			if _, _, err := parsePageHeader(b[:i]); !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Fatalf("page header cut to %d of %d bytes: %v", i, len(b), err)
			}
		}
	}
}

// TestMetadataCorrupted changes every byte of a footer and of page headers:
// the decoder may succeed or fail, but not panic, and an error must
// leave no partial result. The page headers without extra fields take
// every value at every byte; the rest (the fuzz tests do more), a few.
func TestMetadataCorrupted(t *testing.T) {
	values := func(c byte) []byte { return []byte{0, 0xff, c ^ 0x80, c + 1, c - 1, 0x0c, 0x19} }
	footer := newEnc().writeFileMetaData(metaFixture(0), false)
	for i := range footer {
		for _, v := range values(footer[i]) {
			b := bytes.Clone(footer)
			b[i] = v
			if m, err := parseFileMetaData(b); (m == nil) == (err == nil) {
				t.Fatalf("byte %d = %#x: %v, %v", i, v, m, err)
			}
		}
	}
	for _, h := range pageHeaderFixtures() {
		for _, extra := range []bool{false, true} {
			hb := newEnc().writePageHeader(&h, extra)
			for i := range hb {
				vs := values(hb[i])
				if !extra {
					vs = make([]byte, 256)
					for v := range vs {
						vs[v] = byte(v)
					}
				}
				for _, v := range vs {
					b := bytes.Clone(hb)
					b[i] = v
					if _, n, err := parsePageHeader(b); (err == nil) != (n > 0) || n > len(b) {
						t.Fatalf("byte %d = %#x: %d, %v", i, v, n, err)
					}
				}
			}
		}
	}
}

func TestMetadataEnumStrings(t *testing.T) {
	tests := []struct {
		v    fmt.Stringer
		want string
	}{
		{typeBoolean, "BOOLEAN"}, {typeFixedLenByteArray, "FIXED_LEN_BYTE_ARRAY"}, {physicalType(8), "type(8)"},
		{physicalType(-1), "type(-1)"},
		{repOptional, "OPTIONAL"}, {repetition(3), "VECTOR"}, {repetition(4), "repetition(4)"},
		{encPlain, "PLAIN"}, {encoding(1), "encoding(1)"}, {encRLEDictionary, "RLE_DICTIONARY"},
		{encByteStreamSplit, "BYTE_STREAM_SPLIT"}, {encoding(10), "encoding(10)"},
		{codecLZ4Raw, "LZ4_RAW"}, {codecUncompressed, "UNCOMPRESSED"}, {codec(8), "codec(8)"},
		{pageDataV2, "DATA_PAGE_V2"}, {pageType(4), "page type(4)"},
		{convUTF8, "UTF8"}, {convTimestampMicros, "TIMESTAMP_MICROS"}, {convUint8, "UINT_8"},
		{convInt64, "INT_64"}, {convInterval, "INTERVAL"}, {convertedType(22), "converted type(22)"},
		{logicalType{}, "NONE"}, {logicalType{Kind: logicalString}, "STRING"},
		{logicalType{Kind: logicalDecimal, Precision: 9, Scale: 2}, "DECIMAL(9,2)"},
		{logicalType{Kind: logicalTimestamp, Unit: unitMicros, AdjustedToUTC: true}, "TIMESTAMP(MICROS,UTC)"},
		{logicalType{Kind: logicalTime, Unit: 7}, "TIME(unit(7),local)"},
		{logicalType{Kind: logicalInteger, BitWidth: 16}, "INTEGER(16,unsigned)"},
		{logicalType{Kind: logicalGeography}, "GEOGRAPHY"}, {logicalType{Kind: 9}, "logical type(9)"},
	}
	for _, tt := range tests {
		if got := tt.v.String(); got != tt.want {
			t.Errorf("%#v: %q, want %q", tt.v, got, tt.want)
		}
	}
}

// TestTestdataFooters decodes the footers of the .parquet files in
// testdata, and every page header of every column chunk, checking that
// they agree with each other: row counts, value counts, chunk sizes.
func TestTestdataFooters(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.parquet"))
	if len(files) == 0 {
		t.Skip("no .parquet files in testdata")
	}
	for _, name := range files {
		t.Run(filepath.Base(name), func(t *testing.T) {
			data, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			m := footerOf(t, data)
			checkSchemaTree(t, m.Schema)
			leaves := 0
			for _, s := range m.Schema {
				if s.NumChildren == 0 && s.HasType {
					leaves++
				}
			}
			var rows int64
			for i, g := range m.RowGroups {
				rows += g.NumRows
				if len(g.Columns) != leaves {
					t.Errorf("row group %d: %d columns, %d leaves in the schema", i, len(g.Columns), leaves)
				}
				for j, c := range g.Columns {
					if c.Encrypted {
						continue // its page headers are ciphertext
					}
					checkChunkPages(t, data, &c, fmt.Sprintf("row group %d column %d", i, j))
				}
			}
			if rows != m.NumRows {
				t.Errorf("row groups hold %d rows, the footer says %d", rows, m.NumRows)
			}
		})
	}
}

// footerOf finds the footer: a 4-byte little-endian length and "PAR1"
// end the file, and the FileMetaData precedes them.
func footerOf(t *testing.T, data []byte) *fileMetaData {
	t.Helper()
	if len(data) < 12 || string(data[:4]) != "PAR1" || string(data[len(data)-4:]) != "PAR1" {
		t.Fatal("not a Parquet file")
	}
	n := int(binary.LittleEndian.Uint32(data[len(data)-8:]))
	if n > len(data)-12 {
		t.Fatalf("footer length %d", n)
	}
	m, err := parseFileMetaData(data[len(data)-8-n : len(data)-8])
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// checkSchemaTree checks that the schema is a tree whose children counts
// account for every element, the root first.
func checkSchemaTree(t *testing.T, schema []schemaElement) {
	t.Helper()
	var walk func(i int) int // returns the index after i's subtree
	walk = func(i int) int {
		if i >= len(schema) {
			t.Fatalf("schema ends inside a group")
		}
		next := i + 1
		for range schema[i].NumChildren {
			next = walk(next)
		}
		return next
	}
	// The root is a group; parquet-cpp gives it a repetition, REQUIRED.
	if len(schema) == 0 || schema[0].HasType || schema[0].NumChildren == 0 {
		t.Fatalf("schema of %d elements: root %+v", len(schema), schema[:min(len(schema), 1)])
	}
	if end := walk(0); end != len(schema) {
		t.Errorf("schema tree ends at %d of %d elements", end, len(schema))
	}
}

// checkChunkPages walks the pages of a column chunk: their headers and
// compressed sizes must add up to the chunk's size, and their values
// to its value count.
func checkChunkPages(t *testing.T, data []byte, c *columnChunk, what string) {
	t.Helper()
	if !c.HasMeta {
		t.Fatalf("%s: no meta_data", what)
	}
	m := &c.Meta
	if m.TotalCompressedSize == 0 && m.NumValues == 0 {
		return // parquet-cpp writes an empty chunk of a boolean column so
	}
	pos := m.DataPageOffset
	if m.HasDictionaryPageOffset && m.DictionaryPageOffset > 0 {
		pos = m.DictionaryPageOffset
	}
	end := pos + m.TotalCompressedSize
	if pos < 4 || end > int64(len(data)) {
		t.Fatalf("%s: chunk at %d..%d of a %d-byte file", what, pos, end, len(data))
	}
	var values int64
	for pos < end {
		h, n, err := parsePageHeader(data[pos:end])
		if err != nil {
			t.Fatalf("%s: page at %d: %v", what, pos, err)
		}
		switch {
		case h.Type == pageData && h.Data != nil:
			values += int64(h.Data.NumValues)
		case h.Type == pageDataV2 && h.DataV2 != nil:
			values += int64(h.DataV2.NumValues)
		case h.Type == pageDictionary && h.Dictionary != nil:
		default:
			t.Fatalf("%s: page at %d: %+v", what, pos, h)
		}
		pos += int64(n) + int64(h.CompressedSize)
	}
	if pos != end || values != m.NumValues {
		t.Errorf("%s: pages end at %d, chunk at %d; %d values, chunk %d", what, pos, end, values, m.NumValues)
	}
}

// A footer whose list elements are tiny on the wire and large in memory
// (SchemaElements of an empty name: 3 bytes each, about 30 times that
// decoded) fails once its lists take more than the budget, rather than
// growing to 30 times the footer's size.
func TestMetadataBudget(t *testing.T) {
	const n = 200_000
	footer := []byte{0x15, 0x02, 0x19, 0xfc} // version 1; schema: a long list of structs
	footer = binary.AppendUvarint(footer, n)
	for range n {
		footer = append(footer, 0x48, 0x00, 0x00) // name "", stop
	}
	footer = append(footer, 0x00)
	_, err := parseFileMetaData(footer)
	if err == nil || !strings.Contains(err.Error(), "the metadata's lists take over") {
		t.Fatalf("error %v, want the budget's", err)
	}
	// Without the budget, the list decodes whole (and the footer fails
	// only for what it lacks), into far more memory than its bytes.
	r := thriftReader{b: footer, budget: 1 << 40}
	var m fileMetaData
	if err := r.readFileMetaData(&m); err == nil || strings.Contains(err.Error(), "take over") ||
		r.used < n*int64(unsafe.Sizeof(schemaElement{})) {
		t.Fatalf("unbounded: %d bytes of lists, %v", r.used, err)
	}
	if ratio := r.used / int64(len(footer)); ratio < 16 {
		t.Errorf("the hostile footer decodes to %d times its size, under the budget's 16: the test no longer tests it", ratio)
	}
}
