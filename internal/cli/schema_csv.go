package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/format"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/sluiceml/sluice/dataerr"
	"github.com/sluiceml/sluice/decode"
	"github.com/sluiceml/sluice/tensor"
)

// A csvSchema is what schema --from csv found in CSV files: each column's
// narrowest type over every line read (int64, else float, else string, as
// convert infers them) and how many lines left it empty.
type csvSchema struct {
	files   int
	lines   int64 // data lines read
	blank   int64 // empty lines, which decode_csv rejects
	header  bool
	delim   byte
	maxCols int // maxColumns
	cols    []csvColumnInfo

	dec     *decode.CSV // splits lines into string fields
	pending [][]byte    // lines not yet split
	keys    []string    // their file:line, for errors
	held    int         // bytes of the pending lines
}

type csvColumnInfo struct {
	name  string
	dtype tensor.DType // Invalid while every field is empty
	empty int64
}

// csvSchemaBatch is how many lines are split at a time.
const csvSchemaBatch = 256

// readCSVSchema reads up to limit data lines (all, if negative) of the
// files.
func readCSVSchema(ctx context.Context, names []string, delim byte, header bool, limit int) (*csvSchema, error) {
	s := &csvSchema{files: len(names), header: header, delim: delim, maxCols: maxColumns(ctx)}
	for _, name := range names {
		if limit >= 0 && s.lines+int64(len(s.pending)) >= int64(limit) {
			break
		}
		f, err := openText(ctx, name, io.Discard)
		if err != nil {
			return nil, err
		}
		err = s.file(ctx, name, f, limit)
		f.Close()
		if err != nil {
			return nil, err
		}
	}
	return s, s.flush()
}

// file reads one file's lines, a header line naming the columns (the
// same in every file).
func (s *csvSchema) file(ctx context.Context, name string, r io.Reader, limit int) error {
	return eachLine(ctx, name, r, func(lineNo int, line []byte) error {
		if limit >= 0 && s.lines+int64(len(s.pending)) >= int64(limit) {
			return errStopLines
		}
		if lineNo == 1 {
			line = bytes.TrimPrefix(line, utf8BOM)
			if s.header {
				return s.setHeader(line, name+":1")
			}
		}
		if blankLine(line) {
			s.blank++
			return nil
		}
		s.pending = append(s.pending, bytes.Clone(line))
		s.keys = append(s.keys, name+":"+strconv.Itoa(lineNo))
		if s.held += len(line); len(s.pending) == csvSchemaBatch || s.held >= sampleBytes {
			return s.flush()
		}
		return nil
	})
}

// setHeader takes a header line: the first names the columns, and every
// other must name the same.
func (s *csvSchema) setHeader(line []byte, where string) error {
	cols, err := headerColumns(line, s.delim, s.maxCols, where)
	if err != nil {
		return err
	}
	if s.cols == nil {
		for _, c := range cols {
			s.cols = append(s.cols, csvColumnInfo{name: c.name})
		}
		return nil
	}
	if len(cols) != len(s.cols) {
		return fmt.Errorf("%s: header: %d columns, where the first file's has %d", where, len(cols), len(s.cols))
	}
	for i, c := range cols {
		if c.name != s.cols[i].name {
			return fmt.Errorf("%s: header: column %d is %q, where the first file's is %q", where, i, c.name, s.cols[i].name)
		}
	}
	return nil
}

// flush splits the pending lines with decode_csv's rules, as convert's
// inference does, and narrows each column's type by their fields.
func (s *csvSchema) flush() error {
	if len(s.pending) == 0 {
		return nil
	}
	if s.dec == nil {
		if s.cols == nil {
			// No header: as many columns as the first line has fields,
			// named c0, c1, ...
			cols, err := unnamedColumns(s.pending[0], s.delim, s.maxCols, s.keys[0])
			if err != nil {
				return err
			}
			for _, c := range cols {
				s.cols = append(s.cols, csvColumnInfo{name: c.name})
			}
		}
		strs := make([]decode.Column, len(s.cols))
		for i := range strs {
			strs[i] = decode.StringColumn("")
		}
		var err error
		if s.dec, err = decode.NewCSV(strs, decode.FieldDelim(string(rune(s.delim)))); err != nil {
			return err
		}
	}
	fields, err := s.dec.DecodeBatch(s.pending, nil)
	if err != nil {
		// Again with the lines' names, which the error then gives: the
		// failing line alone, as convert and stats report it, since
		// decode_csv's message counts records in the batch it was
		// given ("record 1" of two lines; audit 72).
		if de, ok := errors.AsType[*dataerr.Error](err); ok && de.Record >= 0 && de.Record < int64(len(s.pending)) {
			i := de.Record
			if _, err1 := s.dec.DecodeBatch(s.pending[i:i+1], s.keys[i:i+1]); err1 != nil {
				return err1
			}
		}
		_, err = s.dec.DecodeBatch(s.pending, s.keys)
		return err
	}
	for j := range s.cols {
		c := &s.cols[j]
		for _, v := range fields[j].Strings() {
			if len(v) == 0 {
				c.empty++
				continue
			}
			c.dtype = widen(c.dtype, v)
		}
	}
	s.lines += int64(len(s.pending))
	s.pending, s.keys, s.held = s.pending[:0], s.keys[:0], 0
	return nil
}

// widen returns the narrowest of int64, float32 and string, no narrower
// than dt (tensor.Invalid: none yet), that v decodes as (inferType's
// rule, a field at a time), by the CSV decoder's own rules.
func widen(dt tensor.DType, v []byte) tensor.DType {
	switch dt {
	case tensor.Invalid, tensor.Int64:
		if decode.ValidField(tensor.Int64, v) {
			return tensor.Int64
		}
		fallthrough
	case tensor.Float32:
		if decode.ValidField(tensor.Float32, v) {
			return tensor.Float32
		}
	}
	return tensor.String
}

// typeName is a column's type as convert's --columns names it; a column
// whose every field was empty is a string.
func (c csvColumnInfo) typeName() string {
	switch c.dtype {
	case tensor.Int64:
		return "int64"
	case tensor.Float32:
		return "float"
	}
	return "string"
}

func (s *csvSchema) summary() string {
	files := "files"
	if s.files == 1 {
		files = "file"
	}
	msg := fmt.Sprintf("%d lines of CSV in %d %s, %d columns", s.lines, s.files, files, len(s.cols))
	switch {
	case s.blank == 1:
		msg += "; 1 empty line, which decode_csv (and sluice.CSV) rejects"
	case s.blank > 1:
		msg += fmt.Sprintf("; %d empty lines, which decode_csv (and sluice.CSV) rejects", s.blank)
	}
	return msg
}

var csvSchemaWriters = map[string]func(io.Writer, *csvSchema) error{
	"text":   writeCSVSchemaText,
	"go":     writeCSVSchemaGo,
	"python": writeCSVSchemaPython,
	"json":   writeCSVSchemaJSON,
}

func writeCSVSchemaText(w io.Writer, s *csvSchema) error {
	fmt.Fprintln(w, s.summary())
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "COLUMN\tTYPE\tEMPTY")
	for _, c := range s.cols {
		fmt.Fprintf(tw, "%s\t%s\t%d (%s)\n", cell(c.name), c.typeName(), c.empty, percent(c.empty, s.lines))
	}
	return tw.Flush()
}

// writeCSVSchemaGo prints the columns as sluice.CSV takes them, each empty
// field taking the type's zero.
func writeCSVSchemaGo(w io.Writer, s *csvSchema) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "// %s\n", s.summary())
	b.WriteString("columns := []sluice.Column{\n")
	for _, c := range s.cols {
		col := map[string]string{"int64": "decode.Int64Column(0)", "float": "decode.Float32Column(0)", "string": `decode.StringColumn("")`}[c.typeName()]
		fmt.Fprintf(&b, "sluice.Col(%s, %s),\n", strconv.Quote(c.name), col)
	}
	b.WriteString("}\n")
	var opts []string
	if s.header {
		opts = append(opts, "sluice.SkipHeaderLines(1)")
	}
	if s.delim != ',' {
		opts = append(opts, "sluice.FieldDelim("+strconv.Quote(string(rune(s.delim)))+")")
	}
	fmt.Fprintf(&b, "ds := sluice.CSV(\"FILES\", columns%s)\n", joinArgs(opts))
	src, err := format.Source(b.Bytes())
	if err != nil {
		return err
	}
	_, err = w.Write(src)
	return err
}

// writeCSVSchemaPython prints the columns for sluice's Python package and
// as TensorFlow's record_defaults.
func writeCSVSchemaPython(w io.Writer, s *csvSchema) error {
	fmt.Fprintf(w, "# %s\n", s.summary())
	fmt.Fprintln(w, "columns = [")
	for _, c := range s.cols {
		dt := map[string]string{"int64": `"int64"`, "float": `"float32"`, "string": "bytes"}[c.typeName()]
		fmt.Fprintf(w, "    (%s, %s),\n", strconv.Quote(c.name), dt)
	}
	fmt.Fprintln(w, "]")
	var opts []string
	if s.header {
		opts = append(opts, "header_lines=1")
	}
	if s.delim != ',' {
		opts = append(opts, "delim="+strconv.Quote(string(rune(s.delim))))
	}
	fmt.Fprintf(w, "ds = sluice.csv(\"FILES\", columns, batch_size=128%s)\n", joinArgs(opts))
	fmt.Fprintln(w)
	fmt.Fprintln(w, "# TensorFlow: tf.io.decode_csv(line, record_defaults) or tf.data.experimental.CsvDataset,")
	fmt.Fprintln(w, "# an empty field taking the type's zero as above")
	fmt.Fprint(w, "record_defaults = [")
	for i, c := range s.cols {
		if i > 0 {
			fmt.Fprint(w, ", ")
		}
		fmt.Fprint(w, map[string]string{"int64": "tf.constant([0], tf.int64)", "float": "[0.0]", "string": `[""]`}[c.typeName()])
	}
	fmt.Fprintln(w, "]")
	return nil
}

func joinArgs(opts []string) string {
	if len(opts) == 0 {
		return ""
	}
	return ", " + strings.Join(opts, ", ")
}

func writeCSVSchemaJSON(w io.Writer, s *csvSchema) error {
	type column struct {
		Name  string `json:"name"`
		Type  string `json:"type"`
		Empty int64  `json:"empty"`
	}
	doc := struct {
		Files   int      `json:"files"`
		Lines   int64    `json:"lines"`
		Blank   int64    `json:"blank_lines"`
		Columns []column `json:"columns"`
	}{Files: s.files, Lines: s.lines, Blank: s.blank, Columns: []column{}}
	for _, c := range s.cols {
		doc.Columns = append(doc.Columns, column{c.name, c.typeName(), c.empty})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}
