package sluice

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/sluiceml/sluice/internal/cputime"
	"github.com/sluiceml/sluice/tfrecord"
)

// BenchmarkRecords reads TFRecord files of 100 000 records of 200 bytes
// (uncompressed, and GZIP) as they are, through Records to batches of
// 128, with batch memory reused (the default) and of each batch's own
// (KeepBatches). One op is one pass over the files, a new pipeline each.
//
//	go test -run '^$' -bench Records -benchmem -cpu 1 .
//	go test -run '^$' -bench Records -benchmem -cpu 2 .
//
// (One -cpu value a run: with a list, Go runs a sub-benchmark that uses
// b.Loop at the list's last GOMAXPROCS for its first value, golang/go#49980.)
func BenchmarkRecords(b *testing.B) {
	dir := b.TempDir()
	rng := rand.New(rand.NewPCG(5, 6))
	const files, perFile, size = 4, 25000, 200
	rec := make([]byte, size)
	for _, c := range []tfrecord.Compression{tfrecord.None, tfrecord.Gzip} {
		for i := range files {
			var buf bytes.Buffer
			w := tfrecord.NewWriter(&buf, c)
			for range perFile {
				for k := range rec {
					rec[k] = byte('a' + rng.IntN(16)) // compressible, as text is
				}
				w.Write(rec)
			}
			if err := w.Close(); err != nil {
				b.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%v-%d.tfrecord", c, i)), buf.Bytes(), 0o644); err != nil {
				b.Fatal(err)
			}
		}
		for _, keep := range []bool{false, true} {
			name, opts := c.String()+"-reuse", []BatchOption(nil)
			if keep {
				name, opts = c.String()+"-keep", []BatchOption{KeepBatches()}
			}
			ds := Records(filepath.Join(dir, c.String()+"-*"))
			b.Run(name, func(b *testing.B) {
				b.SetBytes(files * perFile * size)
				cpu0 := cputime.Process()
				for b.Loop() {
					n := 0
					for batch, err := range ds.Batches(b.Context(), benchBatch, opts...) {
						if err != nil {
							b.Fatal(err)
						}
						for _, r := range batch.Bytes(RecordFeature) {
							n += len(r)
						}
					}
					if n != files*perFile*size {
						b.Fatalf("%d bytes, want %d", n, files*perFile*size)
					}
				}
				examples := float64(files * perFile * b.N)
				b.ReportMetric(examples/b.Elapsed().Seconds(), "examples/s")
				b.ReportMetric(float64(cputime.Process()-cpu0)/examples, "cpu-ns/example")
			})
		}
	}
}
