package sluice

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A name that holds glob characters and is a file is read as that file,
// as the sluice command takes it; only a name that is no file is a
// pattern. Records(a[1].tfrecord) read a1.tfrecord (audit 106).
func TestNamesWithGlobCharacters(t *testing.T) {
	dir := t.TempDir()
	// Each file holds as many records as its number, so that a count
	// says which files were read.
	write := func(name string, n int) string {
		recs := make([][]byte, n)
		for i := range recs {
			recs[i] = []byte{byte(i)}
		}
		p := filepath.Join(dir, name)
		writeTFRecords(t, p, recs...)
		return p
	}
	write("a[1].tfrecord", 2)
	write("a1.tfrecord", 3)
	write("b*.tfrecord", 5)
	write("bx.tfrecord", 7)
	write(`c\d.tfrecord`, 11)
	write("cd.tfrecord", 13)
	if err := os.Symlink(filepath.Join(dir, "gone"), filepath.Join(dir, "e[1].tfrecord")); err != nil {
		t.Fatal(err)
	}
	write("e1.tfrecord", 17)
	for _, tt := range []struct {
		name string
		want int    // records read
		err  string // or the error's text
	}{
		{"a[1].tfrecord", 2, ""},
		{"b*.tfrecord", 5, ""},
		{`c\d.tfrecord`, 11, ""},
		// Patterns: names of no file.
		{"a[0-9].tfrecord", 3, ""},
		{"b?.tfrecord", 5 + 7, ""}, // b*.tfrecord and bx.tfrecord
		{"[ab]*.tfrecord", 2 + 3 + 5 + 7, ""},
		{"a[2].tfrecord", 0, "no files match"},
		// A link that leads nowhere is a file of that name, whose open
		// fails naming it, not a pattern that reads e1.tfrecord.
		{"e[1].tfrecord", 0, "e[1].tfrecord"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			n, err := readAll(filepath.Join(dir, tt.name))
			switch {
			case tt.err != "":
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Errorf("read %d records, err %v; want an error saying %q", n, err, tt.err)
				}
			case err != nil || n != tt.want:
				t.Errorf("read %d records, err %v; want %d", n, err, tt.want)
			}
		})
	}
}

// readAll counts the records of the files name stands for.
func readAll(name string) (int, error) {
	n := 0
	for b, err := range Records(name).Batches(context.Background(), 4) {
		if err != nil {
			return n, err
		}
		n += b.Len()
	}
	return n, nil
}
