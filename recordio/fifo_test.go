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
