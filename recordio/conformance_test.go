package recordio_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/sluiceml/sluice/internal/recordhook"
	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/recordio"
	"github.com/sluiceml/sluice/recordio/readertest"
	"github.com/sluiceml/sluice/tfrecord"
)

func write(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func must(t *testing.T) func(*recordio.Reader, error) *recordio.Reader {
	return func(r *recordio.Reader, err error) *recordio.Reader {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
}

// Every built-in reader, and a custom format built outside the package,
// passes the conformance suite (READERS.md §1), with empty units between
// others.
func TestConformance(t *testing.T) {
	dir := t.TempDir()
	values := [][]string{{"a0", "a1", "a2"}, {}, {"c0"}, {}, {"d0", "d1", "d2", "d3", "d4", "d5", "d6"}}

	tfFiles := map[tfrecord.Compression][]string{}
	var text, fixed []string
	textZ, fixedZ := map[tfrecord.Compression][]string{}, map[tfrecord.Compression][]string{}
	var textMixed []string // each unit compressed otherwise, detected
	for i, vs := range values {
		for _, c := range []tfrecord.Compression{tfrecord.None, tfrecord.Zlib, tfrecord.Gzip, tfrecord.Zstd} {
			var b bytes.Buffer
			w := tfrecord.NewWriter(&b, c)
			for _, v := range vs {
				if err := w.Write([]byte(v)); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			tfFiles[c] = append(tfFiles[c], write(t, dir, fmt.Sprintf("u%d-%v.tfrecord", i, c), b.Bytes()))
		}
		// TextLine: a header line and CRLF ends; FixedLength: a 1-byte
		// header, 2-byte records with a 1-byte gap, a 1-byte footer.
		var lines, recs bytes.Buffer
		lines.WriteString("header\n")
		recs.WriteString("H")
		for j, v := range vs {
			lines.WriteString(v + "\r\n")
			if j > 0 {
				recs.WriteString("g")
			}
			recs.WriteString(v)
		}
		recs.WriteString("F")
		text = append(text, write(t, dir, fmt.Sprintf("u%d.txt", i), lines.Bytes()))
		for _, c := range []tfrecord.Compression{tfrecord.Zlib, tfrecord.Gzip, tfrecord.Zstd} {
			textZ[c] = append(textZ[c], write(t, dir, fmt.Sprintf("u%d-%v.txt", i, c), compress(t, c, lines.Bytes())))
			fixedZ[c] = append(fixedZ[c], write(t, dir, fmt.Sprintf("u%d-%v.bin", i, c), compress(t, c, recs.Bytes())))
		}
		mixed := []tfrecord.Compression{tfrecord.None, tfrecord.Gzip, tfrecord.Zstd}[i%3]
		textMixed = append(textMixed, write(t, dir, fmt.Sprintf("u%d-mixed.txt", i), compress(t, mixed, lines.Bytes())))
		fixed = append(fixed, write(t, dir, fmt.Sprintf("u%d.bin", i), recs.Bytes()))
	}
	whole := [][]string{{"one"}, {""}, {"two"}}
	wholeFiles := []string{write(t, dir, "w1", []byte("one")), write(t, dir, "w2", nil), write(t, dir, "w3", []byte("two"))}
	fixedOpts := []recordio.Option{recordio.HeaderBytes(1), recordio.FooterBytes(1), recordio.HopBytes(3)}

	cases := []struct {
		name string
		c    readertest.Case
	}{
		{"Identity", readertest.Case{New: func(q queue.Queue) *recordio.Reader { return recordio.NewIdentityReader(q) },
			Units: []string{"x", "", "y"}, Values: [][]string{{"x"}, {""}, {"y"}}}},
		{"WholeFile", readertest.Case{New: func(q queue.Queue) *recordio.Reader { return recordio.NewWholeFileReader(q) },
			Units: wholeFiles, Values: whole}},
		{"TextLine", readertest.Case{New: func(q queue.Queue) *recordio.Reader {
			return must(t)(recordio.NewTextLineReader(q, recordio.SkipHeaderLines(1)))
		}, Units: text, Values: values}},
		{"FixedLength", readertest.Case{New: func(q queue.Queue) *recordio.Reader {
			return must(t)(recordio.NewFixedLengthRecordReader(q, 2, fixedOpts...))
		}, Units: fixed, Values: values}},
		{"FixedLength by name", readertest.Case{New: func(q queue.Queue) *recordio.Reader {
			return must(t)(recordio.Open("FixedLengthRecordReader", q, append(fixedOpts, recordio.RecordBytes(2))...))
		}, Units: fixed, Values: values}},
		{"custom (words of a sentence)", readertest.Case{New: func(q queue.Queue) *recordio.Reader { return recordio.NewReader("WordReader", &wordFormat{}, q) },
			Units: []string{"a b c", "", "d", "e f g h i"}, Values: [][]string{{"a", "b", "c"}, {}, {"d"}, {"e", "f", "g", "h", "i"}}}},
	}
	for _, c := range []tfrecord.Compression{tfrecord.Zlib, tfrecord.Gzip, tfrecord.Zstd} {
		cases = append(cases, struct {
			name string
			c    readertest.Case
		}{"TextLine " + c.String(), readertest.Case{New: func(q queue.Queue) *recordio.Reader {
			return must(t)(recordio.NewTextLineReader(q, recordio.SkipHeaderLines(1), recordio.Compression(c)))
		}, Units: textZ[c], Values: values}}, struct {
			name string
			c    readertest.Case
		}{"FixedLength " + c.String(), readertest.Case{New: func(q queue.Queue) *recordio.Reader {
			return must(t)(recordio.NewFixedLengthRecordReader(q, 2, append(fixedOpts, recordio.Compression(c))...))
		}, Units: fixedZ[c], Values: values}})
	}
	cases = append(cases, struct {
		name string
		c    readertest.Case
	}{"TextLine detected", readertest.Case{New: func(q queue.Queue) *recordio.Reader {
		return recordio.NewReader("TextLineReader", recordhook.NewTextLineFormat(1), q)
	}, Units: textMixed, Values: values}})
	for _, c := range []tfrecord.Compression{tfrecord.None, tfrecord.Zlib, tfrecord.Gzip, tfrecord.Zstd} {
		cases = append(cases, struct {
			name string
			c    readertest.Case
		}{"TFRecord " + c.String(), readertest.Case{New: func(q queue.Queue) *recordio.Reader { return recordio.NewTFRecordReader(q, c) },
			Units: tfFiles[c], Values: values}})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { readertest.Run(t, c.c) })
	}
}
