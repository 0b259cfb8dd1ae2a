package blobfs_test

import (
	"bytes"
	"context"
	"io"
	"log"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"gocloud.dev/blob"
	"gocloud.dev/blob/s3blob"

	"github.com/sluiceml/sluice/storage"
	"github.com/sluiceml/sluice/storage/blobfs"
)

const testBucket = "bucket"

// s3Server is a real S3-protocol server (gofakes3 with its in-memory
// backend) on a loopback port. Faults, when set, wrap the server's
// handler: they stand for a misbehaving network or service in front of
// a correct store.
type s3Server struct {
	url  string
	dial func(ctx context.Context, network, addr string) (net.Conn, error) // nil: the default dialer

	mu     sync.Mutex
	faults func(http.Handler) http.Handler
	log    []string // "METHOD path?query range", one per request
	fake   http.Handler
	// legacyList makes the buckets list with ListObjects (version 1), as
	// SLUICE_S3_PARAMS's use_legacy_list=true does.
	legacyList bool
}

func newS3(t testing.TB) *s3Server {
	t.Helper()
	s := newS3Handler(t)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
	// gofakes3 logs a superfluous WriteHeader when a client goes away
	// mid-response, which the fault tests make happen on purpose.
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.Start()
	t.Cleanup(srv.Close)
	s.url = srv.URL
	return s
}

// newS3Pipe is newS3 on an in-memory network of net.Pipe connections,
// for tests in a testing/synctest bubble: nothing there waits on a real
// socket or clock, so a test of timeouts runs in fake time and cannot
// be upset by a loaded machine. Call it inside the bubble.
func newS3Pipe(t testing.TB) *s3Server {
	t.Helper()
	s := newS3Handler(t)
	l := &pipeListener{conns: make(chan net.Conn), done: make(chan struct{})}
	srv := &http.Server{Handler: http.HandlerFunc(s.serve), ErrorLog: log.New(io.Discard, "", 0)}
	served := make(chan struct{})
	go func() {
		defer close(served)
		srv.Serve(l)
	}()
	t.Cleanup(func() {
		srv.Close()
		<-served
	})
	s.url, s.dial = "http://s3.test", l.dial
	return s
}

func newS3Handler(t testing.TB) *s3Server {
	t.Helper()
	backend := s3mem.New()
	if err := backend.CreateBucket(testBucket); err != nil {
		t.Fatal(err)
	}
	return &s3Server{fake: gofakes3.New(backend).Server()}
}

// A pipeListener accepts the server ends of the net.Pipe connections
// its dial makes.
type pipeListener struct {
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

func (l *pipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *pipeListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func (l *pipeListener) Addr() net.Addr { return pipeAddr{} }

func (l *pipeListener) dial(ctx context.Context, _, _ string) (net.Conn, error) {
	client, server := net.Pipe()
	select {
	case l.conns <- server:
		return client, nil
	case <-l.done:
		return nil, net.ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return "s3.test:80" }

func (s *s3Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.log = append(s.log, r.Method+" "+r.URL.RequestURI()+" "+r.Header.Get("Range"))
	h := s.fake
	if s.faults != nil {
		h = s.faults(h)
	}
	s.mu.Unlock()
	h.ServeHTTP(w, r)
}

// setFaults puts wrap in front of the store for the requests that follow
// (nil removes it) and clears the request log.
func (s *s3Server) setFaults(wrap func(http.Handler) http.Handler) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults, s.log = wrap, nil
}

// requests returns the logged requests that start with prefix.
func (s *s3Server) requests(prefix string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, l := range s.log {
		if strings.HasPrefix(l, prefix) {
			out = append(out, l)
		}
	}
	return out
}

// fs returns an FS whose buckets are opened on s with an S3 client
// configured as for any S3-compatible endpoint: path-style addressing,
// static credentials, a region, and checksums only where required (which
// third-party stores expect). The SDK's own retries are turned off so
// that the faults reach blobfs's retry loop, which is under test; the
// backoff is short to keep the tests fast.
func (s *s3Server) fs(t testing.TB, opts ...blobfs.Option) *blobfs.FS {
	t.Helper()
	tr := &http.Transport{MaxIdleConnsPerHost: 64, DialContext: s.dial}
	client := s3.New(s3.Options{
		Region:                     "us-east-1",
		BaseEndpoint:               aws.String(s.url),
		UsePathStyle:               true,
		Credentials:                credentials.NewStaticCredentialsProvider("AKID", "SECRET", ""),
		HTTPClient:                 &http.Client{Transport: tr},
		Retryer:                    aws.NopRetryer{},
		RequestChecksumCalculation: aws.RequestChecksumCalculationWhenRequired,
		ResponseChecksumValidation: aws.ResponseChecksumValidationWhenRequired,
	})
	open := func(ctx context.Context, bucketURL string) (*blob.Bucket, error) {
		u, err := url.Parse(bucketURL)
		if err != nil {
			return nil, err
		}
		return s3blob.OpenBucket(ctx, client, u.Host, &s3blob.Options{
			RequestChecksumCalculation: aws.RequestChecksumCalculationWhenRequired,
			UseLegacyList:              s.legacyList,
		})
	}
	opts = append([]blobfs.Option{blobfs.Opener(open), blobfs.Backoff(time.Millisecond, 10*time.Millisecond)}, opts...)
	fsys := blobfs.New(opts...)
	t.Cleanup(func() {
		fsys.Close()
		tr.CloseIdleConnections()
	})
	return fsys
}

// randomBytes returns n reproducible pseudo-random bytes.
func randomBytes(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, seed))
	p := make([]byte, n)
	for i := 0; i < n; i += 8 {
		v := r.Uint64()
		for j := 0; j < 8 && i+j < n; j++ {
			p[i+j] = byte(v >> (8 * j))
		}
	}
	return p
}

// open opens name through fsys, failing the test if it cannot, and closes
// it when the test ends.
func open(t testing.TB, fsys *blobfs.FS, name string) storage.File {
	t.Helper()
	f, err := fsys.Open(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// put writes data to name through fsys.
func put(t testing.TB, fsys *blobfs.FS, name string, data []byte) {
	t.Helper()
	w, err := fsys.Create(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(w, bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// failEvery answers every nth request with 500 InternalError, as S3
// does under load.
func failEvery(n int64) func(http.Handler) http.Handler {
	var count atomic.Int64
	return func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if count.Add(1)%n == 0 {
				w.Header().Set("Content-Type", "application/xml")
				w.WriteHeader(http.StatusInternalServerError)
				io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>InternalError</Code><Message>injected</Message></Error>`)
				return
			}
			h.ServeHTTP(w, r)
		})
	}
}

// closeBeforeAnswer closes the connection of every request of the method
// without an answer, which Go's HTTP client reports as an error wrapping
// io.EOF ("Head ...: EOF").
func closeBeforeAnswer(method string) func(http.Handler) http.Handler {
	return func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method != method {
				h.ServeHTTP(w, r)
				return
			}
			if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
				conn.Close()
			}
		})
	}
}

// byteRange returns the first and last byte a GET asks for (last is -1
// for "to the end").
func byteRange(r *http.Request) (first, last int64) {
	v, ok := strings.CutPrefix(r.Header.Get("Range"), "bytes=")
	if !ok {
		return 0, -1
	}
	a, b, _ := strings.Cut(v, "-")
	first, _ = strconv.ParseInt(a, 10, 64)
	last, err := strconv.ParseInt(b, 10, 64)
	if err != nil {
		last = -1
	}
	return first, last
}

// dropAt makes a GET whose range covers object offset at send the bytes
// before it and then lose its connection, as a reset or a dead proxy
// does. times limits how many responses are cut (negative: all).
func dropAt(at int64, times int64) func(http.Handler) http.Handler {
	var cuts atomic.Int64
	return func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			start, last := byteRange(r)
			covers := start <= at && (last < 0 || at <= last)
			if r.Method != http.MethodGet || !covers || (times >= 0 && cuts.Load() >= times) {
				h.ServeHTTP(w, r)
				return
			}
			cuts.Add(1)
			h.ServeHTTP(&cutWriter{ResponseWriter: w, left: at - start}, r)
		})
	}
}

// cutWriter passes left bytes of the body, then hijacks the connection
// and closes it mid-body.
type cutWriter struct {
	http.ResponseWriter
	left int64
	cut  bool
}

func (w *cutWriter) Write(p []byte) (int, error) {
	if w.cut {
		return 0, http.ErrHijacked
	}
	if int64(len(p)) < w.left {
		w.left -= int64(len(p))
		return w.ResponseWriter.Write(p)
	}
	n, _ := w.ResponseWriter.Write(p[:w.left])
	w.cut = true
	rc := http.NewResponseController(w.ResponseWriter)
	rc.Flush()
	if conn, _, err := rc.Hijack(); err == nil {
		conn.Close()
	}
	return n, http.ErrHijacked
}

// shortBodies makes every GET answer short bytes fewer than asked for,
// with a matching Content-Length: a response that is well formed but
// incomplete, which only a length check can catch.
func shortBodies(short int64) func(http.Handler) http.Handler {
	return func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodGet || r.URL.Query().Has("list-type") {
				h.ServeHTTP(w, r)
				return
			}
			h.ServeHTTP(&shortWriter{ResponseWriter: w, short: short}, r)
		})
	}
}

type shortWriter struct {
	http.ResponseWriter
	short, left int64
}

func (w *shortWriter) WriteHeader(code int) {
	if n, err := strconv.ParseInt(w.Header().Get("Content-Length"), 10, 64); err == nil && code/100 == 2 {
		w.left = max(n-w.short, 0)
		w.Header().Set("Content-Length", strconv.FormatInt(w.left, 10))
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *shortWriter) Write(p []byte) (int, error) {
	keep := min(int64(len(p)), w.left)
	w.left -= keep
	if _, err := w.ResponseWriter.Write(p[:keep]); err != nil {
		return 0, err
	}
	return len(p), nil // swallow the rest, as if it had been sent
}
