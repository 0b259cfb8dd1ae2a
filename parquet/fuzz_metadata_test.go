package parquet

import (
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// FuzzParseFileMetaData: on any input, parseFileMetaData returns a
// footer or an error, never both, never panics; and a footer it
// returns, encoded again, decodes to the same footer.
func FuzzParseFileMetaData(f *testing.F) {
	for _, leaves := range []int{0, 3} {
		for _, extra := range []bool{false, true} {
			m := metaFixture(leaves)
			m.RowGroups = m.RowGroups[:1]
			f.Add(newEnc().writeFileMetaData(m, extra))
			e := newEnc()
			e.long = true
			f.Add(e.writeFileMetaData(m, extra))
		}
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "*.parquet"))
	for _, name := range files {
		if data, err := os.ReadFile(name); err == nil && len(data) >= 12 {
			n := int(binary.LittleEndian.Uint32(data[len(data)-8:]))
			if n <= len(data)-12 {
				f.Add(data[len(data)-8-n : len(data)-8])
			}
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := parseFileMetaData(b)
		if (m == nil) == (err == nil) {
			t.Fatalf("footer %v and error %v", m, err)
		}
		if err != nil {
			if !strings.HasPrefix(err.Error(), "parquet: file metadata: ") {
				t.Fatalf("error without context: %v", err)
			}
			return
		}
		again, err := parseFileMetaData(newEnc().writeFileMetaData(m, false))
		if err != nil || !reflect.DeepEqual(again, m) {
			t.Fatalf("encoded again: %v\n got %+v\nwant %+v", err, again, m)
		}
	})
}

// FuzzParsePageHeader: on any input, parsePageHeader returns a header
// and its size, or an error, never panics; the header is self-delimited
// (its own bytes decode to it, one fewer are too few); and it encodes
// again to the same header.
func FuzzParsePageHeader(f *testing.F) {
	for _, h := range pageHeaderFixtures() {
		f.Add(newEnc().writePageHeader(&h, false))
		f.Add(append(newEnc().writePageHeader(&h, true), "data"...))
		e := newEnc()
		e.long = true
		f.Add(e.writePageHeader(&h, false))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		h, n, err := parsePageHeader(b)
		if err != nil {
			if n != 0 || !strings.HasPrefix(err.Error(), "parquet: page header: ") {
				t.Fatalf("n %d with error %v", n, err)
			}
			return
		}
		if n <= 0 || n > len(b) {
			t.Fatalf("n %d of %d bytes", n, len(b))
		}
		if h2, n2, err := parsePageHeader(b[:n]); err != nil || n2 != n || !reflect.DeepEqual(h2, h) {
			t.Fatalf("its own %d bytes: %+v, %d, %v", n, h2, n2, err)
		}
		if _, _, err := parsePageHeader(b[:n-1]); !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatalf("one byte short: %v", err)
		}
		again, _, err := parsePageHeader(newEnc().writePageHeader(&h, false))
		if err != nil || !reflect.DeepEqual(again, h) {
			t.Fatalf("encoded again: %v\n got %+v\nwant %+v", err, again, h)
		}
	})
}
