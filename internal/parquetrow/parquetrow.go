// Package parquetrow makes the Example of a Parquet row: each column not
// null in the row a feature of its name and kind. It is the one mapping
// that `sluice convert --from parquet` writes and sluice.Parquet reads,
// so the two cannot disagree.
package parquetrow

import (
	"fmt"
	"slices"

	"github.com/sluiceml/sluice/example"
	"github.com/sluiceml/sluice/parquet"
)

// Build resets b to the current row of rows and returns it.
func Build(b *example.Builder, rows *parquet.Rows) *example.Builder {
	b.Reset()
	for i, c := range rows.Columns() {
		if rows.Null(i) {
			continue
		}
		switch c.Kind {
		case parquet.Int64:
			b.Int64s(c.Name, rows.Int64s(i))
		case parquet.Float:
			b.Floats(c.Name, rows.Floats(i))
		default:
			b.Bytes(c.Name, rows.Bytes(i)...)
		}
	}
	return b
}

// Unique returns an error if two of the columns of f that names choose
// (every column if names is empty) become one feature: a column named
// "a.b" beside a struct a with a field b. An Example cannot hold both,
// and [parquet.File.Rows] given the name would read whichever comes
// first.
func Unique(f *parquet.File, names []string) error {
	cols := f.Columns()
	seen := make(map[string]bool, len(cols))
	for _, c := range cols {
		if len(names) > 0 && !slices.Contains(names, c.Name) {
			continue
		}
		if seen[c.Name] {
			return fmt.Errorf("two columns become the feature %q", c.Name)
		}
		seen[c.Name] = true
	}
	return nil
}
