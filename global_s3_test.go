package sluice_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"gocloud.dev/blob"
	"gocloud.dev/blob/s3blob"

	"github.com/sluiceml/sluice"
	"github.com/sluiceml/sluice/example"
	"github.com/sluiceml/sluice/index"
	"github.com/sluiceml/sluice/storage/blobfs"
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
	backend := s3mem.New()
	if err := backend.CreateBucket("bench"); err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(gofakes3.New(backend).Server())
	defer srv.Close()
	tr := &http.Transport{MaxIdleConnsPerHost: 64}
	defer tr.CloseIdleConnections()
	client := s3.New(s3.Options{
		Region: "us-east-1", BaseEndpoint: aws.String(srv.URL), UsePathStyle: true,
		Credentials: credentials.NewStaticCredentialsProvider("bench", "bench", ""),
		HTTPClient:  &http.Client{Transport: tr},
	})
	fsys := blobfs.New(blobfs.Opener(func(ctx context.Context, bucketURL string) (*blob.Bucket, error) {
		u, err := url.Parse(bucketURL)
		if err != nil {
			return nil, err
		}
		return s3blob.OpenBucket(ctx, client, u.Host, nil)
	}))
	defer fsys.Close()
	blobfs.Register(fsys, "s3")
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
