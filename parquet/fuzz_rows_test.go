package parquet

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sluiceml/sluice/dataerr"
)

// FuzzRows reads damaged and hostile files through Open and Rows: any
// input ends in rows or an error naming the file, never a panic, a hang
// or an allocation the input's size does not justify (the page limit is
// set low so that the fuzzer's memory stays small). A file read whole is
// read again through Reset and Skip, which must give the same rows.
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
	for _, b := range hostileSeeds(f) {
		f.Add(b)
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
		var seen []string
		for int64(len(seen)) < fuzzRows && rows.Next() {
			seen = append(seen, rowText(rows))
		}
		if err := rows.Err(); err != nil {
			checkFileError(t, err)
			return
		}
		n := int64(len(seen))
		if n == fuzzRows {
			return
		}
		if n != pf.NumRows() {
			t.Fatalf("%d rows of %d, without an error", n, pf.NumRows())
		}
		// The same Rows, reset and skipped past half the rows, reads the
		// rest as the first pass did.
		if err := rows.Reset(pf, names); err != nil {
			t.Fatal(err)
		}
		if err := rows.Skip(n / 2); err != nil {
			t.Fatalf("skip %d of %d rows: %v", n/2, n, err)
		}
		for i := n / 2; i < n; i++ {
			if !rows.Next() || rowText(rows) != seen[i] {
				t.Fatalf("row %d after a skip differs (%v)", i, rows.Err())
			}
		}
		if rows.Next() {
			t.Fatalf("a row past the %d", n)
		}
	})
}

const fuzzRows = 1 << 16

// rowText writes the current row's values.
func rowText(r *Rows) string {
	var b strings.Builder
	for i := range r.Columns() {
		fmt.Fprint(&b, r.Null(i), r.Int64s(i), r.Floats(i), len(r.Bytes(i)))
		for _, v := range r.Bytes(i) {
			b.Write(v)
		}
	}
	return b.String()
}

func checkFileError(t *testing.T, err error) {
	t.Helper()
	var de *dataerr.Error
	if !errors.As(err, &de) || de.File != "fuzz.parquet" {
		t.Fatalf("error %v does not name the file", err)
	}
}
