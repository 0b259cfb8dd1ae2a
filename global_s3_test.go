package sluice_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/sluiceml/sluice"
	"github.com/sluiceml/sluice/example"
	"github.com/sluiceml/sluice/index"
	"github.com/sluiceml/sluice/internal/s3test"
	"github.com/sluiceml/sluice/tensor"
	"github.com/sluiceml/sluice/tfrecord"
)

// BenchmarkGlobalShuffleS3 reads MNIST-like Examples from the in-process
// S3 server (gofakes3 on a loopback port), in order and globally
// shuffled, which reads each record with a ranged request of its own
// (nearby ones together, Readers batches at once):
//
//	go test -run '^$' -bench GlobalShuffleS3 -benchmem .
func BenchmarkGlobalShuffleS3(b *testing.B) {
	fsys := s3test.Serve(b, "bench", nil)
	b.Setenv("SLUICE_INDEX_DIR", b.TempDir())

	const files, perFile = 2, 5000
	rng := rand.New(rand.NewPCG(1, 2))
	pix := make([]float32, 784)
	for i := range files {
		var buf bytes.Buffer
		w := tfrecord.NewWriter(&buf)
		for j := range perFile {
			for k := range pix {
				pix[k] = rng.Float32()
			}
			w.Write(example.New().Floats("image", pix).Int64("label", int64(j%10)).Marshal())
		}
		w.Close()
		name := fmt.Sprintf("s3://bench/mnist-%d.tfrecord", i)
		out, err := fsys.Create(context.Background(), name)
		if err != nil {
			b.Fatal(err)
		}
		out.Write(buf.Bytes())
		if err := out.Close(); err != nil {
			b.Fatal(err)
		}
		if _, err := index.LoadOrBuild(context.Background(), name); err != nil {
			b.Fatal(err)
		}
	}
	spec := example.Spec{"image": example.FixedLen(tensor.Float32, 784), "label": example.FixedLen(tensor.Int64)}
	for _, tc := range []struct {
		name string
		opts []sluice.ExampleOption
	}{
		{"sequential", nil},
		{"shuffle10000", []sluice.ExampleOption{sluice.Shuffle(10000)}},
		{"globalshuffle", []sluice.ExampleOption{sluice.GlobalShuffle()}},
		{"globalshuffle-readers32", []sluice.ExampleOption{sluice.GlobalShuffle(), sluice.Readers(32)}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			ds := sluice.Examples("s3://bench/mnist-*", spec, tc.opts...)
			n := 0
			for b.Loop() {
				for batch, err := range ds.Batches(b.Context(), 128) {
					if err != nil {
						b.Fatal(err)
					}
					n += batch.Len()
				}
			}
			if n != files*perFile*b.N {
				b.Fatalf("%d examples, want %d", n, files*perFile*b.N)
			}
			b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "examples/s")
		})
	}
}
