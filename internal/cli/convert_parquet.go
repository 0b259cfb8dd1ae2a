package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/sluiceml/sluice/example"
	"github.com/sluiceml/sluice/internal/parquetrow"
	"github.com/sluiceml/sluice/parquet"
	"github.com/sluiceml/sluice/storage"
)

// convertParquet writes one Example per row of Parquet files, one
// feature per leaf column (convert --from parquet).
func convertParquet(ctx context.Context, names []string, o convertOptions, prog *progress, t *tally, write func([]byte) error) error {
	cols, err := columnNames(o.columns, "--from parquet takes column names (a Parquet file types its columns)")
	if err != nil {
		return err
	}
	_, err = readParquet(ctx, names, cols, prog, t, -1, write)
	return err
}

// columnNames reads --columns when it names columns without types
// (--from parquet, since a Parquet file types its columns, and --to
// parquet); why says so in the error for a name with a type.
func columnNames(flag, why string) ([]string, error) {
	if flag == "" {
		return nil, nil
	}
	var cols []string
	seen := map[string]bool{}
	for _, name := range strings.Split(flag, ",") {
		name = strings.TrimSpace(name)
		if name == "" || strings.Contains(name, ":") {
			return nil, fmt.Errorf("--columns: %s, not %q", why, name)
		}
		if seen[name] {
			return nil, fmt.Errorf("--columns: column %q named twice", name)
		}
		seen[name] = true
		cols = append(cols, name)
	}
	return cols, nil
}

// progressReaderAt counts the bytes read through it as input read.
type progressReaderAt struct {
	r io.ReaderAt
	p *progress
}

func (r progressReaderAt) ReadAt(b []byte, off int64) (int, error) {
	n, err := r.r.ReadAt(b, off)
	if r.p != nil {
		r.p.Write(b[:n])
	}
	return n, err
}

// readParquet turns the rows of the files names, at most limit of them
// (all if negative), into Examples of the columns cols (all if empty). It
// returns how many of the files it opened, fewer than len(names) when the
// limit stops it early.
func readParquet(ctx context.Context, names, cols []string, prog *progress, t *tally, limit int, write func([]byte) error) (opened int, err error) {
	b := example.New()
	rows := new(parquet.Rows) // reset for each file, its buffers reused
	var out []byte
	n := 0
	for _, name := range names {
		if limit >= 0 && n >= limit {
			break
		}
		if isStdin(name) {
			return opened, fmt.Errorf("--from parquet reads files, not standard input: a Parquet file's index is at its end")
		}
		f, err := storage.Open(ctx, name)
		if err != nil {
			return opened, err
		}
		opened++
		err = func() error {
			defer f.Close()
			pf, err := parquet.Open(progressReaderAt{f, prog}, f.Size(), name, parquet.MaxPageSize(int(min(settingsFrom(ctx).maxRecord, math.MaxInt32))))
			if err != nil {
				return err
			}
			if err := parquetrow.Unique(pf, cols); err != nil {
				return fmt.Errorf("%s: %w; leave it out with --columns", name, err)
			}
			for _, c := range pf.Columns() {
				if (cols == nil && c.Err == nil || slices.Contains(cols, c.Name)) && !utf8.ValidString(c.Name) {
					return fmt.Errorf("%s: column %q %s; leave it out with --columns", name, c.Name, notUTF8Name)
				}
			}
			if err := rows.Reset(pf, cols); err != nil {
				if cols := readableColumns(pf); errors.Is(err, parquet.ErrUnsupported) && cols != "" {
					return fmt.Errorf("%w; leave it out with --columns %s", err, cols)
				}
				return err
			}
			for (limit < 0 || n < limit) && rows.Next() {
				if n%1024 == 0 && ctx.Err() != nil {
					return ctx.Err()
				}
				n++
				out = parquetrow.Build(b, rows).AppendMarshal(out[:0])
				t.read(len(out))
				if err := write(out); err != nil {
					if errors.Is(err, errTooManyFeatures) {
						return fmt.Errorf("%s: row %d: %w", name, rows.Row(), err)
					}
					return err
				}
			}
			return rows.Err()
		}()
		if err != nil {
			return opened, err
		}
	}
	return opened, nil
}

// readableColumns lists the columns of f that can be read, for the
// --columns hint.
func readableColumns(f *parquet.File) string {
	var names []string
	for _, c := range f.Columns() {
		if c.Err == nil {
			names = append(names, c.Name)
		}
	}
	return strings.Join(names, ",")
}
