package parquet_test

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/sluiceml/sluice/parquet"
)

// eofAtEnd is an io.ReaderAt that returns io.EOF with a whole read that
// ends at the end of its data, as io.ReaderAt allows.
type eofAtEnd []byte

func (e eofAtEnd) ReadAt(p []byte, off int64) (int, error) {
	if off >= int64(len(e)) {
		return 0, io.EOF
	}
	n := copy(p, e[off:])
	if n < len(p) || off+int64(n) == int64(len(e)) {
		return n, io.EOF
	}
	return n, nil
}

// render returns every value of the file's rows, or the error that ended
// them.
func render(r io.ReaderAt, size int64, name string) (string, error) {
	f, err := parquet.Open(r, size, name)
	if err != nil {
		return "", err
	}
	rows, err := f.Rows(nil)
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	for rows.Next() {
		for i, c := range rows.Columns() {
			switch {
			case rows.Null(i):
				b.WriteString("null")
			case c.Kind == parquet.Int64:
				fmt.Fprint(&b, rows.Int64s(i))
			case c.Kind == parquet.Float:
				fmt.Fprint(&b, rows.Floats(i))
			default:
				fmt.Fprintf(&b, "%q", rows.Bytes(i))
			}
			b.WriteByte(';')
		}
		b.WriteByte('\n')
	}
	return b.String(), rows.Err()
}

// A file is read alike through a ReaderAt that returns io.EOF with a whole
// read at its end: such reads were failures, and every file of a file
// system that answers so was "reading footer: unexpected EOF" (audit 101).
func TestReadAtEOFAtEnd(t *testing.T) {
	names, err := filepath.Glob("testdata/*.parquet")
	if err != nil || len(names) == 0 {
		t.Fatalf("no test files: %v", err)
	}
	read := 0
	for _, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		want, werr := render(bytes.NewReader(data), int64(len(data)), name)
		got, gerr := render(eofAtEnd(data), int64(len(data)), name)
		if fmt.Sprint(werr) != fmt.Sprint(gerr) || got != want {
			t.Errorf("%s: %v, then %v through a ReaderAt with io.EOF at its end (same rows: %v)", name, werr, gerr, got == want)
		}
		if werr == nil {
			read++
		}
	}
	if read == 0 {
		t.Fatal("no test file read whole: the test would prove nothing")
	}
}
