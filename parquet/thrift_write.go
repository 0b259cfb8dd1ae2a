package parquet

import "encoding/binary"

// A thriftWriter encodes the Thrift Compact Protocol, the way Writer
// writes page headers and the footer. It writes only what the reader in
// thrift.go reads back, and the tests hold the two to each other.
type thriftWriter struct {
	b    []byte
	last int16 // the id of the field written last in the current struct
}

// field writes a field header: the id as a delta from the last field's
// when it is 1 to 15, which it always is for the ascending ids written
// here, else in full.
func (w *thriftWriter) field(id int16, t compactType) {
	if d := id - w.last; d > 0 && d <= 15 {
		w.b = append(w.b, byte(d)<<4|byte(t))
	} else {
		w.b = append(w.b, byte(t))
		w.b = binary.AppendVarint(w.b, int64(id))
	}
	w.last = id
}

// i32 and i64 write zigzag varints; for an int32, the 64-bit zigzag of
// its sign extension is the 32-bit zigzag.
func (w *thriftWriter) i32(id int16, v int32) {
	w.field(id, ctI32)
	w.b = binary.AppendVarint(w.b, int64(v))
}

func (w *thriftWriter) i64(id int16, v int64) {
	w.field(id, ctI64)
	w.b = binary.AppendVarint(w.b, v)
}

func (w *thriftWriter) str(id int16, s string) {
	w.field(id, ctBinary)
	w.binary(s)
}

func (w *thriftWriter) binary(s string) {
	w.b = binary.AppendUvarint(w.b, uint64(len(s)))
	w.b = append(w.b, s...)
}

// list writes a list header of n elements of type elem; the elements
// follow, a struct element without a field header (begin, then end).
func (w *thriftWriter) list(id int16, elem compactType, n int) {
	w.field(id, ctList)
	if n < 15 {
		w.b = append(w.b, byte(n)<<4|byte(elem))
		return
	}
	w.b = append(w.b, 0xf0|byte(elem))
	w.b = binary.AppendUvarint(w.b, uint64(n))
}

// structField begins a struct-valued field; end finishes it.
func (w *thriftWriter) structField(id int16) (outer int16) {
	w.field(id, ctStruct)
	return w.begin()
}

// begin begins a struct whose header is already written (or a list's
// struct element, which has none) and returns what end restores.
func (w *thriftWriter) begin() (outer int16) {
	outer, w.last = w.last, 0
	return outer
}

// end writes the stop byte that closes a struct.
func (w *thriftWriter) end(outer int16) {
	w.b = append(w.b, byte(ctStop))
	w.last = outer
}

// appendFileMetaData appends m's encoding: the fields Writer fills in.
func appendFileMetaData(b []byte, m *fileMetaData) []byte {
	w := thriftWriter{b: b}
	w.i32(1, m.Version)
	w.list(2, ctStruct, len(m.Schema))
	for i := range m.Schema {
		o := w.begin()
		w.schemaElement(&m.Schema[i])
		w.end(o)
	}
	w.i64(3, m.NumRows)
	w.list(4, ctStruct, len(m.RowGroups))
	for i := range m.RowGroups {
		o := w.begin()
		w.rowGroup(&m.RowGroups[i])
		w.end(o)
	}
	if m.CreatedBy != "" {
		w.str(6, m.CreatedBy)
	}
	if len(m.ColumnOrders) > 0 {
		w.list(7, ctStruct, len(m.ColumnOrders))
		for _, id := range m.ColumnOrders {
			o := w.begin()
			w.end(w.structField(id)) // an empty struct: TypeDefinedOrder
			w.end(o)
		}
	}
	w.end(0)
	return w.b
}

func (w *thriftWriter) schemaElement(e *schemaElement) {
	if e.HasType {
		w.i32(1, int32(e.Type))
	}
	if e.HasRepetition {
		w.i32(3, int32(e.Repetition))
	}
	w.str(4, e.Name)
	if e.NumChildren > 0 {
		w.i32(5, e.NumChildren)
	}
	if e.HasConvertedType {
		w.i32(6, int32(e.ConvertedType))
	}
	if e.Logical.Kind != 0 {
		// Only the members without parameters (STRING, LIST): an empty
		// struct in the union's field of that id.
		o := w.structField(10)
		w.end(w.structField(e.Logical.Kind))
		w.end(o)
	}
}

func (w *thriftWriter) rowGroup(g *rowGroup) {
	w.list(1, ctStruct, len(g.Columns))
	for i := range g.Columns {
		c := &g.Columns[i]
		o := w.begin()
		w.i64(2, c.FileOffset)
		m := w.structField(3)
		w.columnMetaData(&c.Meta)
		w.end(m)
		w.end(o)
	}
	w.i64(2, g.TotalByteSize)
	w.i64(3, g.NumRows)
	w.i64(5, g.FileOffset)
	w.i64(6, g.TotalCompressedSize)
}

func (w *thriftWriter) columnMetaData(m *columnMetaData) {
	w.i32(1, int32(m.Type))
	w.list(2, ctI32, len(m.Encodings))
	for _, e := range m.Encodings {
		w.b = binary.AppendVarint(w.b, int64(e))
	}
	w.list(3, ctBinary, len(m.PathInSchema))
	for _, p := range m.PathInSchema {
		w.binary(p)
	}
	w.i32(4, int32(m.Codec))
	w.i64(5, m.NumValues)
	w.i64(6, m.TotalUncompressedSize)
	w.i64(7, m.TotalCompressedSize)
	w.i64(9, m.DataPageOffset)
	if m.HasDictionaryPageOffset {
		w.i64(11, m.DictionaryPageOffset)
	}
	if m.HasStats {
		o := w.structField(12)
		if m.Stats.HasNullCount {
			w.i64(3, m.Stats.NullCount)
		}
		if m.Stats.HasMinMax {
			w.str(5, m.Stats.Max)
			w.str(6, m.Stats.Min)
		}
		w.end(o)
	}
	if len(m.EncodingStats) > 0 {
		w.list(13, ctStruct, len(m.EncodingStats))
		for _, s := range m.EncodingStats {
			o := w.begin()
			w.i32(1, int32(s.PageType))
			w.i32(2, int32(s.Encoding))
			w.i32(3, s.Count)
			w.end(o)
		}
	}
}

// appendPageHeader appends the header of a version 1 data page or of a
// dictionary page.
func appendPageHeader(b []byte, h *pageHeader) []byte {
	w := thriftWriter{b: b}
	w.i32(1, int32(h.Type))
	w.i32(2, h.UncompressedSize)
	w.i32(3, h.CompressedSize)
	if h.HasCRC {
		w.i32(4, h.CRC)
	}
	if d := h.Data; d != nil {
		o := w.structField(5)
		w.i32(1, d.NumValues)
		w.i32(2, int32(d.Encoding))
		w.i32(3, int32(d.DefinitionLevelEncoding))
		w.i32(4, int32(d.RepetitionLevelEncoding))
		w.end(o)
	}
	if d := h.Dictionary; d != nil {
		o := w.structField(7)
		w.i32(1, d.NumValues)
		w.i32(2, int32(d.Encoding))
		w.end(o)
	}
	w.end(0)
	return w.b
}
