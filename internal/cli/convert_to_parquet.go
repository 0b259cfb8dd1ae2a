package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/sluiceml/sluice/example/pb"
	"github.com/sluiceml/sluice/parquet"
	"github.com/sluiceml/sluice/recordio"
	"github.com/sluiceml/sluice/storage"
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
	names, err := expand(ctx, args)
	if err != nil {
		return err
	}
	if slices.ContainsFunc(names, isStdin) {
		return fmt.Errorf("--to parquet reads its input twice (the schema, then the rows), so not from standard input: write it to a file first")
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

	// The schema: the converter's Examples, into nothing.
	s := newColumnSchema()
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
	cols, err := s.columns()
	if err != nil {
		return err
	}

	if err := removeLeftovers(ctx, outputs, cmd.ErrOrStderr()); err != nil {
		return err
	}
	out, err := newParquetShards(ctx, outputs, cols, parquet.WriterOptions{Compression: codec, CreatedBy: "sluice version " + version()})
	if err != nil {
		return err
	}
	prog = newProgress(cmd.ErrOrStderr(), "convert", total)
	write := func(rec []byte) error {
		t.wrote()
		return out.write(rec)
	}
	if o.shuffle {
		err = convertShuffled(ctx, conv, names, o, total, prog, t, write)
	} else {
		err = conv(ctx, names, o, prog, t, func(rec []byte) error {
			prog.record()
			return write(rec)
		})
	}
	prog.finish()
	if err == nil {
		err = ctx.Err()
	}
	if err == nil {
		err = out.close()
	}
	if err != nil {
		out.abort() // nothing appears under the output names
		return err
	}
	shuffled := ""
	if o.shuffle {
		shuffled = fmt.Sprintf(" (shuffled, seed %d)", o.seed)
	}
	fmt.Fprintf(cmd.OutOrStdout(), "wrote %d rows of %d columns to %s%s%s\n", out.rows, len(cols), strings.Join(outputs, ", "), shuffled, o.salvage.summary())
	return nil
}

// A columnSchema finds the Parquet columns of Examples: one a feature,
// named for it, of the feature's kind; a list unless every record that
// holds the feature holds one value; text if every bytes value is UTF-8.
type columnSchema struct {
	r       recordRenderer
	records int64
	cols    map[string]*columnSeen
}

type columnSeen struct {
	kinds  [3]bool // bytes, float, int64 (kindNames' order)
	list   bool
	binary bool // a bytes value is not UTF-8
}

func newColumnSchema() *columnSchema { return &columnSchema{cols: map[string]*columnSeen{}} }

// example parses rec, the records'th record (from 0), as an Example.
func (s *columnSchema) example(rec []byte) (map[string]*pb.Feature, error) {
	if !s.r.isExample(rec) {
		what := "is not an Example"
		if s.r.isSequence(rec, true) {
			what = "is a SequenceExample with feature lists, which a table cannot hold"
		}
		return nil, fmt.Errorf("record %d of the input %s (sluice cat --keys shows where it is); --to parquet writes Examples", s.records, what)
	}
	return s.r.ex.GetFeatures().GetFeature(), nil
}

func (s *columnSchema) add(rec []byte) error {
	feats, err := s.example(rec)
	if err != nil {
		return err
	}
	s.records++
	for name, f := range feats {
		c := s.cols[name]
		if c == nil {
			c = &columnSeen{}
			s.cols[name] = c
		}
		n := 0
		switch k := f.GetKind().(type) {
		case *pb.Feature_BytesList:
			c.kinds[0] = true
			n = len(k.BytesList.GetValue())
			for _, v := range k.BytesList.GetValue() {
				if !c.binary && !utf8.Valid(v) {
					c.binary = true
				}
			}
		case *pb.Feature_FloatList:
			c.kinds[1] = true
			n = len(k.FloatList.GetValue())
		case *pb.Feature_Int64List:
			c.kinds[2] = true
			n = len(k.Int64List.GetValue())
		}
		c.list = c.list || n != 1
	}
	return nil
}

// columns returns the columns, sorted by name.
func (s *columnSchema) columns() ([]parquet.Column, error) {
	if len(s.cols) == 0 {
		return nil, fmt.Errorf("the %d records hold no features: a Parquet file needs a column", s.records)
	}
	cols := make([]parquet.Column, 0, len(s.cols))
	for name, c := range s.cols {
		col := parquet.Column{Name: name, List: c.list, Kind: parquet.Bytes}
		var kinds []string
		for i, seen := range c.kinds {
			if seen {
				kinds = append(kinds, kindNames[i])
				col.Kind = [3]parquet.Kind{parquet.Bytes, parquet.Float, parquet.Int64}[i]
			}
		}
		if len(kinds) > 1 {
			return nil, fmt.Errorf("feature %q is %s in different records: a Parquet column has one type", name, strings.Join(kinds, " and "))
		}
		col.Text = c.kinds[0] && !c.binary
		cols = append(cols, col)
	}
	slices.SortFunc(cols, func(a, b parquet.Column) int { return strings.Compare(a.Name, b.Name) })
	return cols, nil
}

// parquetShards writes rows dealt round-robin to Parquet files under
// temporary names, renamed into place only when every file is complete.
type parquetShards struct {
	s       *columnSchema // parses the records again
	index   map[string]int
	kinds   []parquet.Kind
	files   []*storage.Pending
	bufs    []*bufio.Writer
	writers []*parquet.Writer
	rows    int64
}

func newParquetShards(ctx context.Context, names []string, cols []parquet.Column, opts parquet.WriterOptions) (*parquetShards, error) {
	p := &parquetShards{s: newColumnSchema(), index: make(map[string]int, len(cols))}
	for i, c := range cols {
		p.index[c.Name] = i
		p.kinds = append(p.kinds, c.Kind)
	}
	for _, name := range names {
		f, err := storage.CreatePending(ctx, name)
		if err != nil {
			p.abort()
			return nil, err
		}
		b := bufio.NewWriterSize(f, 1<<20)
		w, err := parquet.NewWriter(b, cols, opts)
		if err != nil {
			f.Abort()
			p.abort()
			return nil, err
		}
		p.files, p.bufs, p.writers = append(p.files, f), append(p.bufs, b), append(p.writers, w)
	}
	return p, nil
}

func (p *parquetShards) write(rec []byte) error {
	feats, err := p.s.example(rec)
	if err != nil {
		return err
	}
	w := p.writers[p.rows%int64(len(p.writers))]
	for name, f := range feats {
		i, ok := p.index[name]
		if !ok {
			return fmt.Errorf("record %d holds feature %q, which the first pass did not find: did the input change?", p.s.records, name)
		}
		switch k := f.GetKind().(type) {
		case *pb.Feature_BytesList:
			w.SetBytes(i, k.BytesList.GetValue())
		case *pb.Feature_FloatList:
			w.SetFloats(i, k.FloatList.GetValue())
		case *pb.Feature_Int64List:
			w.SetInt64s(i, k.Int64List.GetValue())
		default: // an empty list of no kind: a list column, as the first pass saw
			switch p.kinds[i] {
			case parquet.Bytes:
				w.SetBytes(i, nil)
			case parquet.Float:
				w.SetFloats(i, nil)
			default:
				w.SetInt64s(i, nil)
			}
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
	for i, f := range p.files {
		if err := f.Commit(); err != nil {
			for _, g := range p.files[i+1:] {
				g.Abort()
			}
			return err
		}
	}
	return nil
}

func (p *parquetShards) abort() {
	for _, f := range p.files {
		f.Abort()
	}
}
