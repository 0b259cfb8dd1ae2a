package cli

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/sluiceml/sluice/dataerr"
	"github.com/sluiceml/sluice/decode"
	"github.com/sluiceml/sluice/example"
	"github.com/sluiceml/sluice/tensor"
)

// csvSampleLines is how many data lines type inference looks at. They are
// held in memory while the types are unknown; the rest is streamed.
const csvSampleLines = 1000

// sampleBytes bounds the lines held for inference (and a CSV batch): the
// sample ends with the line that reaches it, so a thousand long lines
// cost 64 MiB, not a thousand times --max-record-size. A variable for
// the tests.
var sampleBytes = 64 << 20

// csvBatch is how many lines are decoded at a time.
const csvBatch = 256

// A csvColumn is one CSV column and the feature it becomes.
type csvColumn struct {
	name     string
	dtype    tensor.DType // Invalid until inferred
	inferred bool         // dtype was inferred, not given with --columns
}

// csvOptions are convert's flags for CSV input alone.
type csvOptions struct {
	delimiter string // --delimiter
}

// csvDelimiter checks --delimiter: one ASCII character, \t standing for
// a tab, that can separate fields (decode_csv's field_delim).
func csvDelimiter(s string) (byte, error) {
	if s == `\t` {
		return '\t', nil
	}
	if len(s) != 1 || s[0] >= 0x80 {
		return 0, fmt.Errorf("--delimiter must be one character (\\t for a tab), not %q", s)
	}
	if s[0] == '\n' || s[0] == '\r' || s[0] == '"' {
		return 0, fmt.Errorf("--delimiter cannot be a newline or a double quote, not %q", s)
	}
	return s[0], nil
}

// utf8BOM starts some CSV files, before the header or the first record.
var utf8BOM = []byte("\ufeff")

// csvTypes are the --columns type names.
var csvTypes = map[string]tensor.DType{"int64": tensor.Int64, "float": tensor.Float32, "string": tensor.String}

// notUTF8Name says why a feature name that is not UTF-8 is refused: an
// Example's feature names are proto3 strings, and TensorFlow refuses a
// record holding one that is not ("String field had bad UTF-8"), as sluice
// cat would show it changed (audit 49).
const notUTF8Name = "is not UTF-8, which a feature's name must be (TensorFlow refuses the record)"

// parseColumns reads --columns: name[:type],... A column without a type
// is left for inference.
func parseColumns(s string) ([]csvColumn, error) {
	var cols []csvColumn
	seen := map[string]bool{}
	for _, spec := range strings.Split(s, ",") {
		name, typ, hasType := strings.Cut(strings.TrimSpace(spec), ":")
		if name == "" {
			return nil, fmt.Errorf("--columns: empty column name in %q", s)
		}
		if !utf8.ValidString(name) {
			return nil, fmt.Errorf("--columns: column name %q %s", name, notUTF8Name)
		}
		if seen[name] {
			return nil, fmt.Errorf("--columns: column %q named twice", name)
		}
		seen[name] = true
		c := csvColumn{name: name}
		if hasType {
			if c.dtype = csvTypes[typ]; c.dtype == tensor.Invalid {
				return nil, fmt.Errorf("--columns: type %q of column %q must be int64, float or string", typ, name)
			}
		}
		cols = append(cols, c)
	}
	return cols, nil
}

// columnCost is about what a CSV column costs convert and schema in
// memory whatever its values: its decoders' columns, a tensor per batch,
// its feature in the builder, its name. A line of a million empty fields
// is two megabytes, and would cost a gigabyte (audit 62).
const columnCost = 1 << 10

// maxColumns is the most columns a CSV input may have: as many as
// --max-record-size pays columnCost for, and no fewer than a thousand,
// for a limit set small.
func maxColumns(ctx context.Context) int {
	return int(max(settingsFrom(ctx).maxRecord/columnCost, 1<<10))
}

// checkFieldCount refuses a line of more than limit fields before it is
// split, which costs a string per field. Delimiters between double quotes
// are not counted; a line whose quotes are malformed is the splitter's to
// refuse.
func checkFieldCount(line []byte, delim byte, limit int, where string) error {
	n, quoted := 1, false
	for _, b := range line {
		switch {
		case b == '"':
			quoted = !quoted
		case b == delim && !quoted:
			if n++; n > limit {
				return fmt.Errorf("%s: more than %d columns, the most that --max-record-size (about %d bytes a column) allows", where, limit, columnCost)
			}
		}
	}
	return nil
}

// headerColumns names the columns from a header line, split as CSV, of at
// most limit columns.
func headerColumns(line []byte, delim byte, limit int, where string) ([]csvColumn, error) {
	if err := checkFieldCount(line, delim, limit, where+": header"); err != nil {
		return nil, err
	}
	r := csv.NewReader(bytes.NewReader(line))
	r.Comma = rune(delim)
	fields, err := r.Read()
	if err == io.EOF {
		return nil, fmt.Errorf("%s: header: the line is empty", where)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: header: %w", where, err)
	}
	cols := make([]csvColumn, len(fields))
	seen := map[string]bool{}
	for i, f := range fields {
		if f == "" || seen[f] {
			return nil, fmt.Errorf("%s: header: column %d's name %q is empty or repeated", where, i, f)
		}
		if !utf8.ValidString(f) {
			return nil, fmt.Errorf("%s: header: column %d's name %q %s", where, i, f, notUTF8Name)
		}
		seen[f] = true
		cols[i].name = f
	}
	return cols, nil
}

// unnamedColumns returns the columns of a file without a header: as many
// as its first line has fields, at most limit, named c0, c1, ... That line
// is a record, whose values may be empty or alike, as no header's names
// may.
func unnamedColumns(line []byte, delim byte, limit int, where string) ([]csvColumn, error) {
	if err := checkFieldCount(line, delim, limit, where); err != nil {
		return nil, err
	}
	r := csv.NewReader(bytes.NewReader(line))
	r.Comma = rune(delim)
	fields, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	cols := make([]csvColumn, len(fields))
	for i := range cols {
		cols[i].name = "c" + strconv.Itoa(i)
	}
	return cols, nil
}

// blankLine reports a line that holds no record: an empty one (a CRLF
// file's too). A line of spaces or tabs is a record: decode_csv reads a
// tab-separated line of two empty fields, or one of spaces, as values.
func blankLine(line []byte) bool {
	return len(line) == 0 || len(line) == 1 && line[0] == '\r'
}

// inferType returns the narrowest type every non-empty value parses as:
// int64, else float, else string. A column of empty values is a string.
// Values are parsed by the decoder's own rules (decode.ValidField), so
// that a column is never inferred as a type its values then fail to
// decode as.
func inferType(values [][]byte) tensor.DType {
	dt := tensor.Invalid
	for _, v := range values {
		if len(v) == 0 {
			continue
		}
		if dt = widen(dt, v); dt == tensor.String {
			break
		}
	}
	if dt == tensor.Invalid {
		return tensor.String
	}
	return dt
}

// csvConverter turns CSV lines into Examples in batches.
//
// Its columns are the output's features, in the order of --columns, else
// of the first file's header. With --header every file's own header maps
// its fields to those columns by name, so files may order their columns
// differently; keys are the names a header must hold, in column order:
// the columns' names, or the first header's when --columns renames the
// columns (names none of the header's).
type csvConverter struct {
	o       convertOptions
	delim   byte
	maxCols int // maxColumns
	cols    []csvColumn
	keys    []string
	pos     []int       // the current file's field of each column; nil: the same order
	sampled int         // lines the types were inferred from
	opened  int         // files opened so far
	dec     *decode.CSV // for the current file's field order; nil until the types are known
	b       *example.Builder
	out     []byte
	arena   []byte
	ends    []int
	lines   []int // line number of each pending record
	recs    [][]byte
	source  string
	write   func([]byte) error
}

func convertCSV(ctx context.Context, names []string, o convertOptions, prog *progress, t *tally, write func([]byte) error) error {
	_, err := readCSV(ctx, names, o, prog, t, write)
	return err
}

// readCSV is convertCSV, returning also how many of the files it opened:
// fewer than len(names) when write stops it early.
func readCSV(ctx context.Context, names []string, o convertOptions, prog *progress, t *tally, write func([]byte) error) (opened int, err error) {
	delim, err := csvDelimiter(o.delimiter)
	if err != nil {
		return 0, err
	}
	c := &csvConverter{o: o, delim: delim, maxCols: maxColumns(ctx), b: example.New(), write: write}
	if o.columns != "" {
		cols, err := parseColumns(o.columns)
		if err != nil {
			return 0, err
		}
		c.cols = cols
	}
	for _, name := range names {
		if err := c.file(ctx, name, prog, t); err != nil {
			return c.opened, err
		}
	}
	return c.opened, nil
}

// file converts one CSV file.
func (c *csvConverter) file(ctx context.Context, name string, prog *progress, t *tally) error {
	f, err := openText(ctx, name, prog)
	if err != nil {
		return err
	}
	defer f.Close()
	c.opened++
	return c.stream(ctx, name, f, t)
}

// stream converts the CSV text in r, which errors call name.
func (c *csvConverter) stream(ctx context.Context, name string, r io.Reader, t *tally) error {
	c.source = name
	c.pos = nil
	err := eachLine(ctx, name, r, func(lineNo int, line []byte) error {
		if lineNo == 1 {
			line = bytes.TrimPrefix(line, utf8BOM)
			if c.o.header {
				return c.layout(line, name+":1")
			}
		}
		if blankLine(line) {
			return nil // empty lines, such as a trailing one, hold no record
		}
		t.read(len(line))
		c.add(line, lineNo)
		// Until every type is known, lines are held for inference.
		if c.dec == nil && len(c.ends) < csvSampleLines && len(c.arena) < sampleBytes {
			return nil
		}
		if c.dec == nil || len(c.ends) >= csvBatch || len(c.arena) >= sampleBytes {
			return c.flush()
		}
		return nil
	})
	if err != nil {
		return err
	}
	return c.flush()
}

// layout reads a file's header line and maps the file's fields to the
// columns by name. The first header names the columns, unless --columns
// did.
func (c *csvConverter) layout(line []byte, where string) error {
	header, err := headerColumns(line, c.delim, c.maxCols, where)
	if err != nil {
		return err
	}
	names := make([]string, len(header))
	field := make(map[string]int, len(header)) // a name's field: headers may hold a million
	for i, h := range header {
		names[i] = h.name
		field[h.name] = i
	}
	if c.keys == nil {
		switch {
		case c.cols == nil:
			c.cols = header
			c.keys = names
		case !slices.ContainsFunc(c.cols, func(col csvColumn) bool { _, ok := field[col.name]; return ok }):
			// --columns renames the header's columns, in its order.
			if len(c.cols) != len(names) {
				return fmt.Errorf("%s: header: %d columns, but --columns names %d", where, len(names), len(c.cols))
			}
			c.keys = names
		default:
			c.keys = make([]string, len(c.cols))
			for i, col := range c.cols {
				c.keys[i] = col.name
			}
		}
	}
	var problems []string
	pos := make([]int, len(c.keys))
	identity := len(names) == len(c.keys)
	wanted := make(map[string]bool, len(c.keys))
	for j, k := range c.keys {
		wanted[k] = true
		i, ok := field[k]
		if !ok {
			i = -1
			problems = append(problems, fmt.Sprintf("no column %q", k))
		}
		pos[j] = i
		identity = identity && i == j
	}
	for _, n := range names {
		if !wanted[n] {
			problems = append(problems, fmt.Sprintf("an extra column %q", n))
		}
	}
	if problems != nil {
		return fmt.Errorf("%s: header: %s (the columns are %s)", where, strings.Join(problems, "; "), strings.Join(c.keys, ", "))
	}
	if identity {
		pos = nil
	}
	c.pos = pos
	if c.dec != nil {
		return c.typedDecoder()
	}
	return nil
}

// field returns the field of the current file that holds column j.
func (c *csvConverter) field(j int) int {
	if c.pos == nil {
		return j
	}
	return c.pos[j]
}

// typedDecoder builds the decoder of the current file's fields, each of
// its column's type.
func (c *csvConverter) typedDecoder() error {
	columns := make([]decode.Column, len(c.cols))
	for j, col := range c.cols {
		var dc decode.Column
		switch col.dtype {
		case tensor.Int64:
			dc = decode.Int64Column(0)
		case tensor.Float32:
			dc = decode.Float32Column(0)
		default:
			dc = decode.StringColumn("")
		}
		columns[c.field(j)] = dc
	}
	var err error
	c.dec, err = decode.NewCSV(columns, decode.FieldDelim(string(rune(c.delim))))
	return err
}

// stringDecoder returns a decoder of n fields as strings.
func (c *csvConverter) stringDecoder(n int) (*decode.CSV, error) {
	strs := make([]decode.Column, n)
	for i := range strs {
		strs[i] = decode.StringColumn("")
	}
	return decode.NewCSV(strs, decode.FieldDelim(string(rune(c.delim))))
}

func (c *csvConverter) add(line []byte, lineNo int) {
	c.arena = append(c.arena, line...)
	c.ends = append(c.ends, len(c.arena))
	c.lines = append(c.lines, lineNo)
}

// pending slices the held lines out of the arena, which may have moved
// as it grew.
func (c *csvConverter) pending() {
	c.recs = c.recs[:0]
	start := 0
	for _, e := range c.ends {
		c.recs = append(c.recs, c.arena[start:e])
		start = e
	}
}

// setup settles the column names and types from the pending lines and
// builds the decoder.
func (c *csvConverter) setup() error {
	where := fmt.Sprintf("%s:%d", c.source, c.lines[0])
	if c.cols == nil {
		cols, err := unnamedColumns(c.recs[0], c.delim, c.maxCols, where)
		if err != nil {
			return err
		}
		c.cols = cols
	}
	// Split the sample with decode_csv's own rules, as strings, so that
	// inference sees exactly the fields the typed decoder will.
	d, err := c.stringDecoder(len(c.cols))
	if err != nil {
		return err
	}
	sample, err := d.DecodeBatch(c.recs, nil)
	if err != nil {
		return c.recordError(d, err)
	}
	c.sampled = len(c.recs)
	for j := range c.cols {
		if c.cols[j].dtype == tensor.Invalid {
			c.cols[j].dtype = inferType(sample[c.field(j)].Strings())
			c.cols[j].inferred = true
		}
	}
	return c.typedDecoder()
}

// flush decodes the pending lines and writes their Examples.
func (c *csvConverter) flush() error {
	if len(c.ends) == 0 {
		return nil
	}
	c.pending()
	if c.dec == nil {
		if err := c.setup(); err != nil {
			return err
		}
	}
	vals, err := c.dec.DecodeBatch(c.recs, nil)
	if err != nil {
		return c.recordError(c.dec, err)
	}
	for r := range c.recs {
		c.b.Reset()
		for j, col := range c.cols {
			v := vals[c.field(j)]
			switch col.dtype {
			case tensor.Int64:
				c.b.Int64(col.name, v.Int64s()[r])
			case tensor.Float32:
				c.b.Float(col.name, v.Float32s()[r])
			default:
				c.b.Bytes(col.name, v.Strings()[r])
			}
		}
		c.out = c.b.AppendMarshal(c.out[:0])
		if err := c.write(c.out); err != nil {
			return err
		}
	}
	c.arena, c.ends, c.lines, c.recs = c.arena[:0], c.ends[:0], c.lines[:0], c.recs[:0]
	return nil
}

// recordError names the failing line: the batch is decoded again one
// line at a time, keyed "file:line", so that the message carries
// TensorFlow's text for that line alone. A value that does not fit its
// column's type is named with the column, and, for an inferred type, the
// --columns flag that gives the type it needs.
func (c *csvConverter) recordError(d *decode.CSV, err error) error {
	de, ok := errors.AsType[*dataerr.Error](err)
	if !ok || de.Record < 0 || de.Record >= int64(len(c.recs)) {
		return fmt.Errorf("%s: %w", c.source, err)
	}
	line := c.lines[de.Record]
	key := fmt.Sprintf("%s:%d", c.source, line)
	rec := c.recs[de.Record : de.Record+1]
	_, err = d.DecodeBatch(rec, []string{key})
	if err == nil {
		de.File, de.Line, de.Key = c.source, int64(line), key
		return de
	}
	if de, ok = errors.AsType[*dataerr.Error](err); ok {
		de.File, de.Line = c.source, int64(line)
	}
	ce, ok := errors.AsType[*decode.CSVError](err)
	if !ok || ce.Field < 0 || d != c.dec {
		return err
	}
	j := -1
	for k := range c.cols {
		if c.field(k) == ce.Field {
			j = k
		}
	}
	if j < 0 {
		return err
	}
	col := c.cols[j]
	var value []byte
	if sd, serr := c.stringDecoder(len(c.cols)); serr == nil {
		if f, serr := sd.DecodeBatch(rec, nil); serr == nil {
			value = f[ce.Field].Strings()[0]
		}
	}
	if !col.inferred {
		return fmt.Errorf("%w (column %q, value %q)", err, col.name, value)
	}
	// The value failed to decode as col.dtype, so widening from it
	// suggests a wider type: float for an int64 column, else string.
	want := "string"
	if widen(col.dtype, value) == tensor.Float32 {
		want = "float"
	}
	return fmt.Errorf("%w: column %q holds %q, which is not %s, the type inferred from the first %d lines; give the column its type with --columns %s",
		err, col.name, value, col.dtype.TFName(), c.sampled, c.columnsFlag(j, want))
}

// columnsFlag returns a --columns value that names every column, as
// given or inferred now, with column j of type typ.
func (c *csvConverter) columnsFlag(j int, typ string) string {
	specs := make([]string, len(c.cols))
	for k, col := range c.cols {
		specs[k] = col.name
		switch {
		case k == j:
			specs[k] += ":" + typ
		case !col.inferred:
			for name, dt := range csvTypes {
				if dt == col.dtype {
					specs[k] += ":" + name
				}
			}
		}
	}
	return strings.Join(specs, ",")
}
