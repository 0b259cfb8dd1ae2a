package blobfs_test

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/sluiceml/sluice/storage"
	"github.com/sluiceml/sluice/storage/blobfs"
	"github.com/sluiceml/sluice/tfrecord"
)

// BenchmarkReadTFRecord reads a 64 MiB TFRecord file of 1 KiB records
// from the in-process S3 server (default block size, readahead and
// concurrency) and from the local disk, through storage.Open and
// tfrecord.Reader. It reports MB/s of file and records/s.
//
//	go test -run '^$' -bench . -benchmem -count=3 ./storage/blobfs
func BenchmarkReadTFRecord(b *testing.B) {
	const recordSize, fileSize = 1 << 10, 64 << 20
	var buf bytes.Buffer
	w := tfrecord.NewWriter(&buf)
	rec := randomBytes(recordSize, 1)
	records := 0
	for buf.Len()+recordSize+16 <= fileSize {
		if err := w.Write(rec); err != nil {
			b.Fatal(err)
		}
		w.Flush()
		records++
	}
	w.Close()
	data := buf.Bytes()

	s := newS3(b)
	fsys := s.fs(b)
	blobfs.Register(fsys, "s3")
	put(b, fsys, "s3://bucket/bench.tfrecord", data)
	local := filepath.Join(b.TempDir(), "bench.tfrecord")
	if err := os.WriteFile(local, data, 0o644); err != nil {
		b.Fatal(err)
	}

	for _, tc := range []struct{ name, file string }{
		{"s3", "s3://bucket/bench.tfrecord"},
		{"local", local},
	} {
		b.Run(tc.name, func(b *testing.B) {
			ctx := context.Background()
			b.SetBytes(int64(len(data)))
			n := 0
			for b.Loop() {
				f, err := storage.Open(ctx, tc.file)
				if err != nil {
					b.Fatal(err)
				}
				r := tfrecord.NewReader(f)
				for {
					_, err := r.Next()
					if err == io.EOF {
						break
					}
					if err != nil {
						b.Fatal(err)
					}
					n++
				}
				f.Close()
			}
			if n != records*b.N {
				b.Fatalf("read %d records, want %d", n, records*b.N)
			}
			b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "records/s")
		})
	}
}
