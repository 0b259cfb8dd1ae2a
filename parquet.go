package sluice

import (
	"context"
	"fmt"
	"slices"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/sluiceml/sluice/dataerr"
	"github.com/sluiceml/sluice/example"
	"github.com/sluiceml/sluice/internal/parquetrow"
	"github.com/sluiceml/sluice/internal/recordhook"
	"github.com/sluiceml/sluice/parquet"
	"github.com/sluiceml/sluice/recordio"
	"github.com/sluiceml/sluice/storage"
)

// Parquet makes Examples read Parquet files instead of TFRecord files:
// each row is an Example of its leaf columns, as `sluice convert --from
// parquet` writes it (package parquet: a struct's fields are
// "struct.field", a list column is its values, a null leaves the feature
// out), so the spec's FixedLen, VarLen and SparseFeature features read
// the columns of their names, and no conversion step comes first. Only
// the columns the spec names are read. Epochs, Shuffle, Readers, Shard,
// Deterministic and checkpoints work as they do for TFRecord files (a
// checkpoint holds a file's next row); GlobalShuffle and SkipCorrupt do
// not apply, and a Parquet file cannot come from standard input.
func Parquet() ExampleOption {
	return exampleOption(func(s *exampleSettings) { s.parquet = true })
}

// readParquet makes d read Parquet files, of the columns cols. Keys are
// "file:row".
func (d *Dataset) readParquet(cols []string) {
	slices.Sort(cols)
	d.readerKind = "ParquetReader"
	d.extra = "parquet"
	d.newFormat = func() (recordhook.Format, error) { return &parquetFormat{columns: cols}, nil }
	d.origin = keyOrigin(func(e *dataerr.Error, row int64) { e.Record = row })
}

// parquetFormat reads the rows of Parquet files as serialized Examples.
type parquetFormat struct {
	columns []string // wanted; those a file lacks are left out, for the parser to report

	file storage.File
	rows *parquet.Rows // reset for each file, its buffers reused
	work string
	row  int64 // of the last row read
	b    *example.Builder
	out  []byte
}

func (f *parquetFormat) open(ctx context.Context, work string, skip int64) error {
	f.close()
	file, err := storage.Open(ctx, work)
	if err != nil {
		return err
	}
	pf, err := parquet.Open(file, file.Size(), work)
	if err != nil {
		file.Close()
		return err
	}
	var cols []string
	for _, c := range pf.Columns() {
		if _, ok := slices.BinarySearch(f.columns, c.Name); ok {
			cols = append(cols, c.Name)
		}
	}
	if f.rows == nil {
		f.rows, f.b = new(parquet.Rows), example.New()
	}
	if skip > pf.NumRows() {
		// A position past the file's rows is a checkpoint's that is not
		// this file's (which has changed since, say).
		err = fmt.Errorf("%s: a position at row %d of a file of %d: %w", work, skip, pf.NumRows(), recordio.ErrState)
	} else if len(cols) == 0 {
		err = fmt.Errorf("%s: no column of the spec's features (%v) is in the file", work, f.columns)
	} else if err = parquetrow.Unique(pf, cols); err != nil {
		err = fmt.Errorf("%s: %w", work, err)
	} else if err = f.rows.Reset(pf, cols); err == nil {
		err = f.rows.Skip(skip)
	}
	if err != nil {
		file.Close()
		return err
	}
	f.file, f.work, f.row = file, work, skip-1
	return nil
}

// OnWorkStarted opens the file work.
func (f *parquetFormat) OnWorkStarted(ctx context.Context, work string) error {
	return f.open(ctx, work, 0)
}

// Read returns the next row as a serialized Example, valid until the
// next Read.
func (f *parquetFormat) Read(ctx context.Context) (string, []byte, bool, bool, error) {
	if !f.rows.Next() {
		return "", nil, false, f.rows.Err() == nil, f.rows.Err()
	}
	f.row = f.rows.Row()
	f.out = parquetrow.Build(f.b, f.rows).AppendMarshal(f.out[:0])
	return "", f.out, true, false, nil
}

// Work returns the file of the last row read.
func (f *parquetFormat) Work() string { return f.work }

// Watch does nothing: a Parquet file is opened with its reader's context,
// whose end ends its reads.
func (f *parquetFormat) Watch(context.Context) func() bool { return noWatch }

func noWatch() bool { return true }

// Offset returns the index of the last row read in its file.
func (f *parquetFormat) Offset() int64 { return f.row }

// OnWorkFinished closes the file.
func (f *parquetFormat) OnWorkFinished() error { return f.close() }

// Reset closes any open file.
func (f *parquetFormat) Reset() error { return f.close() }

func (f *parquetFormat) close() error {
	if f.file == nil {
		return nil
	}
	err := f.file.Close()
	f.file = nil // f.rows keeps its buffers for the next file
	return err
}

// Position returns the index of the next row.
func (f *parquetFormat) Position() ([]byte, error) {
	return protowire.AppendVarint(nil, uint64(f.row+1)), nil
}

// Seek opens work at the row Position returned, passing over the row
// groups before it unread.
func (f *parquetFormat) Seek(ctx context.Context, work string, pos []byte) error {
	row, n := protowire.ConsumeVarint(pos)
	if n < 0 || n != len(pos) || int64(row) < 0 {
		return fmt.Errorf("%s: bad Parquet position %x: %w", work, pos, recordio.ErrState)
	}
	return f.open(ctx, work, int64(row))
}

// PositionOf returns the position of row i.
func (f *parquetFormat) PositionOf(i int64) ([]byte, bool) {
	return protowire.AppendVarint(nil, uint64(i)), true
}

// parquetConflicts refuses the options Parquet files cannot take.
func parquetConflicts(kind string, s exampleSettings) error {
	switch {
	case s.globalShuffle:
		return fmt.Errorf("sluice: %s: GlobalShuffle with Parquet: %w (a global shuffle reads TFRecord files through their indexes; Shuffle shuffles Parquet rows)", kind, ErrInvalid)
	case s.skipCorrupt:
		return fmt.Errorf("sluice: %s: SkipCorrupt with Parquet: %w (it skips corrupt TFRecords)", kind, ErrInvalid)
	}
	return nil
}
