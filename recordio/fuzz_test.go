package recordio

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tensor"
	"github.com/sluiceml/sluice/tfrecord"
)

// FuzzLineSplitter: the splitter never panics, consumes every byte, and
// agrees with a plain split on "\n" with "\r" trimming; with a limit
// (SetMaxLine), up to the first line longer than it, which is an error.
func FuzzLineSplitter(f *testing.F) {
	for _, s := range []string{"", "a\nb", "a\r\n\r\nb\n", "\n\n", "\r", "x\ry\n"} {
		f.Add([]byte(s), uint8(0))
		f.Add([]byte(s), uint8(1))
	}
	f.Fuzz(func(t *testing.T, data []byte, max uint8) {
		s := NewLineSplitter(bytes.NewReader(data))
		s.SetMaxLine(int(max))
		var got [][]byte
		tooLong := false
		for {
			line, err := s.Next()
			if err == io.EOF {
				break
			}
			if errors.Is(err, ErrLineTooLong) && max > 0 {
				tooLong = true
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, bytes.Clone(line))
		}
		// TensorFlow's rule: split on '\n', strip one '\r' from each
		// line; the piece after the last '\n' is a line only if something
		// is left of it.
		want := bytes.Split(data, []byte{'\n'})
		for i := range want {
			want[i] = bytes.TrimSuffix(want[i], []byte{'\r'})
		}
		if len(want[len(want)-1]) == 0 {
			want = want[:len(want)-1]
		}
		if max > 0 {
			for i, w := range want {
				if len(w) > int(max) {
					want = want[:i]
					if !tooLong {
						t.Fatalf("line %d of %d bytes, limit %d: no error", i, len(w), max)
					}
					break
				}
			}
		}
		if len(got) != len(want) {
			t.Fatalf("%d lines, want %d", len(got), len(want))
		}
		for i := range want {
			if !bytes.Equal(got[i], want[i]) {
				t.Fatalf("line %d = %q, want %q", i, got[i], want[i])
			}
		}
		if _, err := s.Next(); err != io.EOF && !tooLong {
			t.Fatalf("read after EOF: %v", err)
		}
	})
}

// FuzzFixedLength: any file and sizes give whole records or nothing,
// never a panic, and exactly the records the algorithm of READERS.md §5
// defines.
func FuzzFixedLength(f *testing.F) {
	f.Add([]byte("HHHHH000G111G222FF"), uint8(3), uint8(5), uint8(2), uint8(4))
	f.Add([]byte("abcdefgh"), uint8(3), uint8(0), uint8(0), uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, rec, header, footer, hop uint8) {
		if rec == 0 {
			return
		}
		dir := t.TempDir()
		name := filepath.Join(dir, "f")
		os.WriteFile(name, data, 0o644)
		q, _ := queue.NewFIFO(1, []tensor.DType{tensor.String}, queue.Shapes(tensor.Shape{}))
		q.Enqueue(context.Background(), queue.Element{tensor.StringScalar(name)})
		q.Close(context.Background())
		r, err := NewFixedLengthRecordReader(q, int(rec), HeaderBytes(int(header)), FooterBytes(int(footer)), HopBytes(int(hop)))
		if err != nil {
			t.Fatal(err)
		}
		step := int(hop)
		if step == 0 {
			step = int(rec)
		}
		if len(data) < int(header) {
			_, _, err := r.Read(context.Background())
			if !errors.Is(err, ErrShortHeader) {
				t.Fatalf("file shorter than its header: %v", err)
			}
		}
		for i := 0; ; i++ {
			_, v, err := r.Read(context.Background())
			if err != nil {
				if errors.Is(err, io.EOF) {
					// No further record fits with its footer.
					start := int(header) + i*step
					if start+int(rec)+int(footer) <= len(data) {
						t.Fatalf("stopped before record %d", i)
					}
					return
				}
				t.Fatal(err)
			}
			start := int(header) + i*step
			if start+int(rec)+int(footer) > len(data) || !bytes.Equal(v, data[start:start+int(rec)]) {
				t.Fatalf("record %d = %q", i, v)
			}
		}
	})
}

// FuzzFixedLengthCompressed: a compressed fixed-length file gives the
// records of its decompressed bytes when whole, and when cut short (by
// cut bytes, any number but all of them) a prefix of them and then an error,
// never a quiet end: the records after the cut would be lost without a
// word (audit 77).
func FuzzFixedLengthCompressed(f *testing.F) {
	f.Add([]byte("HHHHH000G111G222FF"), uint8(3), uint8(5), uint8(2), uint8(4), false, uint16(0))
	f.Add([]byte("HHHHH000G111G222FF"), uint8(3), uint8(5), uint8(2), uint8(4), false, uint16(3))
	f.Add([]byte("abcdefgh"), uint8(3), uint8(0), uint8(0), uint8(0), true, uint16(0))
	f.Add([]byte("abcdefgh"), uint8(3), uint8(0), uint8(0), uint8(0), true, uint16(7))
	f.Fuzz(func(t *testing.T, data []byte, rec, header, footer, hop uint8, useZlib bool, cut uint16) {
		if rec == 0 {
			return
		}
		var z bytes.Buffer
		c := tfrecord.Gzip
		var w io.WriteCloser = gzip.NewWriter(&z)
		if useZlib {
			c, w = tfrecord.Zlib, zlib.NewWriter(&z)
		}
		w.Write(data)
		w.Close()
		file := z.Bytes()
		if int(cut) <= len(file) {
			file = file[:len(file)-int(cut)] // cut 0: whole
		}
		name := filepath.Join(t.TempDir(), "f")
		os.WriteFile(name, file, 0o644)
		q, _ := queue.NewFIFO(1, []tensor.DType{tensor.String}, queue.Shapes(tensor.Shape{}))
		q.Enqueue(context.Background(), queue.Element{tensor.StringScalar(name)})
		q.Close(context.Background())
		r, err := NewFixedLengthRecordReader(q, int(rec), HeaderBytes(int(header)), FooterBytes(int(footer)), HopBytes(int(hop)), Compression(c))
		if err != nil {
			t.Fatal(err)
		}
		whole := len(file) == z.Len()
		step := int(hop)
		if step == 0 {
			step = int(rec)
		}
		for i := 0; ; i++ {
			_, v, err := r.Read(context.Background())
			if errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
				if !whole && len(file) > 0 {
					t.Fatalf("a stream cut %d bytes short ended quietly after %d records", z.Len()-len(file), i)
				}
				if start := int(header) + i*step; whole && start+int(rec)+int(footer) <= len(data) {
					t.Fatalf("stopped before record %d", i)
				}
				return
			}
			if err != nil {
				if whole && !(len(data) < int(header) && errors.Is(err, ErrShortHeader)) {
					t.Fatalf("whole stream: %v", err)
				}
				return
			}
			start := int(header) + i*step
			if start+int(rec)+int(footer) > len(data) || !bytes.Equal(v, data[start:start+int(rec)]) {
				t.Fatalf("record %d = %q", i, v)
			}
		}
	})
}

// FuzzRestoreState: arbitrary state bytes never panic; a state that
// restores serializes back to itself. Arbitrary positions inside a real
// unit, for every resumable format, either restore (and then read without
// panicking, each record a whole one) or fail with ErrState, never io.EOF.
func FuzzRestoreState(f *testing.F) {
	f.Add([]byte{0x08, 0x01, 0x10, 0x01, 0x18, 0x01, 0x22, 0x01, 0x58}, []byte{0x22})
	f.Add([]byte{0x08, 0x02, 0x10, 0x01, 0x22, 0x01, 0x58, 0x82, 0x01, 0x01, 0x00}, []byte{0x02, 0x04})
	f.Add([]byte{0x0d, 0x01, 0x00, 0x00, 0x00}, []byte{0x80, 0x01})
	dir := f.TempDir()
	var tfData, gzData bytes.Buffer
	for _, c := range []struct {
		buf *bytes.Buffer
		c   tfrecord.Compression
	}{{&tfData, tfrecord.None}, {&gzData, tfrecord.Gzip}} {
		w := tfrecord.NewWriter(c.buf, c.c)
		for _, r := range []string{"alpha", "", "gamma"} {
			w.Write([]byte(r))
		}
		w.Close()
	}
	files := map[string][]byte{"t.tfrecord": tfData.Bytes(), "t.tfrecord.gz": gzData.Bytes(), "t.txt": []byte("a\r\nbb\n\nccc"), "t.bin": []byte("HHabcdefgh")}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			f.Fatal(err)
		}
	}
	type reader struct {
		file string
		make func(q queue.Queue) (*Reader, error)
	}
	readers := []reader{
		{"t.tfrecord", func(q queue.Queue) (*Reader, error) { return NewTFRecordReader(q, tfrecord.None), nil }},
		{"t.tfrecord.gz", func(q queue.Queue) (*Reader, error) { return NewTFRecordReader(q, tfrecord.Gzip), nil }},
		{"t.txt", func(q queue.Queue) (*Reader, error) { return NewTextLineReader(q) }},
		{"t.bin", func(q queue.Queue) (*Reader, error) {
			return NewFixedLengthRecordReader(q, 3, HeaderBytes(2), HopBytes(2))
		}},
	}
	f.Fuzz(func(t *testing.T, state, pos []byte) {
		q, _ := queue.NewFIFO(1, []tensor.DType{tensor.String}, queue.Shapes(tensor.Shape{}))
		q.Close(context.Background())
		r := NewIdentityReader(q)
		if err := r.RestoreState(context.Background(), state); err == nil {
			again, err := r.SerializeState()
			if err != nil {
				t.Fatal(err)
			}
			r2 := NewIdentityReader(q)
			if err := r2.RestoreState(context.Background(), again); err != nil {
				t.Fatalf("re-serialized state does not restore: %v", err)
			}
			if r2.NumRecordsProduced() != r.NumRecordsProduced() || r2.NumWorkUnitsCompleted() != r.NumWorkUnitsCompleted() {
				t.Fatal("counters differ after a round trip")
			}
		} else if !errors.Is(err, ErrState) {
			t.Fatalf("restore error %v does not wrap ErrState", err)
		}

		for _, rd := range readers {
			r, err := rd.make(q)
			if err != nil {
				t.Fatal(err)
			}
			err = r.RestoreState(context.Background(), midUnitState(filepath.Join(dir, rd.file), pos))
			if err != nil {
				if !errors.Is(err, ErrState) || errors.Is(err, io.EOF) {
					t.Fatalf("%s: restore error %v", rd.file, err)
				}
				continue
			}
			for range 10 {
				if _, _, err := r.Read(context.Background()); err != nil {
					break
				}
			}
		}
	})
}

// FuzzSkipLine: skipping a header line takes exactly the bytes up to and
// with the first "\n" (all of them when there is none), whatever the
// buffer's size, and ends the input only when nothing is left; the line
// after it reads as a plain split would give it.
func FuzzSkipLine(f *testing.F) {
	for _, s := range []string{"", "\n", "a", "a\nb", "hdr\r\nrow\n", "\r", "x\n\n", "long header line\nrow"} {
		f.Add([]byte(s), uint8(0))
	}
	f.Fuzz(func(t *testing.T, data []byte, size uint8) {
		br := bufio.NewReaderSize(bytes.NewReader(data), 16+int(size))
		want := int64(len(data))
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			want = int64(i + 1)
		}
		n, err := skipLine(br)
		if len(data) == 0 {
			if err != io.EOF || n != 0 {
				t.Fatalf("empty input: %d, %v; want 0, io.EOF", n, err)
			}
			return
		}
		if err != nil || n != want {
			t.Fatalf("skipped %d bytes, %v; want %d", n, err, want)
		}
		var long []byte
		line, _, err := readLine(br, &long, 0)
		rest := data[want:]
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			rest = rest[:i]
		}
		rest = bytes.TrimSuffix(rest, []byte("\r"))
		if len(rest) == 0 && int(want) == len(data) || len(rest) == 0 && err == io.EOF {
			return
		}
		if err != nil || !bytes.Equal(line, rest) {
			t.Fatalf("next line %q, %v; want %q", line, err, rest)
		}
	})
}
