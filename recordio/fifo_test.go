//go:build unix

package recordio

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/sluiceml/sluice/tfrecord"
)

// A named pipe (a FIFO, or /dev/fd/N of a shell's process substitution)
// has no size: every reader reads it in order, to its end, rather than
// taking the 0 bytes it stats as for its length and reading nothing, or
// calling its first large record truncated. (TensorFlow 2.21 fails every
// reader on one with "Illegal seek".)
func TestReadNamedPipe(t *testing.T) {
	var tfr bytes.Buffer
	w := tfrecord.NewWriter(&tfr)
	big := bytes.Repeat([]byte("x"), 100000) // beyond a read buffer
	w.Write(big)
	w.Write([]byte("small"))
	w.Close()
	twelve := []byte("abcdefghijkl")
	for _, tc := range []struct {
		kind string
		data []byte
		opts []Option
		want [][]byte
	}{
		{"FixedLengthRecordReader", twelve, []Option{RecordBytes(4), HeaderBytes(1), FooterBytes(2)},
			[][]byte{[]byte("bcde"), []byte("fghi")}},
		{"TFRecordReader", tfr.Bytes(), nil, [][]byte{big, []byte("small")}},
		{"WholeFileReader", twelve, nil, [][]byte{twelve}},
		{"TextLineReader", []byte("a\nb\n"), nil, [][]byte{[]byte("a"), []byte("b")}},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "pipe")
			if err := syscall.Mkfifo(p, 0o600); err != nil {
				t.Skip(err)
			}
			wrote := make(chan error, 1)
			go func() {
				f, err := os.OpenFile(p, os.O_WRONLY, 0)
				if err == nil {
					_, err = f.Write(tc.data)
					f.Close()
				}
				wrote <- err
			}()
			q := workQueue(t, p)
			q.Close(bg)
			r, err := Open(tc.kind, q, tc.opts...)
			if err != nil {
				t.Fatal(err)
			}
			var got [][]byte
			for {
				_, v, err := r.Read(bg)
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatalf("after %d records: %v", len(got), err)
				}
				got = append(got, bytes.Clone(v))
			}
			if err := <-wrote; err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("%d records, want %d", len(got), len(tc.want))
			}
			for i := range got {
				if !bytes.Equal(got[i], tc.want[i]) {
					t.Errorf("record %d: %.20q (%d bytes), want %.20q (%d bytes)", i, got[i], len(got[i]), tc.want[i], len(tc.want[i]))
				}
			}
		})
	}
}

// An empty named pipe is an empty unit for every compression, as an empty
// file is, and the files after it are read, fixed-length records or text
// lines: an empty GZIP pipe's
// decompressor said io.EOF, which, wrapped in its error, ended the whole
// input without a word (audit 81); an empty ZLIB pipe was an error.
func TestEmptyCompressedPipe(t *testing.T) {
	for _, tc := range []struct {
		kind string
		c    tfrecord.Compression
	}{{"fixed", tfrecord.Gzip}, {"fixed", tfrecord.Zlib}, {"fixed", tfrecord.Zstd}, {"text", tfrecord.Gzip}, {"text", tfrecord.Zlib}, {"text", tfrecord.Zstd}} {
		kind, c := tc.kind, tc.c
		t.Run(kind+"/"+c.String(), func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "pipe")
			if err := syscall.Mkfifo(p, 0o600); err != nil {
				t.Skip(err)
			}
			wrote := make(chan error, 1)
			go func() {
				f, err := os.OpenFile(p, os.O_WRONLY, 0)
				if err == nil {
					err = f.Close() // nothing written
				}
				wrote <- err
			}()
			var z bytes.Buffer
			cw, err := tfrecord.NewCompressor(c, &z)
			if err != nil {
				t.Fatal(err)
			}
			data := "abcdefgh"
			if kind == "text" {
				data = "abcd\nefgh\n"
			}
			cw.Write([]byte(data))
			cw.Close()
			good := writeFile(t, dir, "good", z.Bytes())
			q := workQueue(t, p, good)
			q.Close(bg)
			r, err := NewFixedLengthRecordReader(q, 4, Compression(c))
			if kind == "text" {
				r, err = NewTextLineReader(q, Compression(c))
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for {
				_, v, err := r.Read(bg)
				if err != nil {
					if !errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
						t.Fatalf("after %q: %v", got, err)
					}
					break
				}
				got = append(got, string(v))
			}
			if len(got) != 2 || got[0] != "abcd" || got[1] != "efgh" {
				t.Errorf("read %q, want the second file's two records", got)
			}
			if err := <-wrote; err != nil {
				t.Fatal(err)
			}
		})
	}
}
