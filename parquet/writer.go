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
// pages of about 1 MiB in row groups of about 64 MiB.
type WriterOptions struct {
	Compression Compression
	// PageSize is the size a page's values and levels reach before the
	// page is closed, at the end of a row.
	PageSize int
	// RowGroupSize is the size the row group's pages reach (compressed,
	// and the pages being built as they are) before the group is written,
	// at the end of a row: about what a Writer holds in memory.
	RowGroupSize int64
	// CreatedBy names the writing application in the footer.
	CreatedBy string
}

const (
	defaultPageSize     = 1 << 20
	defaultRowGroupSize = 64 << 20
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
// list. Values are PLAIN, levels RLE, pages (version 1) compressed and
// checksummed with the CRC that readers may check, and each column chunk
// carries its statistics (nulls, least and greatest values), with which
// query engines skip row groups. Rows are buffered a row group at a time;
// Close writes the last one and the footer.
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
	values   []byte // PLAIN

	// The row group's pages, encoded.
	chunk        []byte
	levels       int64 // in chunk
	uncompressed int64 // chunk's headers and pages before compression

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
	building := 0 // bytes of the pages being built
	for i := range w.cols {
		c := &w.cols[i]
		c.appendRow()
		if n := len(c.values) + len(c.def)/4; n >= w.opts.PageSize || len(c.def) >= maxPageLevels {
			w.flushPage(c)
		} else {
			building += n
		}
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

// appendRow adds the row's levels and values to the page being built.
func (c *columnWriter) appendRow() {
	if !c.set {
		if c.maxRep == 0 {
			c.nulls++
		}
		c.def = append(c.def, 0)
		if c.maxRep > 0 {
			c.rep = append(c.rep, 0)
		}
		return
	}
	n := 0
	switch c.Kind {
	case Int64:
		n = len(c.i64)
		for _, v := range c.i64 {
			c.values = binary.LittleEndian.AppendUint64(c.values, uint64(v))
			widen(v, &c.seen, &c.minI, &c.maxI)
		}
	case Float:
		n = len(c.f32)
		for _, v := range c.f32 {
			c.values = binary.LittleEndian.AppendUint32(c.values, math.Float32bits(v))
			if v == v { // not NaN, which is in no order, so in no statistics
				widen(v, &c.seen, &c.minF, &c.maxF)
			}
		}
	case Bytes:
		n = len(c.bs)
		for _, v := range c.bs {
			c.values = binary.LittleEndian.AppendUint32(c.values, uint32(len(v)))
			c.values = append(c.values, v...)
			if len(v) > maxStatBytes {
				c.longBytes = true
			}
			if c.longBytes {
				continue
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
	if c.maxRep == 0 {
		c.def = append(c.def, 1)
		return
	}
	if n == 0 {
		c.def, c.rep = append(c.def, 1), append(c.rep, 0) // an empty list
		return
	}
	c.def, c.rep = append(c.def, 2), append(c.rep, 0) // the row's first value
	for range n - 1 {
		c.def, c.rep = append(c.def, 2), append(c.rep, 1)
	}
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
	b = append(b, c.values...)
	w.body = b
	page, err := w.compress(b)
	if err == nil && (len(b) > math.MaxInt32 || len(page) > math.MaxInt32) {
		err = fmt.Errorf("a page of column %q takes %d bytes, more than a page can", c.Name, len(b))
	}
	if err != nil {
		w.err = fmt.Errorf("parquet: %w", err)
		return
	}
	h := pageHeader{Type: pageData, UncompressedSize: int32(len(b)), CompressedSize: int32(len(page)),
		CRC: int32(crc32.ChecksumIEEE(page)), HasCRC: true,
		Data: &dataPageHeader{NumValues: int32(len(c.def)), Encoding: encPlain,
			DefinitionLevelEncoding: encRLE, RepetitionLevelEncoding: encRLE}}
	n := len(c.chunk)
	c.chunk = appendPageHeader(c.chunk, &h)
	c.uncompressed += int64(len(c.chunk)-n) + int64(len(b))
	c.chunk = append(c.chunk, page...)
	w.held += int64(len(c.chunk) - n)
	c.levels += int64(len(c.def))
	c.def, c.rep, c.values = c.def[:0], c.rep[:0], c.values[:0]
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
		c := &w.cols[i]
		g.Columns[i] = columnChunk{FileOffset: w.off, HasMeta: true, Meta: columnMetaData{
			Type: c.leafType(), Encodings: []encoding{encPlain, encRLE}, PathInSchema: c.path,
			Codec: compressionCodecs[w.opts.Compression], NumValues: c.levels,
			TotalUncompressedSize: c.uncompressed, TotalCompressedSize: int64(len(c.chunk)),
			DataPageOffset: w.off, Stats: c.statistics(), HasStats: true}}
		g.TotalByteSize += c.uncompressed
		g.TotalCompressedSize += int64(len(c.chunk))
		w.write(c.chunk)
		c.chunk, c.levels, c.uncompressed = c.chunk[:0], 0, 0
		c.nulls, c.seen, c.longBytes = 0, false, false
	}
	w.meta.RowGroups = append(w.meta.RowGroups, g)
	w.meta.NumRows += w.rows
	w.rows, w.held = 0, 0
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
