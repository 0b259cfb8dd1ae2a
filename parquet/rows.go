package parquet

import (
	"errors"
	"fmt"
	"io"
)

// Rows reads chosen columns of a File row by row:
//
//	rows, err := f.Rows(nil) // every column
//	for rows.Next() {
//		for i, c := range rows.Columns() {
//			if rows.Null(i) { continue }
//			switch c.Kind {
//			case parquet.Int64:
//				use(c.Name, rows.Int64s(i))
//			...
//		}
//	}
//	if err := rows.Err(); err != nil { ... }
//
// The slices a row's accessors return are valid until the next call to
// Next. A Rows is not safe for concurrent use.
type Rows struct {
	f     *File
	cols  []Column
	idx   []int // the columns' indexes in the file
	group int   // the row group being read; -1 before the first
	left  int64 // rows of the group not yet read
	row   int64 // the current row's index in the file
	rd    []columnReader
	out   []rowValues
	dec   decoders
	err   error
	done  bool
}

// rowValues is one column's values in the current row.
type rowValues struct {
	null  bool
	i     []int64
	f     []float32
	b     [][]byte
	arena []byte // the bytes b slices, copied out of the pages
	size  int    // the bytes the values take, as rowLimitError counts them
}

// bytesValueSize is what a bytes value takes besides its bytes: its slice.
const bytesValueSize = 24

// A rowLimitError reports a row whose values take more memory than
// MaxPageSize allows: 8 bytes an int64, 4 a float, a bytes value its
// length and bytesValueSize. A page's entries are decoded a batch at a
// time, but a row is returned whole, so its memory grows with its values,
// millions of which a page of a few bytes can claim.
type rowLimitError struct{ limit int }

func (e *rowLimitError) Error() string {
	return fmt.Sprintf("the row's values take more than the %d-byte limit (MaxPageSize)", e.limit)
}

// Rows returns a reader of the named columns, in the order given, or of
// every column when names is empty. A column that cannot be read (its
// Err is not nil) is an error only if it is chosen, by name or by
// choosing every column.
func (f *File) Rows(names []string) (*Rows, error) {
	r := new(Rows)
	if err := r.Reset(f, names); err != nil {
		return nil, err
	}
	return r, nil
}

// Reset makes r read the named columns of f from its first row, as
// f.Rows(names) would, keeping the buffers r grew on its earlier files:
// a reader of many files allocates for the first.
func (r *Rows) Reset(f *File, names []string) error {
	r.close()
	idx := r.idx[:0]
	if len(names) == 0 {
		for i := range f.cols {
			idx = append(idx, i)
		}
	} else {
		for _, name := range names {
			i := f.column(name)
			if i < 0 {
				return f.errorAt(-1, -1, fmt.Errorf("no column %q", name))
			}
			idx = append(idx, i)
		}
	}
	cols := r.cols[:0]
	for _, i := range idx {
		c := f.cols[i]
		if c.Err != nil {
			return f.errorAt(-1, -1, c.Err)
		}
		cols = append(cols, c)
	}
	// The column readers keep their buffers; nextGroup sets the rest.
	rd, out := r.rd, r.out
	if cap(rd) < len(idx) {
		rd = append(rd[:cap(rd)], make([]columnReader, len(idx)-cap(rd))...)
		out = append(out[:cap(out)], make([]rowValues, len(idx)-cap(out))...)
	}
	*r = Rows{f: f, cols: cols, idx: idx, group: -1, row: -1, rd: rd[:len(idx)], out: out[:len(idx)],
		dec: decoders{maxPage: f.maxPage, gz: r.dec.gz}}
	return nil
}

// column returns the index of the column named name, or -1.
func (f *File) column(name string) int {
	for i := range f.cols {
		if f.cols[i].Name == name {
			return i
		}
	}
	return -1
}

// Columns returns the columns Rows reads, in the order of its accessors'
// indexes.
func (r *Rows) Columns() []Column { return r.cols }

// Next reads the next row. It returns false at the end of the file or
// after an error, which Err returns.
func (r *Rows) Next() bool {
	if r.done {
		return false
	}
	for r.left == 0 {
		if err := r.nextGroup(); err != nil {
			if err != io.EOF {
				r.err = err
			}
			r.close()
			return false
		}
	}
	r.row++
	r.left--
	limit := r.f.maxPage
	for k := range r.rd {
		out := &r.out[k]
		err := r.rd[k].readRow(out, limit)
		limit -= out.size
		if err != nil {
			r.err = r.fail(k, err)
			r.close()
			return false
		}
	}
	if r.left == 0 {
		// Every chunk must end with its row group's rows.
		for k := range r.rd {
			if err := r.rd[k].atEnd(); err != nil {
				r.err = r.fail(k, err)
				r.close()
				return false
			}
		}
	}
	return true
}

// Skip moves past the next n rows without returning them: whole row
// groups are passed over unread, the rest read and dropped. After Skip,
// Next reads the row after them; Row is the last one skipped.
func (r *Rows) Skip(n int64) error {
	groups := r.f.meta.RowGroups
	for n > 0 {
		if r.done {
			if r.err != nil {
				return r.err
			}
			return r.f.errorAt(-1, -1, fmt.Errorf("skipping %d rows past the last", n))
		}
		if r.left == 0 && r.group+1 < len(groups) && groups[r.group+1].NumRows <= n {
			r.group++
			r.row += groups[r.group].NumRows
			n -= groups[r.group].NumRows
			continue
		}
		if !r.Next() {
			continue // done: the error or the end, above
		}
		n--
	}
	return nil
}

// nextGroup starts the next row group with rows, or returns io.EOF.
func (r *Rows) nextGroup() error {
	meta := r.f.meta
	r.group++
	if r.group >= len(meta.RowGroups) {
		return io.EOF
	}
	rg := &meta.RowGroups[r.group]
	r.left = rg.NumRows
	for k, i := range r.idx {
		m := &rg.Columns[i].Meta
		start, end := chunkBounds(m)
		c := &r.rd[k]
		c.col = &r.cols[k]
		c.pages = pageReader{r: r.f.r, off: start, end: end, codec: m.Codec, limits: &r.dec,
			window: windowFor(end-start, len(r.idx)), winBuf: c.pages.winBuf, raw: c.pages.raw, plain: c.pages.plain}
		c.left = m.NumValues
		c.hasDict = false
		c.dictI, c.dictF, c.dictB, c.dictBad = c.dictI[:0], c.dictF[:0], c.dictB[:0], c.dictBad[:0]
		c.n, c.pos, c.pageLeft, c.offset = 0, 0, 0, start
	}
	return nil
}

// fail names the row, the column and the page in an error.
func (r *Rows) fail(k int, err error) error {
	c := &r.rd[k]
	return r.f.errorAt(c.offset, r.row, fmt.Errorf("row %d, column %q, row group %d, page at offset %d: %w", r.row, c.col.Name, r.group, c.offset, err))
}

func (r *Rows) close() {
	r.done = true
	r.dec.close()
}

// Err returns the error that ended Next, or nil at the end of the file.
func (r *Rows) Err() error { return r.err }

// Row returns the current row's index in the file, from 0.
func (r *Rows) Row() int64 { return r.row }

// Null reports whether column i is null in the current row: a null
// value, a null list, or a null struct above it. An empty list is not
// null.
func (r *Rows) Null(i int) bool { return r.out[i].null }

// Int64s returns the values of column i, of Kind Int64, in the current
// row.
func (r *Rows) Int64s(i int) []int64 { return r.out[i].i }

// Floats returns the values of column i, of Kind Float.
func (r *Rows) Floats(i int) []float32 { return r.out[i].f }

// Bytes returns the values of column i, of Kind Bytes.
func (r *Rows) Bytes(i int) [][]byte { return r.out[i].b }

// errRowsShort reports a column chunk with fewer rows than its row
// group.
var errRowsShort = errors.New("the column chunk ends before its row group's rows")

// readRow reads one row's entries into out, whose values may take at
// most limit bytes.
func (c *columnReader) readRow(out *rowValues, limit int) error {
	out.null, out.size = false, 0
	out.i, out.f, out.b, out.arena = out.i[:0], out.f[:0], out.b[:0], out.arena[:0]
	col := c.col
	first := true
	for {
		if c.pos == c.n {
			if c.pageLeft > 0 {
				if err := c.nextBatch(); err != nil {
					return err
				}
				continue
			}
			err := c.nextPage()
			if err == io.EOF {
				if first {
					return errRowsShort
				}
				break
			}
			if err != nil {
				return err
			}
			continue
		}
		var rep int32
		if col.maxRep > 0 {
			rep = c.rep[c.pos]
		}
		if first != (rep == 0) {
			if !first {
				break // the next row's first entry
			}
			return fmt.Errorf("a row starts at repetition level %d", rep)
		}
		def := col.maxDef
		if col.maxDef > 0 {
			def = c.def[c.pos]
		}
		c.pos++
		switch {
		case def == col.maxDef:
			if err := c.take(out); err != nil {
				return err
			}
			if out.size > limit {
				return &rowLimitError{c.pages.limits.maxPage}
			}
		case !col.List || def < col.listDef:
			if !first {
				return fmt.Errorf("a null list inside a list's entries (definition level %d)", def)
			}
			out.null = true
		case def == col.listDef:
			if !first {
				return fmt.Errorf("an empty list inside a list's entries")
			}
		default:
			return fmt.Errorf("a list element is null (definition level %d of %d); an Example cannot hold a null in a list", def, col.maxDef)
		}
		first = false
		if !col.List {
			break
		}
	}
	if col.Kind == Bytes {
		// Slice the arena only now: appending may have moved it.
		off := 0
		for k, v := range out.b {
			out.b[k] = out.arena[off : off+len(v) : off+len(v)]
			off += len(v)
		}
	}
	return nil
}

// take appends the page's next value to out.
func (c *columnReader) take(out *rowValues) error {
	v := &c.vals
	switch c.col.Kind {
	case Int64:
		if c.vi >= len(v.i) {
			return c.noValue()
		}
		out.i = append(out.i, v.i[c.vi])
		out.size += 8
	case Float:
		if c.vi >= len(v.f) {
			return c.noValue()
		}
		out.f = append(out.f, v.f[c.vi])
		out.size += 4
	default:
		if c.vi >= len(v.b) {
			return c.noValue()
		}
		b := v.b[c.vi]
		// The page's bytes are overwritten by the next page, which a list
		// may run into: copy them, and slice when the row is whole.
		out.arena = append(out.arena, b...)
		out.b = append(out.b, b)
		out.size += len(b) + bytesValueSize
	}
	c.vi++
	return nil
}

func (c *columnReader) noValue() error {
	if c.bad != nil {
		return c.bad
	}
	return fmt.Errorf("the page has fewer values than its levels say")
}

// atEnd checks that a chunk has no entries past its row group's rows.
func (c *columnReader) atEnd() error {
	if c.pos < c.n || c.pageLeft > 0 {
		return fmt.Errorf("the column chunk has entries past its row group's rows")
	}
	for {
		err := c.nextPage()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if c.pageLeft > 0 {
			return fmt.Errorf("the column chunk has entries past its row group's rows")
		}
	}
	if c.left != 0 {
		return fmt.Errorf("the column chunk's pages hold %d values fewer than its metadata says", c.left)
	}
	return nil
}
