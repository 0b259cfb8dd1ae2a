package parquet

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"unicode/utf8"

	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
)

// A Compression is the codec a Writer compresses pages with.
type Compression uint8

const (
	Uncompressed Compression = iota
	Snappy
	Gzip
	Zstd
)

var compressionCodecs = [...]codec{Uncompressed: codecUncompressed, Snappy: codecSnappy, Gzip: codecGzip, Zstd: codecZstd}

func (c Compression) String() string {
	if int(c) < len(compressionCodecs) {
		return compressionCodecs[c].String()
	}
	return fmt.Sprintf("Compression(%d)", uint8(c))
}

// WriterOptions configure a Writer. The zero value writes uncompressed
// pages of about 1 MiB in row groups of about 64 MiB, with dictionaries
// of up to 1 MiB, as pyarrow does.
type WriterOptions struct {
	Compression Compression
	// PageSize is the size a page's values and levels reach before the
	// page is closed, at the end of a row: PLAIN values as encoded,
	// dictionary indices at the four bytes each takes until the page is
	// encoded, levels at a quarter byte each.
	PageSize int
	// RowGroupSize is the size the row group's pages reach (compressed,
	// and the pages being built and the dictionaries as PageSize and
	// DictionaryPageSize count them) before the group is written, at the
	// end of a row: about what a Writer holds in memory. Beside it, each
	// column holds its dictionary's hash table, 8 to 20 bytes a distinct
	// value, and up to about 2 MiB of levels of the page being built, a
	// byte each where PageSize counts a quarter.
	RowGroupSize int64
	// DictionaryPageSize bounds each column chunk's dictionary: the bytes
	// its distinct values take PLAIN encoded. A chunk's values are written
	// as indices into its dictionary (RLE_DICTIONARY) until a value would
	// take the dictionary past this size; that value and the rest of the
	// chunk are PLAIN. A chunk whose first page and dictionary together
	// would take as many bytes as the page PLAIN is PLAIN throughout.
	// Zero means 1 MiB, pyarrow's default; a negative size writes every
	// value PLAIN, without dictionaries.
	DictionaryPageSize int
	// CreatedBy names the writing application in the footer.
	CreatedBy string
}

const (
	defaultPageSize     = 1 << 20
	defaultRowGroupSize = 64 << 20
	// maxDictionaryPageSize is the most a page can hold.
	maxDictionaryPageSize = math.MaxInt32
	// maxPageLevels bounds a page's rows of empty lists and nulls, which
	// take no values and next to no level bytes.
	maxPageLevels = 1 << 20
)

// A Writer writes rows to a Parquet file, one value or list of values a
// column, as an Example holds them: the file Rows reads back row for
// row, and pyarrow, DuckDB and Polars read (tools/parquetref/readback.py
// checks the test files with each).
//
// A column of at most one value a row (List false) is an optional
// column; a List column is an optional three-level LIST group of
// required elements, so a row can hold a null (nothing set) or an empty
// list. Levels are RLE, pages (version 1) compressed and checksummed with
// the CRC that readers may check, and each column chunk carries its
// statistics (nulls, least and greatest values), with which query
// engines skip row groups. Values are dictionary-encoded where that
// pays: each column chunk's distinct values go into a dictionary page,
// written first, and its data pages hold indices into it
// (RLE_DICTIONARY), until the dictionary would grow past
// [WriterOptions.DictionaryPageSize]; the chunk's later pages are PLAIN.
// Labels, categories and other repeated values take a few bits each. As
// parquet-mr's writer does (pyarrow's does not), a chunk's first page
// decides: if it and the dictionary take no fewer bytes than the page
// PLAIN, as with mostly distinct values (a float feature's), the chunk is
// PLAIN, with neither a dictionary's bytes nor its lookups.
// Rows are buffered a row group at a time, the dictionary page being
// complete only at its end; Close writes the last one and the footer.
//
// Set a row's columns with SetInt64s, SetFloats or SetBytes, then call
// WriteRow: columns not set are null. A row that breaks the schema is
// refused whole with an error, and the Writer goes on; an error writing
// to the underlying writer is final.
type Writer struct {
	dst  io.Writer
	opts WriterOptions
	cols []columnWriter
	meta fileMetaData
	off  int64 // bytes written to dst
	rows int64 // in the row group being buffered
	held int64 // bytes of its pages so far
	err  error // from dst; every later call returns it

	body []byte // a page being encoded
	comp []byte // and compressed
	dict []byte // a dictionary page, header and all
	gz   *gzip.Writer
	zs   *zstd.Encoder
}

// A columnWriter buffers one column's pages of the row group.
type columnWriter struct {
	Column
	path   []string // in the schema
	maxDef uint8    // 1 for a value, 2 for a list's element
	maxRep uint8    // 1 for a list

	// The row being built (set by the Set methods, nil if null).
	set bool
	i64 []int64
	f32 []float32
	bs  [][]byte
	bad error

	// The page being built.
	def, rep []uint8
	values   []byte   // PLAIN, once dict is not active
	idx      []uint32 // indices into dict, while it is

	// The row group's data pages, encoded, and its dictionary.
	chunk                 []byte
	levels                int64 // in chunk
	uncompressed          int64 // chunk's headers and pages before compression
	dictPages, plainPages int32 // in chunk, by encoding
	dict                  dictionary

	// The chunk's statistics.
	nulls      int64 // rows without a value (of a column that is not a list)
	seen       bool  // minI and maxI, or minF..., hold values
	minI, maxI int64
	minF, maxF float32
	minB, maxB []byte
	longBytes  bool // a value over maxStatBytes: no min and max for the chunk
}

// maxStatBytes bounds the bytes values a chunk's statistics keep as its
// least and greatest: longer ones (images, audio) would be copied into
// the footer, where they help no query.
const maxStatBytes = 64

// NewWriter returns a Writer of a file of cols (their Name, Kind, List and
// Text; names must be unique) to w, which it does not close.
func NewWriter(w io.Writer, cols []Column, opts WriterOptions) (*Writer, error) {
	if len(cols) == 0 {
		return nil, errors.New("parquet: a file needs at least one column")
	}
	if int(opts.Compression) >= len(compressionCodecs) {
		return nil, fmt.Errorf("parquet: unknown %v", opts.Compression)
	}
	if opts.PageSize <= 0 {
		opts.PageSize = defaultPageSize
	}
	if opts.RowGroupSize <= 0 {
		opts.RowGroupSize = defaultRowGroupSize
	}
	if opts.DictionaryPageSize == 0 {
		opts.DictionaryPageSize = defaultDictionaryPageSize
	}
	opts.DictionaryPageSize = min(opts.DictionaryPageSize, maxDictionaryPageSize)
	wr := &Writer{dst: w, opts: opts, cols: make([]columnWriter, len(cols))}
	wr.meta = fileMetaData{Version: 1, CreatedBy: opts.CreatedBy,
		Schema:       []schemaElement{{Name: "schema", NumChildren: int32(len(cols))}},
		ColumnOrders: make([]int16, len(cols))}
	for i := range wr.meta.ColumnOrders {
		// Readers trust min_value and max_value in a type-defined order.
		wr.meta.ColumnOrders[i] = columnOrderType
	}
	seen := make(map[string]bool, len(cols))
	for i, c := range cols {
		if c.Name == "" || seen[c.Name] {
			return nil, fmt.Errorf("parquet: column %d: name %q is empty or not unique", i, c.Name)
		}
		if !utf8.ValidString(c.Name) {
			// Thrift strings are UTF-8: pyarrow cannot open a file whose
			// schema holds another name (audit 45).
			return nil, fmt.Errorf("parquet: column %d: name %q is not UTF-8", i, c.Name)
		}
		seen[c.Name] = true
		leaf := schemaElement{Name: c.Name, HasType: true, HasRepetition: true, Repetition: repOptional}
		switch c.Kind {
		case Int64:
			leaf.Type = typeInt64
		case Float:
			leaf.Type = typeFloat
		case Bytes:
			leaf.Type = typeByteArray
			if c.Text {
				leaf.ConvertedType, leaf.HasConvertedType = convUTF8, true
				leaf.Logical.Kind = logicalString
			}
		default:
			return nil, fmt.Errorf("parquet: column %q: unknown %v", c.Name, c.Kind)
		}
		cw := &wr.cols[i]
		cw.Column = Column{Name: c.Name, Kind: c.Kind, List: c.List, Text: c.Text && c.Kind == Bytes}
		cw.dict = newDictionary(c.Kind, opts.DictionaryPageSize)
		if !c.List {
			cw.path, cw.maxDef = []string{c.Name}, 1
			wr.meta.Schema = append(wr.meta.Schema, leaf)
			continue
		}
		cw.path, cw.maxDef, cw.maxRep = []string{c.Name, "list", "element"}, 2, 1
		leaf.Name, leaf.Repetition = "element", repRequired
		wr.meta.Schema = append(wr.meta.Schema,
			schemaElement{Name: c.Name, HasRepetition: true, Repetition: repOptional, NumChildren: 1,
				ConvertedType: convList, HasConvertedType: true, Logical: logicalType{Kind: logicalList}},
			schemaElement{Name: "list", HasRepetition: true, Repetition: repRepeated, NumChildren: 1},
			leaf)
	}
	return wr, nil
}

// SetInt64s sets column i of the row being built to v: one value for a
// column that is not a list. v is read by WriteRow, not before.
func (w *Writer) SetInt64s(i int, v []int64) {
	c := w.set(i, Int64, len(v))
	c.i64 = v
}

// SetFloats sets column i of the row being built to v.
func (w *Writer) SetFloats(i int, v []float32) {
	c := w.set(i, Float, len(v))
	c.f32 = v
}

// SetBytes sets column i of the row being built to v.
func (w *Writer) SetBytes(i int, v [][]byte) {
	c := w.set(i, Bytes, len(v))
	c.bs = v
}

func (w *Writer) set(i int, k Kind, n int) *columnWriter {
	c := &w.cols[i]
	c.set = true
	switch {
	case k != c.Kind:
		c.bad = fmt.Errorf("column %q holds %v values, not %v", c.Name, c.Kind, k)
	case !c.List && n != 1:
		c.bad = fmt.Errorf("column %q holds one value a row, not %d", c.Name, n)
	}
	return c
}

// WriteRow adds the row set since the last call to the file; the columns
// not set are null. It returns an error, and adds nothing, if a column
// was set to values of another kind or, not being a list, to other than
// one value.
func (w *Writer) WriteRow() error {
	if w.err != nil {
		w.clearRow()
		return w.err
	}
	for i := range w.cols {
		if err := w.cols[i].bad; err != nil {
			w.clearRow()
			return fmt.Errorf("parquet: row %d: %w", w.meta.NumRows+w.rows, err)
		}
	}
	building := 0 // bytes of the pages being built and the dictionaries
	for i := range w.cols {
		c := &w.cols[i]
		if !c.appendRow() {
			w.fallBack(c)
			c.appendRow() // PLAIN, which always succeeds
		}
		if n := c.pageSize(); n >= w.opts.PageSize || len(c.def) >= maxPageLevels {
			w.flushPage(c)
		} else {
			building += n
		}
		building += len(c.dict.plain)
	}
	w.clearRow()
	w.rows++
	if w.held+int64(building) >= w.opts.RowGroupSize {
		w.flushRowGroup()
	}
	return w.err
}

func (w *Writer) clearRow() {
	for i := range w.cols {
		c := &w.cols[i]
		c.set, c.i64, c.f32, c.bs, c.bad = false, nil, nil, nil, nil
	}
}

// appendRow adds the row's levels and values to the page being built:
// indices into the chunk's dictionary while it is active, else PLAIN
// values. It returns false, adding nothing, if the dictionary cannot take
// all of the row's values.
func (c *columnWriter) appendRow() bool {
	if !c.set {
		if c.maxRep == 0 {
			c.nulls++
		}
		c.def = append(c.def, 0)
		if c.maxRep > 0 {
			c.rep = append(c.rep, 0)
		}
		return true
	}
	if c.dict.active() {
		if !c.appendIndices() {
			return false
		}
	} else {
		c.appendPlain()
	}
	c.widenStatistics()
	n := len(c.i64) + len(c.f32) + len(c.bs) // only the Kind's is set
	if c.maxRep == 0 {
		c.def = append(c.def, 1)
		return true
	}
	if n == 0 {
		c.def, c.rep = append(c.def, 1), append(c.rep, 0) // an empty list
		return true
	}
	c.def, c.rep = append(c.def, 2), append(c.rep, 0) // the row's first value
	for range n - 1 {
		c.def, c.rep = append(c.def, 2), append(c.rep, 1)
	}
	return true
}

// appendIndices appends the dictionary indices of the row's values, or
// returns false, appending nothing, if one does not fit.
func (c *columnWriter) appendIndices() (ok bool) {
	switch c.Kind {
	case Int64:
		c.idx, ok = c.dict.addInt64s(c.idx, c.i64)
	case Float:
		c.idx, ok = c.dict.addFloats(c.idx, c.f32)
	default:
		c.idx, ok = c.dict.addBytes(c.idx, c.bs)
	}
	return ok
}

// appendPlain appends the row's values, PLAIN encoded.
func (c *columnWriter) appendPlain() {
	switch c.Kind {
	case Int64:
		for _, v := range c.i64 {
			c.values = binary.LittleEndian.AppendUint64(c.values, uint64(v))
		}
	case Float:
		for _, v := range c.f32 {
			c.values = binary.LittleEndian.AppendUint32(c.values, math.Float32bits(v))
		}
	default:
		for _, v := range c.bs {
			c.values = appendByteArray(c.values, v)
		}
	}
}

// widenStatistics takes the row's values into the chunk's statistics.
func (c *columnWriter) widenStatistics() {
	switch c.Kind {
	case Int64:
		for _, v := range c.i64 {
			widen(v, &c.seen, &c.minI, &c.maxI)
		}
	case Float:
		for _, v := range c.f32 {
			if v == v { // not NaN, which is in no order, so in no statistics
				widen(v, &c.seen, &c.minF, &c.maxF)
			}
		}
	default:
		for _, v := range c.bs {
			if len(v) > maxStatBytes {
				c.longBytes = true
			}
			if c.longBytes {
				return
			}
			if !c.seen || bytes.Compare(v, c.minB) < 0 {
				c.minB = append(c.minB[:0], v...)
			}
			if !c.seen || bytes.Compare(v, c.maxB) > 0 {
				c.maxB = append(c.maxB[:0], v...)
			}
			c.seen = true
		}
	}
}

// pageSize is the size of the page being built, as PageSize counts it.
func (c *columnWriter) pageSize() int {
	return len(c.values) + 4*len(c.idx) + len(c.def)/4
}

// fallBack ends the dictionary encoding of column c's chunk, whose
// dictionary is full, as Arrow's writer does: the page being built is
// closed, its values dictionary-encoded like the chunk's pages before it,
// and the rest of the chunk is PLAIN.
func (w *Writer) fallBack(c *columnWriter) {
	if c.dict.len() > 0 {
		// Else the page holds no values, and may as well be PLAIN.
		w.flushPage(c)
	}
	c.dict.full = true
}

// flushPage encodes, compresses and checksums the page being built into
// the column's chunk.
func (w *Writer) flushPage(c *columnWriter) {
	if len(c.def) == 0 || w.err != nil {
		return
	}
	b := w.body[:0]
	if c.maxRep > 0 {
		b = appendLevels(b, c.rep, 1)
	}
	b = appendLevels(b, c.def, bitWidth(int(c.maxDef)))
	enc := c.dict.encoding()
	if enc == encRLEDictionary {
		levels := len(b)
		b = appendIndices(b, c.idx)
		if c.dictPages == 0 && !c.dict.pays(len(b)-levels, c.idx) {
			// The chunk's first page decides, as parquet-mr's writer
			// does: a dictionary that does not make it smaller than
			// PLAIN (mostly distinct values, such as a float feature's)
			// would cost every later page its lookups for nothing.
			b = c.dict.appendPlain(b[:levels], c.idx)
			c.dict.abandon()
			enc = encPlain
		}
	} else {
		b = append(b, c.values...)
	}
	w.body = b
	h := pageHeader{Type: pageData, Data: &dataPageHeader{NumValues: int32(len(c.def)), Encoding: enc,
		DefinitionLevelEncoding: encRLE, RepetitionLevelEncoding: encRLE}}
	n := len(c.chunk)
	chunk, size, err := w.appendPage(c.chunk, &h, b)
	if err != nil {
		w.err = fmt.Errorf("parquet: column %q: %w", c.Name, err)
		return
	}
	c.chunk = chunk
	c.uncompressed += size
	w.held += int64(len(c.chunk) - n)
	c.levels += int64(len(c.def))
	if enc == encRLEDictionary {
		c.dictPages++
	} else {
		c.plainPages++
	}
	c.def, c.rep, c.values, c.idx = c.def[:0], c.rep[:0], c.values[:0], c.idx[:0]
}

// appendPage appends to dst the page of body, compressed, after its
// header h, whose sizes and checksum it sets. It also returns the bytes
// the page takes uncompressed, its header's included.
func (w *Writer) appendPage(dst []byte, h *pageHeader, body []byte) ([]byte, int64, error) {
	page, err := w.compress(body)
	if err != nil {
		return dst, 0, err
	}
	if len(body) > math.MaxInt32 || len(page) > math.MaxInt32 {
		return dst, 0, fmt.Errorf("a %v of %d bytes is more than a page can hold", h.Type, len(body))
	}
	h.UncompressedSize, h.CompressedSize = int32(len(body)), int32(len(page))
	h.CRC, h.HasCRC = int32(crc32.ChecksumIEEE(page)), true
	n := len(dst)
	dst = appendPageHeader(dst, h)
	size := int64(len(dst)-n) + int64(len(body))
	return append(dst, page...), size, nil
}

// appendLevels appends levels as a version 1 page holds them: their
// encoding's length in four bytes, then the encoding.
func appendLevels(b []byte, levels []uint8, width int) []byte {
	at := len(b)
	b = append(b, 0, 0, 0, 0)
	b = appendHybrid(b, levels, width)
	binary.LittleEndian.PutUint32(b[at:], uint32(len(b)-at-4))
	return b
}

func (w *Writer) compress(b []byte) ([]byte, error) {
	switch w.opts.Compression {
	case Snappy:
		w.comp = s2.EncodeSnappy(w.comp[:cap(w.comp)], b)
	case Gzip:
		buf := bytes.NewBuffer(w.comp[:0])
		if w.gz == nil {
			w.gz = gzip.NewWriter(buf)
		} else {
			w.gz.Reset(buf)
		}
		if _, err := w.gz.Write(b); err != nil {
			return nil, err
		}
		if err := w.gz.Close(); err != nil {
			return nil, err
		}
		w.comp = buf.Bytes()
	case Zstd:
		if w.zs == nil {
			zs, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
			if err != nil {
				return nil, err
			}
			w.zs = zs
		}
		w.comp = w.zs.EncodeAll(b, w.comp[:0])
	default:
		return b, nil
	}
	return w.comp, nil
}

// flushRowGroup writes the row group's chunks, one column after another.
func (w *Writer) flushRowGroup() {
	if w.rows == 0 || w.err != nil {
		return
	}
	for i := range w.cols {
		w.flushPage(&w.cols[i])
	}
	if w.err != nil {
		return
	}
	if w.off == 0 {
		w.write(magic)
	}
	g := rowGroup{NumRows: w.rows, FileOffset: w.off, Columns: make([]columnChunk, len(w.cols))}
	for i := range w.cols {
		start := w.off
		m := w.writeChunk(&w.cols[i])
		g.Columns[i] = columnChunk{FileOffset: start, HasMeta: true, Meta: m}
		g.TotalByteSize += m.TotalUncompressedSize
		g.TotalCompressedSize += m.TotalCompressedSize
	}
	w.meta.RowGroups = append(w.meta.RowGroups, g)
	w.meta.NumRows += w.rows
	w.rows, w.held = 0, 0
}

// writeChunk writes column c's chunk, its dictionary page (if a data page
// is dictionary-encoded) first, returns its metadata and readies c for
// the next row group.
func (w *Writer) writeChunk(c *columnWriter) columnMetaData {
	m := columnMetaData{Type: c.leafType(), Encodings: c.encodings(), PathInSchema: c.path,
		Codec: compressionCodecs[w.opts.Compression], NumValues: c.levels,
		TotalUncompressedSize: c.uncompressed, TotalCompressedSize: int64(len(c.chunk)),
		Stats: c.statistics(), HasStats: true, EncodingStats: c.encodingStats()}
	if c.dictPages > 0 {
		page, size := w.dictionaryPage(c)
		m.DictionaryPageOffset, m.HasDictionaryPageOffset = w.off, true
		m.TotalUncompressedSize += size
		m.TotalCompressedSize += int64(len(page))
		w.write(page)
	}
	m.DataPageOffset = w.off
	w.write(c.chunk)
	c.chunk, c.levels, c.uncompressed = c.chunk[:0], 0, 0
	c.dictPages, c.plainPages = 0, 0
	c.dict.reset()
	c.nulls, c.seen, c.longBytes = 0, false, false
	return m
}

// dictionaryPage returns column c's dictionary page, header and all, and
// the bytes it takes uncompressed.
func (w *Writer) dictionaryPage(c *columnWriter) ([]byte, int64) {
	h := pageHeader{Type: pageDictionary,
		Dictionary: &dictionaryPageHeader{NumValues: int32(c.dict.len()), Encoding: encPlain}}
	page, size, err := w.appendPage(w.dict[:0], &h, c.dict.plain)
	w.dict = page
	if err != nil && w.err == nil {
		w.err = fmt.Errorf("parquet: column %q: %w", c.Name, err)
	}
	return page, size
}

// encodings lists the chunk's encodings: PLAIN (the dictionary page's,
// or the data pages'), RLE (the levels') and RLE_DICTIONARY if a data
// page is dictionary-encoded.
func (c *columnWriter) encodings() []encoding {
	if c.dictPages > 0 {
		return []encoding{encPlain, encRLE, encRLEDictionary}
	}
	return []encoding{encPlain, encRLE}
}

// encodingStats counts the chunk's pages by type and encoding, with which
// a reader can tell a chunk whose values are all dictionary-encoded from
// one that fell back to PLAIN without reading its pages.
func (c *columnWriter) encodingStats() []pageEncodingStats {
	var s []pageEncodingStats
	if c.dictPages > 0 {
		s = append(s, pageEncodingStats{pageDictionary, encPlain, 1},
			pageEncodingStats{pageData, encRLEDictionary, c.dictPages})
	}
	if c.plainPages > 0 {
		s = append(s, pageEncodingStats{pageData, encPlain, c.plainPages})
	}
	return s
}

// widen makes [lo, hi] take in v, and sets seen: before it, lo and hi
// hold nothing.
func widen[T int64 | float32](v T, seen *bool, lo, hi *T) {
	if !*seen || v < *lo {
		*lo = v
	}
	if !*seen || v > *hi {
		*hi = v
	}
	*seen = true
}

// statistics returns the chunk's: the nulls of a column that is not a
// list (a list's nulls and empty lists are not values of its leaf), and
// the least and greatest values in the type's order, PLAIN encoded,
// zeros as the format asks (-0 the least, +0 the greatest).
func (c *columnWriter) statistics() statistics {
	var st statistics
	if c.maxRep == 0 {
		st.NullCount, st.HasNullCount = c.nulls, true
	}
	if !c.seen || c.longBytes {
		return st
	}
	st.HasMinMax = true
	switch c.Kind {
	case Int64:
		st.Min = string(binary.LittleEndian.AppendUint64(nil, uint64(c.minI)))
		st.Max = string(binary.LittleEndian.AppendUint64(nil, uint64(c.maxI)))
	case Float:
		lo, hi := c.minF, c.maxF
		if lo == 0 {
			lo = float32(math.Copysign(0, -1))
		}
		if hi == 0 {
			hi = 0 // +0, where the values held -0
		}
		st.Min = string(binary.LittleEndian.AppendUint32(nil, math.Float32bits(lo)))
		st.Max = string(binary.LittleEndian.AppendUint32(nil, math.Float32bits(hi)))
	default:
		st.Min, st.Max = string(c.minB), string(c.maxB)
	}
	return st
}

func (c *columnWriter) leafType() physicalType {
	switch c.Kind {
	case Int64:
		return typeInt64
	case Float:
		return typeFloat
	}
	return typeByteArray
}

func (w *Writer) write(b []byte) {
	if w.err != nil {
		return
	}
	n, err := w.dst.Write(b)
	w.off += int64(n)
	if err == nil && n < len(b) {
		// A writer that breaks io.Writer's rule: the file would be
		// cut short, and Close would say it was written (audit 101).
		err = io.ErrShortWrite
	}
	if err != nil {
		w.err = fmt.Errorf("parquet: %w", err)
	}
}

// Close writes the rows buffered and the footer. The file is whole only
// if Close returns nil.
func (w *Writer) Close() error {
	w.flushRowGroup()
	if w.err != nil {
		return w.err
	}
	if w.off == 0 {
		w.write(magic) // a file of no rows
	}
	footer := appendFileMetaData(nil, &w.meta)
	footer = binary.LittleEndian.AppendUint32(footer, uint32(len(footer)))
	w.write(append(footer, magic...))
	if w.zs != nil {
		w.zs.Close()
	}
	if w.err == nil {
		w.err = errClosed
		return nil
	}
	return w.err
}

var errClosed = errors.New("parquet: Writer is closed")
