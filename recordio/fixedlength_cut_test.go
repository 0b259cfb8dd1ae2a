package recordio

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sluiceml/sluice/dataerr"
	"github.com/sluiceml/sluice/tfrecord"
)

// A compressed fixed-length file cut short (its stream's end and checksum
// missing) is an error naming the record it stopped in, wherever the cut
// falls: inside a record, or in the gap a hop longer than the record
// skips. TensorFlow 2.21 ends such a file quietly, losing its records
// without a word (audit 77); the records before the cut still come.
func TestFixedLengthCompressedCut(t *testing.T) {
	data := make([]byte, 60)
	for i := range data {
		data[i] = byte(i)
	}
	// Records of 2 bytes every 10: 0-1, 10-11, 20-21, 30-31, 40-41, ...
	for _, c := range []tfrecord.Compression{tfrecord.Gzip, tfrecord.Zlib} {
		for _, cut := range []int{35, 41} { // in the gap after record 3; inside record 4
			t.Run(fmt.Sprintf("%v/%d", c, cut), func(t *testing.T) {
				dir := t.TempDir()
				compressed := func(name string, b []byte, whole bool) string {
					var z bytes.Buffer
					var w interface {
						io.WriteCloser
						Flush() error
					} = zlib.NewWriter(&z)
					if c == tfrecord.Gzip {
						w = gzip.NewWriter(&z)
					}
					w.Write(b)
					w.Flush()
					if whole {
						w.Close()
					}
					p := filepath.Join(dir, name)
					if err := os.WriteFile(p, z.Bytes(), 0o644); err != nil {
						t.Fatal(err)
					}
					return p
				}
				// The compressor flushed after the cut's bytes, and never
				// closed: the stream stops there.
				cutFile := compressed("cut", data[:cut], false)
				next := compressed("next", []byte("abcdefghijkl"), true)
				q := workQueue(t, cutFile, next)
				q.Close(bg)
				r, err := NewFixedLengthRecordReader(q, 2, HopBytes(10), Compression(c))
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for {
					var k string
					var v []byte
					if k, v, err = r.Read(bg); err != nil {
						break
					}
					got = append(got, fmt.Sprintf("%s=%x", filepath.Base(k), v))
				}
				want := []string{"cut:0=0001", "cut:1=0a0b", "cut:2=1415", "cut:3=1e1f"}
				if !slices.Equal(got, want) {
					t.Errorf("read %q, want %q", got, want)
				}
				// Record 4, at byte 40 of the decompressed data, is where
				// the stream stopped.
				de, ok := errors.AsType[*dataerr.Error](err)
				if !ok || !errors.Is(err, io.ErrUnexpectedEOF) || de.File != cutFile || de.Offset != 40 || de.Record != 4 ||
					!strings.Contains(err.Error(), "byte 40") {
					t.Fatalf("after %q: %#v (%v), want a data error of %s, record 4 at byte 40, wrapping io.ErrUnexpectedEOF", got, err, err, cutFile)
				}
				// The unit stays failed; the next file is not read past it.
				if _, _, again := r.Read(bg); again == nil || again.Error() != err.Error() {
					t.Errorf("read after the error: %v, want %v again", again, err)
				}
			})
		}
	}
}

// A compressed file cut inside its compression header, fixed-length or
// text, is an error naming the file and where: its header, at byte 0
// (audit 49: "GZIP stream: unexpected EOF" said neither where nor what).
func TestCompressedHeaderCutSaysWhere(t *testing.T) {
	var z bytes.Buffer
	w := gzip.NewWriter(&z)
	w.Write([]byte("some text\n"))
	w.Close()
	name := filepath.Join(t.TempDir(), "cut.gz")
	if err := os.WriteFile(name, z.Bytes()[:5], 0o644); err != nil {
		t.Fatal(err)
	}
	for _, kind := range []string{"fixed-length", "text"} {
		q := workQueue(t, name)
		q.Close(bg)
		var r *Reader
		var err error
		if kind == "text" {
			r, err = NewTextLineReader(q, Compression(tfrecord.Gzip))
		} else {
			r, err = NewFixedLengthRecordReader(q, 2, Compression(tfrecord.Gzip))
		}
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = r.Read(bg)
		if want := name + ": GZIP stream: its header, at byte 0: unexpected EOF"; err == nil || err.Error() != want {
			t.Errorf("%s: %v; want %q", kind, err, want)
		}
	}
}

// A compressed fixed-length stream must end whole: its trailer cut short,
// or stray bytes after it too few to be another member's header, are
// errors after the records; TensorFlow 2.21 reads all four cases below
// without one.
func TestFixedLengthCompressedEnd(t *testing.T) {
	data := []byte("0123456789abcdefghij") // two records of 10 bytes
	var gz, zl bytes.Buffer
	gw := gzip.NewWriter(&gz)
	gw.Write(data)
	gw.Close()
	zw := zlib.NewWriter(&zl)
	zw.Write(data)
	zw.Close()
	for _, tc := range []struct {
		name   string
		c      tfrecord.Compression
		file   []byte
		failed bool
	}{
		{"gzip whole", tfrecord.Gzip, gz.Bytes(), false},
		{"gzip size cut", tfrecord.Gzip, gz.Bytes()[:gz.Len()-3], true},
		{"gzip crc cut", tfrecord.Gzip, gz.Bytes()[:gz.Len()-6], true},
		{"gzip stray bytes", tfrecord.Gzip, append(slices.Clip(gz.Bytes()), 0x1f, 0x8b, 8, 0, 0), true},
		{"zlib whole", tfrecord.Zlib, zl.Bytes(), false},
		{"zlib checksum cut", tfrecord.Zlib, zl.Bytes()[:zl.Len()-2], true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "f")
			if err := os.WriteFile(p, tc.file, 0o644); err != nil {
				t.Fatal(err)
			}
			q := workQueue(t, p)
			q.Close(bg)
			r, err := NewFixedLengthRecordReader(q, 10, Compression(tc.c))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for {
				_, v, err := r.Read(bg)
				if errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
					if tc.failed {
						t.Fatalf("read %q and no error", got)
					}
					break
				}
				if err != nil {
					if !tc.failed {
						t.Fatalf("after %q: %v", got, err)
					}
					if de, ok := errors.AsType[*dataerr.Error](err); !ok || de.File != p || de.Record != 2 || de.Offset != 20 {
						t.Fatalf("after %q: %v, want a data error of %s, record 2 at byte 20", got, err, p)
					}
					break
				}
				got = append(got, string(v))
			}
			if want := []string{"0123456789", "abcdefghij"}; !slices.Equal(got, want) {
				t.Errorf("read %q, want %q", got, want)
			}
		})
	}
}

// A compressed stream cut short before the end of the fixed-length
// header is bad data, an error holding a *dataerr.Error that names the
// file and the byte of the decompressed data it stopped at (audit 81: a
// plain error, "skipping to byte 10: unexpected EOF").
func TestFixedLengthHeaderCutInCompressedStream(t *testing.T) {
	var z bytes.Buffer
	w := gzip.NewWriter(&z)
	w.Write([]byte("abc"))
	w.Flush() // the three bytes out, and no end
	name := filepath.Join(t.TempDir(), "cut.gz")
	if err := os.WriteFile(name, z.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	q := workQueue(t, name)
	q.Close(bg)
	r, err := NewFixedLengthRecordReader(q, 2, HeaderBytes(10), Compression(tfrecord.Gzip))
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = r.Read(bg)
	de, ok := errors.AsType[*dataerr.Error](err)
	if !ok || de.File != name || de.Offset != 3 || !errors.Is(err, io.ErrUnexpectedEOF) ||
		!strings.Contains(err.Error(), "GZIP stream, skipping to byte 10 of its decompressed data") {
		t.Errorf("%v (%+v); want a data error of %s at byte 3", err, de, name)
	}
}
