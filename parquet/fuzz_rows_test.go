package parquet

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/sluiceml/sluice/dataerr"
)

// FuzzRows reads damaged and hostile files through Open and Rows: any
// input ends in rows or an error naming the file, never a panic, a hang
// or an allocation the input's size does not justify (the page limit is
// set low so that the fuzzer's memory stays small).
func FuzzRows(f *testing.F) {
	names, _ := filepath.Glob("testdata/*.parquet")
	for _, name := range names {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		if len(b) < 16<<10 {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		pf, err := Open(bytes.NewReader(b), int64(len(b)), "fuzz.parquet", MaxPageSize(1<<20))
		if err != nil {
			checkFileError(t, err)
			return
		}
		var names []string
		for _, c := range pf.Columns() {
			if c.Err == nil {
				names = append(names, c.Name)
			}
		}
		if len(names) == 0 {
			return
		}
		rows, err := pf.Rows(names)
		if err != nil {
			checkFileError(t, err)
			return
		}
		// A page of a few bytes may hold a million nulls or repeats of
		// one dictionary value, as real pages do, so a small input can
		// claim more rows than a fuzzer has time for: stop at fuzzRows.
		n := int64(0)
		for n < fuzzRows && rows.Next() {
			n++
		}
		if err := rows.Err(); err != nil {
			checkFileError(t, err)
			return
		}
		if n < fuzzRows && n != pf.NumRows() {
			t.Fatalf("%d rows of %d, without an error", n, pf.NumRows())
		}
	})
}

const fuzzRows = 1 << 16

func checkFileError(t *testing.T, err error) {
	t.Helper()
	var de *dataerr.Error
	if !errors.As(err, &de) || de.File != "fuzz.parquet" {
		t.Fatalf("error %v does not name the file", err)
	}
}
