package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/sluiceml/sluice/dataerr"
	"github.com/sluiceml/sluice/example"
	"github.com/sluiceml/sluice/parquet"
	"github.com/sluiceml/sluice/recordio"
	"github.com/sluiceml/sluice/storage"
	"github.com/sluiceml/sluice/tensor"
	"github.com/spf13/cobra"
)

// parquetCodecs are convert --to parquet's --compression values.
var parquetCodecs = map[string]parquet.Compression{
	"NONE": parquet.Uncompressed, "SNAPPY": parquet.Snappy, "GZIP": parquet.Gzip, "ZSTD": parquet.Zstd,
}

// runConvertParquet writes the Examples conv makes as Parquet files
// (convert --to parquet). A Parquet file's schema comes before its rows
// are written, and a feature's column (its kind, and whether it holds
// one value a row or a list) depends on every record, so the input is
// read twice: once for the schema, then for the rows.
func runConvertParquet(cmd *cobra.Command, args []string, conv converter, o convertOptions, t *tally) error {
	ctx := cmd.Context()
	codec, ok := parquetCodecs[strings.ToUpper(o.compression)]
	if !cmd.Flags().Changed("compression") {
		codec, ok = parquet.Snappy, true
	}
	if !ok {
		return fmt.Errorf("--compression: --to parquet writes NONE, SNAPPY, GZIP or ZSTD, not %q", o.compression)
	}
	if err := checkOut(o.out); err != nil {
		return err
	}
	names, err := expand(ctx, args)
	if err != nil {
		return err
	}
	if slices.ContainsFunc(names, isStdin) {
		return fmt.Errorf("--to parquet reads its input twice (the schema, then the rows), so not from standard input: write it to a file first")
	}
	for _, n := range names {
		// A pipe or a FIFO would give its records to the first reading
		// alone, and the Parquet file none.
		if p, ok := localName(n); ok {
			if fi, err := os.Stat(p); err == nil && !fi.Mode().IsRegular() {
				return fmt.Errorf("%s is not a regular file: --to parquet reads its input twice (the schema, then the rows); write it to a file first", n)
			}
		}
	}
	inputs := names
	if o.labels != "" {
		inputs = append(inputs[:len(inputs):len(inputs)], o.labels)
	}
	outputs := []string{strings.TrimSuffix(o.out, ".parquet") + ".parquet"}
	if o.shards > 1 {
		outputs = recordio.ShardNames(strings.TrimSuffix(o.out, ".parquet"), o.shards, ".parquet")
	}
	if err := checkOutputs(inputs, outputs); err != nil {
		return err
	}
	total := inputSize(ctx, inputs)

	// The features to keep, when --columns is not the converter's.
	var keep map[string]bool
	if o.columns != "" && !o.inputColumns() {
		names, err := columnNames(o.columns, "--to parquet takes the names of the features to keep (their types are the records')")
		if err != nil {
			return err
		}
		keep = make(map[string]bool, len(names))
		for _, n := range names {
			keep[n] = true
		}
	}

	// The schema: the converter's Examples, into nothing.
	s := newColumnSchema(keep)
	first := o
	if o.salvage != nil {
		first.salvage = &salvage{w: io.Discard} // the second pass reports
	}
	prog := newProgress(cmd.ErrOrStderr(), "schema", total)
	err = conv(ctx, names, first, prog, nil, s.add)
	prog.finish()
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		return err
	}
	firstRecords := s.records
	cols, err := s.columns()
	if err != nil {
		return err
	}
	for name := range keep {
		if !slices.ContainsFunc(cols, func(c parquet.Column) bool { return c.Name == name }) {
			return fmt.Errorf("--columns: no record holds the feature %q", name)
		}
	}

	if err := removeLeftovers(ctx, inputs, strings.TrimSuffix(o.out, ".parquet"), outputs, cmd.ErrOrStderr()); err != nil {
		return err
	}
	wopts := parquet.WriterOptions{Compression: codec, CreatedBy: "sluice version " + version()}
	if !o.parquetDict {
		wopts.DictionaryPageSize = -1
	}
	out, err := newParquetShards(ctx, outputs, cols, keep, wopts)
	if err != nil {
		return err
	}
	own := make([]string, len(out.files))
	for i, f := range out.files {
		own[i] = f.TempName()
	}
	if err := refuseOtherWriters(ctx, strings.TrimSuffix(o.out, ".parquet"), outputs, own); err != nil {
		return errors.Join(err, out.abort())
	}
	err = convertAll(cmd, conv, names, o, total, t, out.write)
	if err == nil && out.rows != firstRecords {
		err = fmt.Errorf("the input gave %d records to the first reading and %d to the second: it changed meanwhile (nothing was written)", firstRecords, out.rows)
	}
	if err == nil {
		err = out.close()
	}
	if err != nil {
		// Nothing appears under the output names; a temporary that
		// could not be removed is named.
		return errors.Join(err, out.abort())
	}
	shuffled := ""
	if o.shuffle {
		shuffled = fmt.Sprintf(" (shuffled, seed %d)", o.seed)
	}
	fmt.Fprintf(cmd.OutOrStdout(), "wrote %d rows of %d columns to %s%s%s\n", out.rows, len(cols), fileList(outputs), shuffled, o.salvage.summary())
	return nil
}

// A columnSchema finds the Parquet columns of Examples: one a feature,
// named for it, of the feature's kind; a list unless every record that
// holds the feature holds one value; text if every bytes value is UTF-8.
type columnSchema struct {
	keep    map[string]bool // the features to keep; nil: all
	sc      example.Scanner
	r       recordRenderer // tells what a record that is not an Example is
	records int64
	cols    map[string]*columnSeen
	bytes   [][]byte
}

type columnSeen struct {
	kinds  [3]bool // bytes, float, int64 (kindNames' order)
	list   bool
	binary bool // a bytes value is not UTF-8
}

func newColumnSchema(keep map[string]bool) *columnSchema {
	return &columnSchema{keep: keep, cols: map[string]*columnSeen{}}
}

// scan reads rec, the records'th record (from 0), as an Example.
func (s *columnSchema) scan(rec []byte) error {
	err := s.sc.Scan(rec)
	if err == nil && (!s.sc.Unknown() || scanExtended(&s.sc, rec)) {
		return nil
	}
	what := "is not an Example"
	if s.r.isSequence(rec, true) {
		what = "is a SequenceExample with feature lists, which a table cannot hold"
	} else if err != nil {
		what += " (" + err.Error() + ")"
	}
	return recordProblem{fmt.Errorf("the record %s; --to parquet writes Examples", what)}
}

// A recordProblem is a record the output cannot hold. The converter that
// read it knows where it is, and adds that (located).
type recordProblem struct{ err error }

func (p recordProblem) Error() string { return p.err.Error() }
func (p recordProblem) Unwrap() error { return p.err }

// located returns err, the error of the record at offset off of the file
// name, with the record's key (name:offset, as cat --keys prints it) when
// it is a problem of the record's own (recordProblem).
func located(name string, off int64, err error) error {
	if _, ok := errors.AsType[recordProblem](err); !ok {
		return err
	}
	return &dataerr.Error{File: name, Offset: off, Record: -1, Key: name + ":" + strconv.FormatInt(off, 10), Err: err}
}

func (s *columnSchema) add(rec []byte) error {
	if err := s.scan(rec); err != nil {
		return err
	}
	s.records++
	for i := range s.sc.Len() {
		name := s.sc.Name(i)
		if s.keep != nil && !s.keep[string(name)] {
			continue
		}
		c := s.cols[string(name)]
		if c == nil {
			switch {
			case len(name) == 0:
				return recordProblem{errors.New("a feature with an empty name, which a Parquet column cannot have")}
			case !utf8.Valid(name):
				return recordProblem{fmt.Errorf("feature name %q is not UTF-8, which a Parquet column's name must be", name)}
			}
			c = &columnSeen{}
			s.cols[string(name)] = c
		}
		c.list = c.list || s.sc.Count(i) != 1
		k := slices.Index([]tensor.DType{tensor.String, tensor.Float32, tensor.Int64}, s.sc.Kind(i))
		if k < 0 {
			continue // no kind: no values, of no type
		}
		for other, seen := range c.kinds {
			if seen && other != k {
				return recordProblem{fmt.Errorf("feature %q is %s here and %s in an earlier record: a Parquet column has one type",
					name, kindNames[k], kindNames[other])}
			}
		}
		switch s.sc.Kind(i) {
		case tensor.String:
			c.kinds[0] = true
			if !c.binary {
				s.bytes = s.sc.AppendBytes(s.bytes[:0], i)
				for _, v := range s.bytes {
					if !utf8.Valid(v) {
						c.binary = true
						break
					}
				}
			}
		case tensor.Float32:
			c.kinds[1] = true
		case tensor.Int64:
			c.kinds[2] = true
		}
	}
	return nil
}

// columns returns the columns, sorted by name.
func (s *columnSchema) columns() ([]parquet.Column, error) {
	cols := make([]parquet.Column, 0, len(s.cols))
	for name, c := range s.cols {
		// A feature no record gives a kind holds no values and has no
		// type: it has no column, and comes back from the table missing,
		// which parses as it did (a list of any type would come back as
		// an empty list of that type, which parses only as that type).
		k := slices.Index(c.kinds[:], true)
		if k < 0 {
			continue
		}
		col := parquet.Column{Name: name, List: c.list, Kind: [3]parquet.Kind{parquet.Bytes, parquet.Float, parquet.Int64}[k]}
		col.Text = c.kinds[0] && !c.binary
		cols = append(cols, col)
	}
	if len(cols) == 0 {
		if s.keep != nil {
			return nil, fmt.Errorf("--columns: no record holds the features %q", slices.Sorted(maps.Keys(s.keep)))
		}
		return nil, fmt.Errorf("the %d records hold no features with values: a Parquet file needs a column", s.records)
	}
	slices.SortFunc(cols, func(a, b parquet.Column) int { return strings.Compare(a.Name, b.Name) })
	return cols, nil
}

// columnDType is the kind of feature each kind of column holds.
var columnDType = [...]tensor.DType{parquet.Bytes: tensor.String, parquet.Float: tensor.Float32, parquet.Int64: tensor.Int64}

// parquetShards writes rows dealt round-robin to Parquet files under
// temporary names, renamed into place only when every file is complete.
type parquetShards struct {
	s       *columnSchema // reads the records again
	index   map[string]int
	kinds   []parquet.Kind
	files   []*storage.Pending
	bufs    []*bufio.Writer
	writers []*parquet.Writer
	rows    int64
	// A row's values, a slice a column, which the writer reads at WriteRow.
	i64 [][]int64
	f32 [][]float32
	bs  [][][]byte
}

func newParquetShards(ctx context.Context, names []string, cols []parquet.Column, keep map[string]bool, opts parquet.WriterOptions) (*parquetShards, error) {
	p := &parquetShards{s: newColumnSchema(keep), index: make(map[string]int, len(cols)),
		i64: make([][]int64, len(cols)), f32: make([][]float32, len(cols)), bs: make([][][]byte, len(cols))}
	for i, c := range cols {
		p.index[c.Name] = i
		p.kinds = append(p.kinds, c.Kind)
	}
	for _, name := range names {
		f, err := storage.CreatePending(ctx, name)
		if err != nil {
			return nil, errors.Join(err, p.abort())
		}
		b := bufio.NewWriterSize(f, 1<<20)
		w, err := parquet.NewWriter(b, cols, opts)
		if err != nil {
			return nil, errors.Join(err, f.Abort(), p.abort())
		}
		p.files, p.bufs, p.writers = append(p.files, f), append(p.bufs, b), append(p.writers, w)
	}
	return p, nil
}

func (p *parquetShards) write(rec []byte) error {
	sc := &p.s.sc
	if err := p.s.scan(rec); err != nil {
		return err
	}
	w := p.writers[p.rows%int64(len(p.writers))]
	for j := range sc.Len() {
		i, ok := p.index[string(sc.Name(j))]
		if !ok && (p.s.keep != nil && !p.s.keep[string(sc.Name(j))] || sc.Kind(j) == tensor.Invalid) {
			continue // a feature left out, or one no record gave a kind
		}
		if !ok {
			return recordProblem{fmt.Errorf("record %d holds feature %q, which the first pass did not find: did the input change?", p.s.records, sc.Name(j))}
		}
		if k := sc.Kind(j); k != tensor.Invalid && k != columnDType[p.kinds[i]] {
			return recordProblem{fmt.Errorf("record %d: feature %q is %v, its column %v: did the input change since the first pass?", p.s.records, sc.Name(j), k, p.kinds[i])}
		}
		// A feature of no kind (an empty list) is set as an empty list of
		// its column's kind: a list column, as the first pass saw.
		switch p.kinds[i] {
		case parquet.Bytes:
			p.bs[i] = sc.AppendBytes(p.bs[i][:0], j)
			w.SetBytes(i, p.bs[i])
		case parquet.Float:
			p.f32[i] = sc.AppendFloats(p.f32[i][:0], j)
			w.SetFloats(i, p.f32[i])
		default:
			p.i64[i] = sc.AppendInt64s(p.i64[i][:0], j)
			w.SetInt64s(i, p.i64[i])
		}
	}
	if err := w.WriteRow(); err != nil {
		return fmt.Errorf("record %d: %w (did the input change since the first pass?)", p.s.records, err)
	}
	p.s.records++
	p.rows++
	return nil
}

// close finishes every file and, when all are whole, commits them.
func (p *parquetShards) close() error {
	for i, w := range p.writers {
		if err := w.Close(); err != nil {
			return fmt.Errorf("%s: %w", p.files[i].Name(), err)
		}
		if err := p.bufs[i].Flush(); err != nil {
			return fmt.Errorf("%s: %w", p.files[i].Name(), err)
		}
		if err := p.files[i].Close(); err != nil {
			return err
		}
	}
	return storage.CommitAll(p.files)
}

// abort removes the files' temporaries, and returns the errors of those
// it could not remove.
func (p *parquetShards) abort() error {
	var errs []error
	for _, f := range p.files {
		errs = append(errs, f.Abort())
	}
	return errors.Join(errs...)
}
