//go:build unix

package sluice

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/sluiceml/sluice/decode"
	"github.com/sluiceml/sluice/tfrecord"
)

// TestReadNamedPipe reads a regular file and a named pipe (a FIFO, or a
// shell's process substitution) of the same pattern, in order and
// deterministically, plain and compressed: the pipe's compression is told
// from its first bytes without reading it at an offset, which a pipe
// cannot do, and a deterministic run, which learns its files' sizes for
// its checkpoints as it starts, does so without opening the pipe, whose
// writer's data a reader that came and went would have thrown away.
func TestReadNamedPipe(t *testing.T) {
	tfrecords := func(c tfrecord.Compression, prefix string, n int) []byte {
		var b bytes.Buffer
		w := tfrecord.NewWriter(&b, c)
		for j := range n {
			w.Write(fmt.Appendf(nil, "%s%05d", prefix, j))
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	lines := func(gz bool, prefix string, n int) []byte {
		var b bytes.Buffer
		for j := range n {
			fmt.Fprintf(&b, "%s%05d,%d\n", prefix, j, j)
		}
		if !gz {
			return b.Bytes()
		}
		var z bytes.Buffer
		w := gzip.NewWriter(&z)
		w.Write(b.Bytes())
		w.Close()
		return z.Bytes()
	}
	const fileRecords, pipeRecords = 3000, 5
	records := func(opts ...ExampleOption) func(pattern string) *Dataset {
		return func(pattern string) *Dataset { return Records(pattern, opts...) }
	}
	csv := func(pattern string) *Dataset {
		return CSV(pattern, []Column{Col("name", decode.StringColumn("")), Col("n", decode.Int64Column(0))}, Readers(1))
	}
	for _, tc := range []struct {
		name       string
		file, pipe []byte
		ds         func(pattern string) *Dataset
	}{
		{"tfrecord", tfrecords(tfrecord.None, "f", fileRecords), tfrecords(tfrecord.None, "p", pipeRecords), records(Readers(1))},
		{"tfrecord-gzip", tfrecords(tfrecord.Gzip, "f", fileRecords), tfrecords(tfrecord.Gzip, "p", pipeRecords), records(Readers(1))},
		{"tfrecord-deterministic", tfrecords(tfrecord.None, "f", fileRecords), tfrecords(tfrecord.None, "p", pipeRecords), records(Deterministic(), Readers(1))},
		{"tfrecord-gzip-deterministic", tfrecords(tfrecord.Gzip, "f", fileRecords), tfrecords(tfrecord.Gzip, "p", pipeRecords), records(Deterministic(), Readers(1))},
		{"csv", lines(false, "f", fileRecords), lines(false, "p", pipeRecords), csv},
		{"csv-gzip", lines(true, "f", fileRecords), lines(true, "p", pipeRecords), csv},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "a-0"), tc.file, 0o644); err != nil {
				t.Fatal(err)
			}
			pipe := filepath.Join(dir, "a-1")
			if err := syscall.Mkfifo(pipe, 0o600); err != nil {
				t.Skip(err)
			}
			// The writer writes and goes, as a process substitution's
			// does, whether or not the reader has come yet.
			wrote := make(chan error, 1)
			go func() {
				f, err := os.OpenFile(pipe, os.O_WRONLY, 0)
				if err == nil {
					_, err = f.Write(tc.pipe)
					f.Close()
				}
				wrote <- err
			}()
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			n := 0
			for b, err := range tc.ds(filepath.Join(dir, "a-*")).Batches(ctx, 100) {
				if err != nil {
					t.Fatalf("after %d records: %v", n, err)
				}
				n += b.Len()
			}
			if want := fileRecords + pipeRecords; n != want {
				t.Errorf("%d records, want %d", n, want)
			}
			if err := <-wrote; err != nil {
				t.Fatal(err)
			}
		})
	}
}
