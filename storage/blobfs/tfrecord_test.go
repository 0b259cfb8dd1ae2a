package blobfs_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/recordio"
	"github.com/sluiceml/sluice/storage"
	"github.com/sluiceml/sluice/storage/blobfs"
	"github.com/sluiceml/sluice/tensor"
	"github.com/sluiceml/sluice/tfrecord"
)

// record returns record i of a test file: varied lengths, some empty,
// some longer than a block, so records straddle block boundaries.
func record(i int) []byte {
	n := (i * 7919) % 3000
	if i%500 == 499 {
		n = 70 * kib
	}
	return randomBytes(n, uint64(i))
}

// writeTFRecord writes n records to name through package storage.
func writeTFRecord(t testing.TB, name string, c tfrecord.Compression, n int) {
	t.Helper()
	ctx := context.Background()
	f, err := storage.Create(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	w := tfrecord.NewWriter(f, c)
	for i := range n {
		if err := w.Write(record(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TFRecord files written to s3:// with package tfrecord read back, record
// for record, through recordio's TFRecord reader, which opens them with
// storage.Open — the path every sluice reader takes — while the server
// fails every third request.
func TestTFRecordThroughRecordio(t *testing.T) {
	s := newS3(t)
	// The s3 scheme is registered globally, so this test is not
	// parallel; tests after it that use storage with s3:// register
	// their own FS.
	blobfs.Register(s.fs(t, blobfs.BlockSize(64*kib), blobfs.Readahead(2)), "s3")

	const n = 3000
	comps := []tfrecord.Compression{tfrecord.None, tfrecord.Gzip}
	for _, c := range comps {
		writeTFRecord(t, fmt.Sprintf("s3://bucket/tf/%v.tfrecord", c), c, n)
	}
	s.setFaults(failEvery(3))

	ctx := context.Background()
	for _, c := range comps {
		t.Run(c.String(), func(t *testing.T) {
			names, err := storage.Glob(ctx, fmt.Sprintf("s3://bucket/tf/%v.*", c))
			if err != nil || len(names) != 1 {
				t.Fatalf("Glob = %q, %v", names, err)
			}
			q, err := queue.NewFIFO(1, []tensor.DType{tensor.String}, queue.Shapes(tensor.Shape{}))
			if err != nil {
				t.Fatal(err)
			}
			if err := q.EnqueueMany(ctx, queue.Element{tensor.Strings(names...)}); err != nil {
				t.Fatal(err)
			}
			q.Close(ctx)
			r := recordio.NewTFRecordReader(q, c)
			var keys []string
			var state []byte
			for i := 0; ; i++ {
				if i == n/2 {
					if state, err = r.SerializeState(); err != nil {
						t.Fatal(err)
					}
				}
				key, value, err := r.Read(ctx)
				if errors.Is(err, io.EOF) {
					if i != n {
						t.Fatalf("%d records, want %d", i, n)
					}
					break
				}
				if err != nil {
					t.Fatalf("record %d: %v", i, err)
				}
				if !bytes.Equal(value, record(i)) {
					t.Fatalf("record %d (%s): %d bytes differ from the %d written", i, key, len(value), len(record(i)))
				}
				keys = append(keys, key)
			}
			if keys[0] != names[0]+":0" {
				t.Errorf("first key %q", keys[0])
			}

			// A restored reader reopens the object and resumes at the
			// saved record (by ReadAt from its offset when uncompressed).
			q2, _ := queue.NewFIFO(1, []tensor.DType{tensor.String}, queue.Shapes(tensor.Shape{}))
			q2.Close(ctx)
			r2 := recordio.NewTFRecordReader(q2, c)
			if err := r2.RestoreState(ctx, state); err != nil {
				t.Fatal(err)
			}
			for i := n / 2; i < n; i++ {
				key, value, err := r2.Read(ctx)
				if err != nil || key != keys[i] || !bytes.Equal(value, record(i)) {
					t.Fatalf("restored reader, record %d: %q, %v; want %q", i, key, err, keys[i])
				}
			}
			if _, _, err := r2.Read(ctx); !errors.Is(err, io.EOF) {
				t.Errorf("restored reader after the last record: %v", err)
			}
		})
	}
}
