package recordio_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/sluiceml/sluice/dataerr"
	"github.com/sluiceml/sluice/internal/recordhook"
	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/recordio"
	"github.com/sluiceml/sluice/tensor"
	"github.com/sluiceml/sluice/tfrecord"
)

// compress returns data compressed as c.
func compress(t testing.TB, c tfrecord.Compression, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	w, err := tfrecord.NewCompressor(c, &b)
	if err == nil {
		_, err = w.Write(data)
	}
	if err == nil {
		err = w.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// closedQueue returns a closed queue of the units.
func closedQueue(t testing.TB, units ...string) *queue.FIFO {
	t.Helper()
	q, err := queue.NewFIFO(len(units)+1, []tensor.DType{tensor.String}, queue.Shapes(tensor.Shape{}))
	if err != nil {
		t.Fatal(err)
	}
	if len(units) > 0 {
		if err := q.EnqueueMany(context.Background(), queue.Element{tensor.Strings(units...)}); err != nil {
			t.Fatal(err)
		}
	}
	q.Close(context.Background())
	return q
}

// lines reads every value r gives, failing at any error but the end.
func lines(t testing.TB, r *recordio.Reader) ([]string, error) {
	t.Helper()
	var out []string
	for {
		_, v, err := r.Read(context.Background())
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, string(v))
	}
}

// A TextLine reader given Compression reads ZLIB, GZIP and ZSTD text as
// tf.data.TextLineDataset(compression_type=...) does, keys counting lines;
// the module root's format finds GZIP and ZSTD by their first bytes, beside
// plain text, and leaves text that merely looks like ZLIB alone.
func TestTextLineCompressed(t *testing.T) {
	dir := t.TempDir()
	text := []byte("name,n\nx^a,1\r\nb,2\nc,3")
	want := []string{"x^a,1", "b,2", "c,3"}
	for _, c := range []tfrecord.Compression{tfrecord.Zlib, tfrecord.Gzip, tfrecord.Zstd} {
		name := write(t, dir, "t."+c.String(), compress(t, c, text))
		r := must(t)(recordio.NewTextLineReader(closedQueue(t, name), recordio.Compression(c), recordio.SkipHeaderLines(1)))
		k, v, err := r.Read(context.Background())
		if err != nil || k != name+":2" || string(v) != want[0] {
			t.Fatalf("%v: first line %q %q, %v", c, k, v, err)
		}
		rest, err := lines(t, r)
		if err != nil || !slices.Equal(rest, want[1:]) {
			t.Errorf("%v: %q, %v", c, rest, err)
		}
	}

	var units []string
	for _, c := range []tfrecord.Compression{tfrecord.Gzip, tfrecord.None, tfrecord.Zstd} {
		units = append(units, write(t, dir, "d."+c.String(), compress(t, c, text)))
	}
	// Plain text beginning as a ZLIB stream does ("x^" is 0x78 0x5e).
	units = append(units, write(t, dir, "zlib-like.csv", []byte("name\nx^a,1\nb,2\nc,3\n")))
	r := recordio.NewReader("TextLineReader", recordhook.NewTextLineFormat(1), closedQueue(t, units...))
	got, err := lines(t, r)
	if wantAll := slices.Concat(want, want, want, want); err != nil || !slices.Equal(got, wantAll) {
		t.Errorf("detected: %q, %v; want %q", got, err, wantAll)
	}
}

// An empty file given a compression has no lines, as TensorFlow's
// ZlibInputStream reads an empty file.
func TestTextLineCompressedEmpty(t *testing.T) {
	name := write(t, t.TempDir(), "empty", nil)
	for _, c := range []tfrecord.Compression{tfrecord.Zlib, tfrecord.Gzip, tfrecord.Zstd} {
		r := must(t)(recordio.NewTextLineReader(closedQueue(t, name), recordio.Compression(c)))
		if got, err := lines(t, r); err != nil || len(got) != 0 {
			t.Errorf("%v: %q, %v", c, got, err)
		}
	}
}

// Damage in a compressed text file, and a line over MaxRecordSize, fail
// the read with a *dataerr.Error naming the file, the line and the offset
// of its start in the decompressed text; the lines before it are read. A
// stream's checksum is checked at its end, so a bad one names the line
// after the last.
func TestTextLineErrors(t *testing.T) {
	dir := t.TempDir()
	var text strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&text, "line %d of some text that compresses\n", i)
	}
	gz := compress(t, tfrecord.Gzip, []byte(text.String()))
	corrupt := bytes.Clone(gz)
	corrupt[len(corrupt)-6] ^= 0xff // the CRC-32 of the whole stream
	cases := []struct {
		name    string
		data    []byte
		opts    []recordio.Option
		target  error
		line    int64
		atLeast int // lines read before the error
	}{
		{"truncated", gz[:len(gz)/2], []recordio.Option{recordio.Compression(tfrecord.Gzip)}, io.ErrUnexpectedEOF, -1, 100},
		{"bad checksum", corrupt, []recordio.Option{recordio.Compression(tfrecord.Gzip)}, gzip.ErrChecksum, 2001, 2000},
		{"line too long", []byte("ab\nabcdef\nabc\n"), []recordio.Option{recordio.MaxRecordSize(5)}, recordio.ErrLineTooLong, 2, 1},
		{"line too long, compressed", compress(t, tfrecord.Zstd, []byte("ab\n"+strings.Repeat("x", 200000))), []recordio.Option{recordio.Compression(tfrecord.Zstd), recordio.MaxRecordSize(100000)}, recordio.ErrLineTooLong, 2, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			name := write(t, dir, strings.ReplaceAll(c.name, " ", "_"), c.data)
			r := must(t)(recordio.NewTextLineReader(closedQueue(t, name), c.opts...))
			got, err := lines(t, r)
			var de *dataerr.Error
			if !errors.Is(err, c.target) || !errors.As(err, &de) {
				t.Fatalf("after %d lines: %v, want %v in a *dataerr.Error", len(got), err, c.target)
			}
			if len(got) < c.atLeast || de.File != name || de.Line != int64(len(got))+1 || (c.line > 0 && de.Line != c.line) {
				t.Errorf("after %d lines: %+v", len(got), de)
			}
			off := int64(0)
			for _, l := range got {
				off += int64(len(l)) + 1
			}
			if de.Offset != off || !strings.Contains(err.Error(), fmt.Sprintf("%s:%d: ", name, de.Line)) {
				t.Errorf("offset %d, want %d; %q", de.Offset, off, err)
			}
		})
	}

	// A stream that is not the compression asked for fails at its open.
	name := write(t, dir, "plain.txt", []byte("plain text\n"))
	r := must(t)(recordio.NewTextLineReader(closedQueue(t, name), recordio.Compression(tfrecord.Gzip)))
	var de *dataerr.Error
	if _, err := lines(t, r); !errors.As(err, &de) || de.File != name || de.Offset != 0 {
		t.Errorf("plain text read as GZIP: %v", err)
	}
	if _, err := recordio.NewTextLineReader(closedQueue(t), recordio.Compression(tfrecord.Compression(99))); !errors.Is(err, queue.ErrInvalidArgument) {
		t.Errorf("unknown compression: %v", err)
	}
}

// A compressed file's saved position is its decompressed offset: a reader
// restored there decompresses up to it, and one whose file has shrunk
// says so.
func TestTextLineCompressedRestore(t *testing.T) {
	dir := t.TempDir()
	var text strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&text, "%d\n", i)
	}
	name := write(t, dir, "n.gz", compress(t, tfrecord.Gzip, []byte(text.String())))
	newReader := func(q queue.Queue) *recordio.Reader {
		return must(t)(recordio.NewTextLineReader(q, recordio.Compression(tfrecord.Gzip)))
	}
	q := closedQueue(t, name)
	r := newReader(q)
	for range 3000 {
		if _, _, err := r.Read(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	state, err := r.SerializeState()
	if err != nil {
		t.Fatal(err)
	}
	r2 := newReader(closedQueue(t))
	if err := r2.RestoreState(context.Background(), state); err != nil {
		t.Fatal(err)
	}
	k, v, err := r2.Read(context.Background())
	if err != nil || k != name+":3001" || string(v) != "3000" {
		t.Fatalf("restored: %q %q, %v", k, v, err)
	}

	// The same name, now a shorter stream.
	write(t, dir, "n.gz", compress(t, tfrecord.Gzip, []byte("0\n1\n")))
	r3 := newReader(closedQueue(t))
	if err := r3.RestoreState(context.Background(), state); !errors.Is(err, recordio.ErrState) || !strings.Contains(err.Error(), "fewer than the saved offset") {
		t.Errorf("restored into a shorter file: %v", err)
	}
}

// FuzzTextLineCompressed: any text, compressed, reads back as the lines a
// LineSplitter finds in it; any bytes read as a compressed stream give
// lines or an error naming the file, never a panic.
func FuzzTextLineCompressed(f *testing.F) {
	for _, s := range []string{"", "a\nb", "a\r\n\r\nb\n", "\n\n", "\r"} {
		for c := range uint8(3) {
			f.Add([]byte(s), c, false)
		}
	}
	f.Add(compress(f, tfrecord.Gzip, []byte("a\nb\n")), uint8(1), true)
	f.Add(compress(f, tfrecord.Zstd, []byte("a\nb\n")), uint8(2), true)
	f.Add(compress(f, tfrecord.Zlib, []byte("a\nb\n"))[:5], uint8(0), true)
	dir := f.TempDir()
	name := filepath.Join(dir, "f")
	f.Fuzz(func(t *testing.T, data []byte, which uint8, raw bool) {
		c := []tfrecord.Compression{tfrecord.Zlib, tfrecord.Gzip, tfrecord.Zstd}[which%3]
		file := data
		if !raw {
			file = compress(t, c, data)
		}
		if err := os.WriteFile(name, file, 0o644); err != nil {
			t.Fatal(err)
		}
		r := must(t)(recordio.NewTextLineReader(closedQueue(t, name), recordio.Compression(c), recordio.MaxRecordSize(1<<20)))
		got, err := lines(t, r)
		if raw {
			var de *dataerr.Error
			if err != nil && (!errors.As(err, &de) || de.File != name) {
				t.Fatalf("%v: %v", c, err)
			}
			return
		}
		if err != nil {
			t.Fatalf("%v: %v", c, err)
		}
		var want []string
		s := recordio.NewLineSplitter(bytes.NewReader(data))
		for {
			line, err := s.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, string(line))
		}
		if !slices.Equal(got, want) {
			t.Fatalf("%v: %q, want %q", c, got, want)
		}
	})
}

// READERS.md §4 for compressed text, against TensorFlow 2.21's
// tf.data.TextLineDataset(compression_type=...) (TextLineReader reads
// plain text only): recordio/testdata/tf_textlines.json, written by
// tools/tfref/textlines.py. A stream cut short is the one deliberate
// difference: TensorFlow ends silently, even inside a line, where this
// reader returns the whole lines before the cut and then an error.
func TestTextLineCompressedAgainstTensorFlow(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "tf_textlines.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Cases []struct {
			Name, Compression, File, End string
			Lines                        []string
		}
	}
	if err := json.Unmarshal(data, &ref); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for i, tc := range ref.Cases {
		t.Run(tc.Name+"/"+tc.Compression, func(t *testing.T) {
			c, err := tfrecord.ParseCompression(tc.Compression)
			if err != nil {
				t.Fatal(err)
			}
			file, err := hex.DecodeString(tc.File)
			if err != nil {
				t.Fatal(err)
			}
			name := write(t, dir, fmt.Sprint(i), file)
			r := must(t)(recordio.NewTextLineReader(closedQueue(t, name), recordio.Compression(c)))
			got, err := lines(t, r)
			for j, line := range got {
				if len(line) >= 100 {
					got[j] = fmt.Sprintf("sha256:%x:%d", sha256.Sum256([]byte(line)), len(line))
				} else {
					got[j] = hex.EncodeToString([]byte(line))
				}
			}
			if tc.End != "" {
				t.Fatalf("TensorFlow ended with %s; no case expects that", tc.End)
			}
			if !strings.HasPrefix(tc.Name, "truncated") {
				if err != nil || !slices.Equal(got, tc.Lines) {
					t.Fatalf("%d lines, %v; want TensorFlow's %d", len(got), err, len(tc.Lines))
				}
				return
			}
			var de *dataerr.Error
			if !errors.Is(err, io.ErrUnexpectedEOF) || !errors.As(err, &de) || de.File != name {
				t.Fatalf("after %d lines: %v, want an error naming the file", len(got), err)
			}
			if len(got) < len(tc.Lines)-1 || !slices.Equal(got, tc.Lines[:len(got)]) {
				t.Fatalf("%d lines, want the whole ones of TensorFlow's %d", len(got), len(tc.Lines))
			}
		})
	}
}
