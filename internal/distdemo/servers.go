package distdemo

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"github.com/nats-io/nats-server/v2/server"
	"gocloud.dev/blob"
	"gocloud.dev/blob/s3blob"

	"github.com/sluiceml/sluice/storage/blobfs"
)

// s3Local is an S3-protocol server on a loopback port: gofakes3 with its
// in-memory backend. It counts the requests it serves, to show that
// readers fetch files in large ranges rather than a request per record.
type s3Local struct {
	srv    *httptest.Server
	tr     *http.Transport
	client *s3.Client
	gets   atomic.Int64
	puts   atomic.Int64
}

func startS3(bucket string) (*s3Local, error) {
	backend := s3mem.New()
	if err := backend.CreateBucket(bucket); err != nil {
		return nil, err
	}
	fake := gofakes3.New(backend).Server()
	s := &s3Local{}
	s.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet:
			s.gets.Add(1)
		case http.MethodPut, http.MethodPost:
			s.puts.Add(1)
		}
		fake.ServeHTTP(w, r)
	}))
	// A killed worker drops its connections mid-response; the server's
	// complaints about that are expected.
	s.srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	s.srv.Start()
	s.tr = &http.Transport{MaxIdleConnsPerHost: 32}
	s.client = s3.New(s3.Options{
		Region:                     "us-east-1",
		BaseEndpoint:               aws.String(s.srv.URL),
		UsePathStyle:               true,
		Credentials:                credentials.NewStaticCredentialsProvider("demo", "demo", ""),
		HTTPClient:                 &http.Client{Transport: s.tr},
		RequestChecksumCalculation: aws.RequestChecksumCalculationWhenRequired,
		ResponseChecksumValidation: aws.ResponseChecksumValidationWhenRequired,
	})
	return s, nil
}

// opener opens buckets on this server, for blobfs.Opener.
func (s *s3Local) opener() blobfs.OpenBucketFunc {
	return func(ctx context.Context, bucketURL string) (*blob.Bucket, error) {
		u, err := url.Parse(bucketURL)
		if err != nil {
			return nil, err
		}
		return s3blob.OpenBucket(ctx, s.client, u.Host, &s3blob.Options{
			RequestChecksumCalculation: aws.RequestChecksumCalculationWhenRequired,
		})
	}
}

func (s *s3Local) close() {
	s.tr.CloseIdleConnections()
	s.srv.Close()
}

// startNATS starts an embedded NATS server with JetStream, storing its
// streams under dir, on a free loopback port.
func startNATS(dir string) (*server.Server, error) {
	ns, err := server.NewServer(&server.Options{
		Host: "127.0.0.1", Port: server.RANDOM_PORT, JetStream: true, StoreDir: dir,
		NoLog: true, NoSigs: true,
	})
	if err != nil {
		return nil, err
	}
	go ns.Start()
	if !ns.ReadyForConnections(10 * time.Second) {
		ns.Shutdown()
		return nil, fmt.Errorf("demo distributed: the embedded NATS server did not start")
	}
	return ns, nil
}

func stopNATS(ns *server.Server) {
	ns.Shutdown()
	ns.WaitForShutdown()
}

// unitOf returns the work unit of a reader's record key, "unit:offset".
func unitOf(key string) string {
	if i := strings.LastIndexByte(key, ':'); i >= 0 {
		return key[:i]
	}
	return key
}
