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
	"testing"

	"github.com/sluiceml/sluice/tfrecord"
)

// A compressed fixed-length file cut short ends its unit quietly, the
// partial record dropped, wherever the cut falls: inside a record, or in
// the gap a hop longer than the record skips (which failed, for good, so
// that the queue's next files were never read), and the reader goes on to
// the next file, as TensorFlow 2.21 does (audit 30).
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
					k, v, err := r.Read(bg)
					if errors.Is(err, io.EOF) {
						break
					}
					if err != nil {
						t.Fatalf("after %q: %v", got, err)
					}
					got = append(got, fmt.Sprintf("%s=%x", filepath.Base(k), v))
				}
				want := []string{"cut:0=0001", "cut:1=0a0b", "cut:2=1415", "cut:3=1e1f", "next:0=6162", "next:1=6b6c"}
				if !slices.Equal(got, want) {
					t.Errorf("read %q, want %q", got, want)
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
