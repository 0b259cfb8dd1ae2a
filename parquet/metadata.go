package parquet

// Parquet's footer (FileMetaData) and page headers, decoded from the
// Thrift Compact Protocol into Go structs. Only the fields a reader of
// the data needs are kept; the rest (statistics, indexes, sort orders,
// bloom filters) are skipped, as are fields newer than this decoder.
// The field ids are those of parquet.thrift in apache/parquet-format.
//
// The decoder checks the wire format: required fields, wire types, and
// that sizes and counts in page headers are not negative, since they
// size reads. It does not check the meaning: enum values it has no name
// for, offsets past the file's end, a schema whose children do not add
// up, are the reader's to reject when it uses them.

import "fmt"

// physicalType is Parquet's Type: how values are stored.
type physicalType int32

const (
	typeBoolean           physicalType = 0
	typeInt32             physicalType = 1
	typeInt64             physicalType = 2
	typeInt96             physicalType = 3
	typeFloat             physicalType = 4
	typeDouble            physicalType = 5
	typeByteArray         physicalType = 6
	typeFixedLenByteArray physicalType = 7
)

var physicalTypeNames = [...]string{
	typeBoolean: "BOOLEAN", typeInt32: "INT32", typeInt64: "INT64", typeInt96: "INT96",
	typeFloat: "FLOAT", typeDouble: "DOUBLE", typeByteArray: "BYTE_ARRAY",
	typeFixedLenByteArray: "FIXED_LEN_BYTE_ARRAY",
}

func (t physicalType) String() string { return enumName(int32(t), physicalTypeNames[:], "type") }

// repetition is Parquet's FieldRepetitionType.
type repetition int32

const (
	repRequired repetition = 0
	repOptional repetition = 1
	repRepeated repetition = 2
)

// VECTOR (3) is newer than this package; it has a name for messages only.
var repetitionNames = [...]string{repRequired: "REQUIRED", repOptional: "OPTIONAL", repRepeated: "REPEATED", 3: "VECTOR"}

func (r repetition) String() string { return enumName(int32(r), repetitionNames[:], "repetition") }

// encoding is Parquet's Encoding, of values and of levels.
type encoding int32

const (
	encPlain                encoding = 0
	encPlainDictionary      encoding = 2
	encRLE                  encoding = 3
	encBitPacked            encoding = 4
	encDeltaBinaryPacked    encoding = 5
	encDeltaLengthByteArray encoding = 6
	encDeltaByteArray       encoding = 7
	encRLEDictionary        encoding = 8
	encByteStreamSplit      encoding = 9
)

var encodingNames = [...]string{
	encPlain: "PLAIN", encPlainDictionary: "PLAIN_DICTIONARY", encRLE: "RLE",
	encBitPacked: "BIT_PACKED", encDeltaBinaryPacked: "DELTA_BINARY_PACKED",
	encDeltaLengthByteArray: "DELTA_LENGTH_BYTE_ARRAY", encDeltaByteArray: "DELTA_BYTE_ARRAY",
	encRLEDictionary: "RLE_DICTIONARY", encByteStreamSplit: "BYTE_STREAM_SPLIT",
}

func (e encoding) String() string { return enumName(int32(e), encodingNames[:], "encoding") }

// codec is Parquet's CompressionCodec.
type codec int32

const (
	codecUncompressed codec = 0
	codecSnappy       codec = 1
	codecGzip         codec = 2
	codecLZO          codec = 3
	codecBrotli       codec = 4
	codecLZ4          codec = 5 // the deprecated Hadoop framing; LZ4_RAW is the plain block format
	codecZstd         codec = 6
	codecLZ4Raw       codec = 7
)

var codecNames = [...]string{
	codecUncompressed: "UNCOMPRESSED", codecSnappy: "SNAPPY", codecGzip: "GZIP", codecLZO: "LZO",
	codecBrotli: "BROTLI", codecLZ4: "LZ4", codecZstd: "ZSTD", codecLZ4Raw: "LZ4_RAW",
}

func (c codec) String() string { return enumName(int32(c), codecNames[:], "codec") }

// pageType is Parquet's PageType.
type pageType int32

const (
	pageData       pageType = 0
	pageIndex      pageType = 1
	pageDictionary pageType = 2
	pageDataV2     pageType = 3
)

var pageTypeNames = [...]string{
	pageData: "DATA_PAGE", pageIndex: "INDEX_PAGE", pageDictionary: "DICTIONARY_PAGE", pageDataV2: "DATA_PAGE_V2",
}

func (p pageType) String() string { return enumName(int32(p), pageTypeNames[:], "page type") }

// convertedType is Parquet's deprecated ConvertedType, which older
// writers set instead of (and newer ones beside) a logicalType.
type convertedType int32

const (
	convUTF8            convertedType = 0
	convMap             convertedType = 1
	convMapKeyValue     convertedType = 2
	convList            convertedType = 3
	convEnum            convertedType = 4
	convDecimal         convertedType = 5
	convDate            convertedType = 6
	convTimeMillis      convertedType = 7
	convTimeMicros      convertedType = 8
	convTimestampMillis convertedType = 9
	convTimestampMicros convertedType = 10
	convUint8           convertedType = 11
	convUint16          convertedType = 12
	convUint32          convertedType = 13
	convUint64          convertedType = 14
	convInt8            convertedType = 15
	convInt16           convertedType = 16
	convInt32           convertedType = 17
	convInt64           convertedType = 18
	convJSON            convertedType = 19
	convBSON            convertedType = 20
	convInterval        convertedType = 21
)

var convertedTypeNames = [...]string{
	convUTF8: "UTF8", convMap: "MAP", convMapKeyValue: "MAP_KEY_VALUE", convList: "LIST",
	convEnum: "ENUM", convDecimal: "DECIMAL", convDate: "DATE", convTimeMillis: "TIME_MILLIS",
	convTimeMicros: "TIME_MICROS", convTimestampMillis: "TIMESTAMP_MILLIS",
	convTimestampMicros: "TIMESTAMP_MICROS", convUint8: "UINT_8", convUint16: "UINT_16",
	convUint32: "UINT_32", convUint64: "UINT_64", convInt8: "INT_8", convInt16: "INT_16",
	convInt32: "INT_32", convInt64: "INT_64", convJSON: "JSON", convBSON: "BSON",
	convInterval: "INTERVAL",
}

func (c convertedType) String() string {
	return enumName(int32(c), convertedTypeNames[:], "converted type")
}

// enumName is names[v], or kind(v) for a value without a name.
func enumName(v int32, names []string, kind string) string {
	if v >= 0 && int(v) < len(names) && names[v] != "" {
		return names[v]
	}
	return fmt.Sprintf("%s(%d)", kind, v)
}

// The kinds of logicalType: the LogicalType union's field ids.
const (
	logicalString    int16 = 1
	logicalMap       int16 = 2
	logicalList      int16 = 3
	logicalEnum      int16 = 4
	logicalDecimal   int16 = 5
	logicalDate      int16 = 6
	logicalTime      int16 = 7
	logicalTimestamp int16 = 8
	logicalInteger   int16 = 10
	logicalUnknown   int16 = 11 // always null
	logicalJSON      int16 = 12
	logicalBSON      int16 = 13
	logicalUUID      int16 = 14
	logicalFloat16   int16 = 15
	logicalVariant   int16 = 16
	logicalGeometry  int16 = 17
	logicalGeography int16 = 18
	logicalVector    int16 = 19
)

// logicalTypeInfo names the LogicalType union's members, which are also
// the names logicalType.String gives.
var logicalTypeInfo = structInfo{
	name: "LogicalType",
	fields: []string{
		logicalString: "STRING", logicalMap: "MAP", logicalList: "LIST", logicalEnum: "ENUM",
		logicalDecimal: "DECIMAL", logicalDate: "DATE", logicalTime: "TIME",
		logicalTimestamp: "TIMESTAMP", logicalInteger: "INTEGER", logicalUnknown: "UNKNOWN",
		logicalJSON: "JSON", logicalBSON: "BSON", logicalUUID: "UUID", logicalFloat16: "FLOAT16",
		logicalVariant: "VARIANT", logicalGeometry: "GEOMETRY", logicalGeography: "GEOGRAPHY",
		logicalVector: "VECTOR",
	},
}

// The units of TIME and TIMESTAMP: the TimeUnit union's field ids.
const (
	unitMillis int16 = 1
	unitMicros int16 = 2
	unitNanos  int16 = 3
)

var timeUnitInfo = structInfo{
	name:   "TimeUnit",
	fields: []string{unitMillis: "MILLIS", unitMicros: "MICROS", unitNanos: "NANOS"},
}

// logicalType is the LogicalType union: Kind is the union's field id
// (logicalString...), 0 when the schema element has none. A member
// newer than this decoder (an id it has no name for) reads as none, so
// that the reader falls back on the physical and converted types.
type logicalType struct {
	Kind          int16
	Scale         int32 // DECIMAL
	Precision     int32 // DECIMAL
	Unit          int16 // TIME, TIMESTAMP: unitMillis, unitMicros, unitNanos; 0 if newer
	AdjustedToUTC bool  // TIME, TIMESTAMP
	BitWidth      int8  // INTEGER
	Signed        bool  // INTEGER
}

// String gives the kind, with its parameters: DECIMAL(9,2),
// TIMESTAMP(MICROS,UTC), INTEGER(8,signed); NONE when absent.
func (l logicalType) String() string {
	name := logicalTypeInfo.field(l.Kind)
	switch {
	case l.Kind == 0:
		return "NONE"
	case name == "":
		return fmt.Sprintf("logical type(%d)", l.Kind)
	case l.Kind == logicalDecimal:
		return fmt.Sprintf("%s(%d,%d)", name, l.Precision, l.Scale)
	case l.Kind == logicalTime || l.Kind == logicalTimestamp:
		unit, utc := timeUnitInfo.field(l.Unit), "local"
		if unit == "" {
			unit = fmt.Sprintf("unit(%d)", l.Unit)
		}
		if l.AdjustedToUTC {
			utc = "UTC"
		}
		return fmt.Sprintf("%s(%s,%s)", name, unit, utc)
	case l.Kind == logicalInteger:
		sign := "unsigned"
		if l.Signed {
			sign = "signed"
		}
		return fmt.Sprintf("%s(%d,%s)", name, l.BitWidth, sign)
	}
	return name
}

// schemaElement is one node of the schema, which FileMetaData lists
// depth first, the root first.
type schemaElement struct {
	Type             physicalType
	HasType          bool // groups have no type
	TypeLength       int32
	Repetition       repetition
	HasRepetition    bool // the root has none
	Name             string
	NumChildren      int32
	ConvertedType    convertedType
	HasConvertedType bool
	Scale, Precision int32
	FieldID          int32
	HasFieldID       bool
	Logical          logicalType
}

type fileMetaData struct {
	Version   int32
	Schema    []schemaElement
	NumRows   int64
	RowGroups []rowGroup
	KeyValue  []keyValue
	CreatedBy string
	// ColumnOrders holds a ColumnOrder member id a leaf column
	// (columnOrderType: its type-defined order), if the file has them.
	ColumnOrders []int16
	// Encrypted tells that the file says how it is encrypted (its footer
	// is plain text, its columns need not be).
	Encrypted bool
}

type keyValue struct{ Key, Value string }

type rowGroup struct {
	Columns             []columnChunk
	TotalByteSize       int64
	NumRows             int64
	FileOffset          int64
	TotalCompressedSize int64
}

type columnChunk struct {
	FilePath   string
	FileOffset int64
	Meta       columnMetaData
	HasMeta    bool
	Encrypted  bool // the chunk has crypto metadata: its pages are encrypted
}

type columnMetaData struct {
	Type                    physicalType
	Encodings               []encoding
	PathInSchema            []string
	Codec                   codec
	NumValues               int64
	TotalUncompressedSize   int64
	TotalCompressedSize     int64
	DataPageOffset          int64
	IndexPageOffset         int64
	HasIndexPageOffset      bool
	DictionaryPageOffset    int64
	HasDictionaryPageOffset bool
	Stats                   statistics
	HasStats                bool
	EncodingStats           []pageEncodingStats
}

// pageEncodingStats counts a column chunk's pages of one type and
// encoding. The reader does not use them, the tests do.
type pageEncodingStats struct {
	PageType pageType
	Encoding encoding
	Count    int32
}

// statistics is a column chunk's Statistics, the fields Writer writes:
// the count of nulls, and the least and greatest values (min_value and
// max_value, PLAIN encoded, a BYTE_ARRAY without its length), which a
// reader compares in the column's type-defined order.
type statistics struct {
	NullCount    int64
	HasNullCount bool
	Min, Max     string
	HasMinMax    bool
}

type pageHeader struct {
	Type             pageType
	UncompressedSize int32
	CompressedSize   int32
	CRC              int32
	HasCRC           bool
	Data             *dataPageHeader // nil unless present
	Dictionary       *dictionaryPageHeader
	DataV2           *dataPageHeaderV2
}

type dataPageHeader struct {
	NumValues               int32
	Encoding                encoding
	DefinitionLevelEncoding encoding
	RepetitionLevelEncoding encoding
}

type dictionaryPageHeader struct {
	NumValues int32
	Encoding  encoding
	IsSorted  bool
}

type dataPageHeaderV2 struct {
	NumValues, NumNulls, NumRows int32
	Encoding                     encoding
	DefinitionLevelsByteLength   int32
	RepetitionLevelsByteLength   int32
	IsCompressed                 bool // true when the field is absent
}

// parseFileMetaData decodes the footer's FileMetaData: the bytes between
// the end of the last column chunk and the footer's 4-byte length. Bytes
// after the struct's stop byte are ignored, as the reference readers
// ignore them: the footer length is the writer's, and no writer pads.
func parseFileMetaData(b []byte) (*fileMetaData, error) {
	r := thriftReader{b: b, budget: metadataBudget(len(b))}
	m := new(fileMetaData)
	if err := r.readFileMetaData(m); err != nil {
		return nil, fmt.Errorf("parquet: file metadata: %w", err)
	}
	return m, nil
}

// metadataBudget is the memory a footer of n bytes may decode into (its
// lists' elements): 16 times its size, and a MiB, up to a GiB. Real footers
// take 1.3 to 2.3 times their size (the test files of pyarrow, Polars,
// DuckDB and fastparquet), a wide schema of one-letter names perhaps 10;
// a hostile one of empty elements took 30 (TestMetadataBudget) and, at
// the footer's 256 MiB limit, gigabytes.
func metadataBudget(n int) int64 {
	return min(16*int64(n)+1<<20, 1<<30)
}

// parsePageHeader decodes the PageHeader at the start of b and returns
// the number of bytes it took; the page's data may follow in b. If b
// ends inside the header, the error wraps io.ErrUnexpectedEOF, and a
// caller reading a stream may retry with more bytes (up to a bound of
// its own: a corrupt length also asks for more).
func parsePageHeader(b []byte) (pageHeader, int, error) {
	r := thriftReader{b: b}
	var h pageHeader
	if err := r.readPageHeader(&h); err != nil {
		return pageHeader{}, 0, fmt.Errorf("parquet: page header: %w", err)
	}
	return h, r.off, nil
}

// fieldEnum reads an i32 field as one of Parquet's enums.
func fieldEnum[E ~int32](r *thriftReader, t compactType) (E, error) {
	v, err := r.fieldI32(t)
	return E(v), err
}

// fieldSize reads an i32 field that counts or sizes something, so that
// a reader using it cannot be handed a negative number.
func (r *thriftReader) fieldSize(t compactType) (int32, error) {
	v, err := r.fieldI32(t)
	if err == nil && v < 0 {
		err = fmt.Errorf("negative value %d in field at offset %d", v, r.fieldOff)
	}
	return v, err
}

var fileMetaDataInfo = structInfo{
	name: "FileMetaData",
	fields: []string{1: "version", 2: "schema", 3: "num_rows", 4: "row_groups",
		5: "key_value_metadata", 6: "created_by", 7: "column_orders", 8: "encryption_algorithm"},
	required: 1<<1 | 1<<2 | 1<<3 | 1<<4,
}

func (r *thriftReader) readFileMetaData(m *fileMetaData) error {
	return r.readStruct(&fileMetaDataInfo, func(id int16, t compactType) (err error) {
		switch id {
		case 1:
			m.Version, err = r.fieldI32(t)
		case 2:
			m.Schema, err = fieldList(r, t, ctStruct, (*thriftReader).readSchemaElement)
		case 3:
			m.NumRows, err = r.fieldI64(t)
		case 4:
			m.RowGroups, err = fieldList(r, t, ctStruct, (*thriftReader).readRowGroup)
		case 5:
			m.KeyValue, err = fieldList(r, t, ctStruct, (*thriftReader).readKeyValue)
		case 6:
			m.CreatedBy, err = r.fieldString(t)
		case 7:
			m.ColumnOrders, err = fieldList(r, t, ctStruct, (*thriftReader).readColumnOrder)
		case 8:
			m.Encrypted = true
			err = r.fieldStruct(t, &anyStruct, nil)
		}
		return err
	})
}

// columnOrderType is the ColumnOrder union's member for the order a
// column's type defines, the only one there is.
const columnOrderType int16 = 1

var columnOrderInfo = structInfo{name: "ColumnOrder", fields: []string{columnOrderType: "TYPE_ORDER"}}

// readColumnOrder reads a ColumnOrder union and returns its member's id.
func (r *thriftReader) readColumnOrder() (id int16, err error) {
	err = r.readStruct(&columnOrderInfo, func(i int16, t compactType) error {
		id = i
		return r.fieldStruct(t, &anyStruct, nil)
	})
	return id, err
}

var keyValueInfo = structInfo{name: "KeyValue", fields: []string{1: "key", 2: "value"}, required: 1 << 1}

func (r *thriftReader) readKeyValue() (kv keyValue, err error) {
	err = r.readStruct(&keyValueInfo, func(id int16, t compactType) (err error) {
		if id == 1 {
			kv.Key, err = r.fieldString(t)
		} else {
			kv.Value, err = r.fieldString(t)
		}
		return err
	})
	return kv, err
}

var schemaElementInfo = structInfo{
	name: "SchemaElement",
	fields: []string{1: "type", 2: "type_length", 3: "repetition_type", 4: "name",
		5: "num_children", 6: "converted_type", 7: "scale", 8: "precision", 9: "field_id",
		10: "logicalType"},
	required: 1 << 4,
}

func (r *thriftReader) readSchemaElement() (e schemaElement, err error) {
	err = r.readStruct(&schemaElementInfo, func(id int16, t compactType) (err error) {
		switch id {
		case 1:
			e.Type, err = fieldEnum[physicalType](r, t)
			e.HasType = true
		case 2:
			e.TypeLength, err = r.fieldI32(t)
		case 3:
			e.Repetition, err = fieldEnum[repetition](r, t)
			e.HasRepetition = true
		case 4:
			e.Name, err = r.fieldString(t)
		case 5:
			e.NumChildren, err = r.fieldSize(t)
		case 6:
			e.ConvertedType, err = fieldEnum[convertedType](r, t)
			e.HasConvertedType = true
		case 7:
			e.Scale, err = r.fieldI32(t)
		case 8:
			e.Precision, err = r.fieldI32(t)
		case 9:
			e.FieldID, err = r.fieldI32(t)
			e.HasFieldID = true
		case 10:
			e.Logical, err = r.readLogicalType(t)
		}
		return err
	})
	return e, err
}

// readLogicalType reads the LogicalType union. Its members are structs;
// most are empty, and those are skipped like unknown fields would be.
func (r *thriftReader) readLogicalType(t compactType) (l logicalType, err error) {
	err = r.fieldStruct(t, &logicalTypeInfo, func(id int16, t compactType) error {
		if l.Kind != 0 {
			return fmt.Errorf("second member of a union, at offset %d", r.fieldOff)
		}
		l.Kind = id
		switch id {
		case logicalDecimal:
			return r.readDecimalType(t, &l)
		case logicalTime, logicalTimestamp:
			return r.readTimeType(t, &l)
		case logicalInteger:
			return r.readIntType(t, &l)
		}
		return r.fieldStruct(t, &anyStruct, nil)
	})
	return l, err
}

var decimalTypeInfo = structInfo{name: "DecimalType", fields: []string{1: "scale", 2: "precision"}, required: 1<<1 | 1<<2}

func (r *thriftReader) readDecimalType(t compactType, l *logicalType) error {
	return r.fieldStruct(t, &decimalTypeInfo, func(id int16, t compactType) (err error) {
		if id == 1 {
			l.Scale, err = r.fieldI32(t)
		} else {
			l.Precision, err = r.fieldI32(t)
		}
		return err
	})
}

// timeTypeInfo describes TimeType and TimestampType, which are alike.
var timeTypeInfo = structInfo{name: "TimeType", fields: []string{1: "isAdjustedToUTC", 2: "unit"}, required: 1<<1 | 1<<2}

func (r *thriftReader) readTimeType(t compactType, l *logicalType) error {
	return r.fieldStruct(t, &timeTypeInfo, func(id int16, t compactType) (err error) {
		if id == 1 {
			l.AdjustedToUTC, err = r.fieldBool(t)
		} else {
			l.Unit, err = r.readTimeUnit(t)
		}
		return err
	})
}

// readTimeUnit reads the TimeUnit union, whose members are empty
// structs: the unit is the member's field id.
func (r *thriftReader) readTimeUnit(t compactType) (unit int16, err error) {
	err = r.fieldStruct(t, &timeUnitInfo, func(id int16, t compactType) error {
		if unit != 0 {
			return fmt.Errorf("second member of a union, at offset %d", r.fieldOff)
		}
		unit = id
		return r.fieldStruct(t, &anyStruct, nil)
	})
	return unit, err
}

var intTypeInfo = structInfo{name: "IntType", fields: []string{1: "bitWidth", 2: "isSigned"}, required: 1<<1 | 1<<2}

func (r *thriftReader) readIntType(t compactType, l *logicalType) error {
	return r.fieldStruct(t, &intTypeInfo, func(id int16, t compactType) (err error) {
		if id == 1 {
			l.BitWidth, err = r.fieldI8(t)
		} else {
			l.Signed, err = r.fieldBool(t)
		}
		return err
	})
}

var rowGroupInfo = structInfo{
	name: "RowGroup",
	fields: []string{1: "columns", 2: "total_byte_size", 3: "num_rows",
		5: "file_offset", 6: "total_compressed_size"},
	required: 1<<1 | 1<<2 | 1<<3,
}

func (r *thriftReader) readRowGroup() (g rowGroup, err error) {
	err = r.readStruct(&rowGroupInfo, func(id int16, t compactType) (err error) {
		switch id {
		case 1:
			g.Columns, err = fieldList(r, t, ctStruct, (*thriftReader).readColumnChunk)
		case 2:
			g.TotalByteSize, err = r.fieldI64(t)
		case 3:
			g.NumRows, err = r.fieldI64(t)
		case 5:
			g.FileOffset, err = r.fieldI64(t)
		case 6:
			g.TotalCompressedSize, err = r.fieldI64(t)
		}
		return err
	})
	return g, err
}

// columnChunkInfo: parquet.thrift makes file_offset required, but it is
// deprecated and means nothing to a reader, so its absence is let pass.
// It makes meta_data optional, but writers must write it (the reference
// readers need it), and readColumnChunk requires it unless the chunk is
// encrypted.
var columnChunkInfo = structInfo{
	name: "ColumnChunk",
	fields: []string{1: "file_path", 2: "file_offset", 3: "meta_data",
		8: "crypto_metadata", 9: "encrypted_column_metadata"},
}

func (r *thriftReader) readColumnChunk() (c columnChunk, err error) {
	start := r.off
	err = r.readStruct(&columnChunkInfo, func(id int16, t compactType) (err error) {
		switch id {
		case 1:
			c.FilePath, err = r.fieldString(t)
		case 2:
			c.FileOffset, err = r.fieldI64(t)
		case 3:
			c.Meta, err = r.readColumnMetaData(t)
			c.HasMeta = true
		case 8:
			c.Encrypted = true
			err = r.fieldStruct(t, &anyStruct, nil)
		case 9:
			c.Encrypted = true
			err = r.want(t, ctBinary)
			if err == nil {
				_, err = r.binary("binary length")
			}
		}
		return err
	})
	// Required, also because a chunk of one stop byte would otherwise
	// decode to some 170 bytes: a footer must not inflate so cheaply.
	if err == nil && !c.HasMeta && !c.Encrypted {
		err = fmt.Errorf("ColumnChunk at offset %d lacks field 3 (meta_data)", start)
	}
	return c, err
}

var columnMetaDataInfo = structInfo{
	name: "ColumnMetaData",
	fields: []string{1: "type", 2: "encodings", 3: "path_in_schema", 4: "codec",
		5: "num_values", 6: "total_uncompressed_size", 7: "total_compressed_size",
		9: "data_page_offset", 10: "index_page_offset", 11: "dictionary_page_offset", 12: "statistics",
		13: "encoding_stats"},
	required: 1<<1 | 1<<2 | 1<<3 | 1<<4 | 1<<5 | 1<<6 | 1<<7 | 1<<9,
}

func (r *thriftReader) readColumnMetaData(t compactType) (m columnMetaData, err error) {
	err = r.fieldStruct(t, &columnMetaDataInfo, func(id int16, t compactType) (err error) {
		switch id {
		case 1:
			m.Type, err = fieldEnum[physicalType](r, t)
		case 2:
			m.Encodings, err = fieldList(r, t, ctI32, readEncoding)
		case 3:
			m.PathInSchema, err = fieldList(r, t, ctBinary, (*thriftReader).str)
		case 4:
			m.Codec, err = fieldEnum[codec](r, t)
		case 5:
			m.NumValues, err = r.fieldI64(t)
		case 6:
			m.TotalUncompressedSize, err = r.fieldI64(t)
		case 7:
			m.TotalCompressedSize, err = r.fieldI64(t)
		case 9:
			m.DataPageOffset, err = r.fieldI64(t)
		case 10:
			m.IndexPageOffset, err = r.fieldI64(t)
			m.HasIndexPageOffset = true
		case 11:
			m.DictionaryPageOffset, err = r.fieldI64(t)
			m.HasDictionaryPageOffset = true
		case 12:
			m.Stats, err = r.readStatistics(t)
			m.HasStats = true
		case 13:
			m.EncodingStats, err = fieldList(r, t, ctStruct, (*thriftReader).readPageEncodingStats)
		}
		return err
	})
	return m, err
}

var pageEncodingStatsInfo = structInfo{
	name:     "PageEncodingStats",
	fields:   []string{1: "page_type", 2: "encoding", 3: "count"},
	required: 1<<1 | 1<<2 | 1<<3,
}

func (r *thriftReader) readPageEncodingStats() (s pageEncodingStats, err error) {
	err = r.readStruct(&pageEncodingStatsInfo, func(id int16, t compactType) (err error) {
		switch id {
		case 1:
			s.PageType, err = fieldEnum[pageType](r, t)
		case 2:
			s.Encoding, err = fieldEnum[encoding](r, t)
		case 3:
			s.Count, err = r.fieldI32(t)
		}
		return err
	})
	return s, err
}

// statisticsInfo names the fields readStatistics reads; the others (the
// deprecated min and max, distinct_count, whether min and max are exact)
// are skipped.
var statisticsInfo = structInfo{
	name:   "Statistics",
	fields: []string{3: "null_count", 5: "max_value", 6: "min_value"},
}

// readStatistics reads what Writer writes of a Statistics; the reader
// does not use them, the tests do.
func (r *thriftReader) readStatistics(t compactType) (s statistics, err error) {
	hasMin, hasMax := false, false
	err = r.fieldStruct(t, &statisticsInfo, func(id int16, t compactType) (err error) {
		switch id {
		case 3:
			s.NullCount, err = r.fieldI64(t)
			s.HasNullCount = true
		case 5:
			s.Max, err = r.fieldString(t)
			hasMax = true
		case 6:
			s.Min, err = r.fieldString(t)
			hasMin = true
		}
		return err
	})
	s.HasMinMax = hasMin && hasMax
	return s, err
}

func readEncoding(r *thriftReader) (encoding, error) {
	v, err := r.i32()
	return encoding(v), err
}

var pageHeaderInfo = structInfo{
	name: "PageHeader",
	fields: []string{1: "type", 2: "uncompressed_page_size", 3: "compressed_page_size", 4: "crc",
		5: "data_page_header", 7: "dictionary_page_header", 8: "data_page_header_v2"},
	required: 1<<1 | 1<<2 | 1<<3,
}

func (r *thriftReader) readPageHeader(h *pageHeader) error {
	return r.readStruct(&pageHeaderInfo, func(id int16, t compactType) (err error) {
		switch id {
		case 1:
			h.Type, err = fieldEnum[pageType](r, t)
		case 2:
			h.UncompressedSize, err = r.fieldSize(t)
		case 3:
			h.CompressedSize, err = r.fieldSize(t)
		case 4:
			h.CRC, err = r.fieldI32(t)
			h.HasCRC = true
		case 5:
			h.Data = new(dataPageHeader)
			err = r.readDataPageHeader(t, h.Data)
		case 7:
			h.Dictionary = new(dictionaryPageHeader)
			err = r.readDictionaryPageHeader(t, h.Dictionary)
		case 8:
			h.DataV2 = &dataPageHeaderV2{IsCompressed: true}
			err = r.readDataPageHeaderV2(t, h.DataV2)
		}
		return err
	})
}

var dataPageHeaderInfo = structInfo{
	name: "DataPageHeader",
	fields: []string{1: "num_values", 2: "encoding", 3: "definition_level_encoding",
		4: "repetition_level_encoding"},
	required: 1<<1 | 1<<2 | 1<<3 | 1<<4,
}

func (r *thriftReader) readDataPageHeader(t compactType, d *dataPageHeader) error {
	return r.fieldStruct(t, &dataPageHeaderInfo, func(id int16, t compactType) (err error) {
		switch id {
		case 1:
			d.NumValues, err = r.fieldSize(t)
		case 2:
			d.Encoding, err = fieldEnum[encoding](r, t)
		case 3:
			d.DefinitionLevelEncoding, err = fieldEnum[encoding](r, t)
		case 4:
			d.RepetitionLevelEncoding, err = fieldEnum[encoding](r, t)
		}
		return err
	})
}

var dictionaryPageHeaderInfo = structInfo{
	name:     "DictionaryPageHeader",
	fields:   []string{1: "num_values", 2: "encoding", 3: "is_sorted"},
	required: 1<<1 | 1<<2,
}

func (r *thriftReader) readDictionaryPageHeader(t compactType, d *dictionaryPageHeader) error {
	return r.fieldStruct(t, &dictionaryPageHeaderInfo, func(id int16, t compactType) (err error) {
		switch id {
		case 1:
			d.NumValues, err = r.fieldSize(t)
		case 2:
			d.Encoding, err = fieldEnum[encoding](r, t)
		case 3:
			d.IsSorted, err = r.fieldBool(t)
		}
		return err
	})
}

var dataPageHeaderV2Info = structInfo{
	name: "DataPageHeaderV2",
	fields: []string{1: "num_values", 2: "num_nulls", 3: "num_rows", 4: "encoding",
		5: "definition_levels_byte_length", 6: "repetition_levels_byte_length", 7: "is_compressed"},
	required: 1<<1 | 1<<2 | 1<<3 | 1<<4 | 1<<5 | 1<<6,
}

func (r *thriftReader) readDataPageHeaderV2(t compactType, d *dataPageHeaderV2) error {
	return r.fieldStruct(t, &dataPageHeaderV2Info, func(id int16, t compactType) (err error) {
		switch id {
		case 1:
			d.NumValues, err = r.fieldSize(t)
		case 2:
			d.NumNulls, err = r.fieldSize(t)
		case 3:
			d.NumRows, err = r.fieldSize(t)
		case 4:
			d.Encoding, err = fieldEnum[encoding](r, t)
		case 5:
			d.DefinitionLevelsByteLength, err = r.fieldSize(t)
		case 6:
			d.RepetitionLevelsByteLength, err = r.fieldSize(t)
		case 7:
			d.IsCompressed, err = r.fieldBool(t)
		}
		return err
	})
}
