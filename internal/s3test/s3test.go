// Package s3test serves the scheme "s3" from an S3-protocol server in the
// test's process (gofakes3 with its in-memory backend, on a loopback
// port), for the tests and benchmarks of packages that read and write
// objects through storage.
package s3test

import (
	"context"
	"io"
	"log"
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

	"github.com/sluiceml/sluice/storage/blobfs"
)

// Serve starts a server holding the empty bucket, registers a blobfs.FS
// of it for "s3" with opts, and returns the FS. The test's cleanup closes
// both. backend configures the in-memory store (its clock, say).
func Serve(t testing.TB, bucket string, backend []s3mem.Option, opts ...blobfs.Option) *blobfs.FS {
	t.Helper()
	return ServeFaulty(t, bucket, backend, nil, opts...)
}

// ServeFaulty is Serve with faults: wrap, if not nil, stands between the
// client and the store, as a misbehaving network or service would.
func ServeFaulty(t testing.TB, bucket string, backend []s3mem.Option, wrap func(http.Handler) http.Handler, opts ...blobfs.Option) *blobfs.FS {
	t.Helper()
	mem := s3mem.New(backend...)
	if err := mem.CreateBucket(bucket); err != nil {
		t.Fatal(err)
	}
	h := gofakes3.New(mem).Server()
	if wrap != nil {
		h = wrap(h)
	}
	srv := httptest.NewUnstartedServer(h)
	// A client that goes away mid-response makes the server complain.
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.Start()
	t.Cleanup(srv.Close)
	tr := &http.Transport{MaxIdleConnsPerHost: 64}
	t.Cleanup(tr.CloseIdleConnections)
	client := s3.New(s3.Options{
		Region: "us-east-1", BaseEndpoint: aws.String(srv.URL), UsePathStyle: true,
		Credentials: credentials.NewStaticCredentialsProvider("test", "test", ""),
		HTTPClient:  &http.Client{Transport: tr},
		// blobfs retries on its own, as its options say.
		Retryer: aws.NopRetryer{},
	})
	fsys := blobfs.New(append([]blobfs.Option{blobfs.Opener(func(ctx context.Context, bucketURL string) (*blob.Bucket, error) {
		u, err := url.Parse(bucketURL)
		if err != nil {
			return nil, err
		}
		return s3blob.OpenBucket(ctx, client, u.Host, nil)
	})}, opts...)...)
	t.Cleanup(func() { fsys.Close() })
	blobfs.Register(fsys, "s3")
	return fsys
}
