package blobfs

import (
	"context"
	"crypto/rand"
	"fmt"
	"net/http"
	"time"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/feature/s3/transfermanager"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"gocloud.dev/blob"
)

// writer uploads one object; gocloud's writer buffers a part at a time
// and switches to a multipart upload when the object outgrows one part.
type writer struct {
	w      *blob.Writer
	name   string
	cancel context.CancelFunc // the upload's context's, which Abort ends
}

// writeKey names the metadata that tells each object a writer made from
// every other: a random text, which the store copies with the object, so
// that a Rename whose copy's answer was lost can tell whether the copy
// happened (copied).
const writeKey = "sluice-write"

// abortTimeout bounds the abort of a failed multipart upload, which runs
// on a context of its own: the upload's may be what ended it.
const abortTimeout = 30 * time.Second

func newWriter(ctx context.Context, cfg *config, b *blob.Bucket, name, key string) (*writer, error) {
	ctx, cancel := context.WithCancel(ctx)
	w, err := b.NewWriter(ctx, key, &blob.WriterOptions{
		BufferSize:     cfg.partSize,
		MaxConcurrency: cfg.uploadStreams,
		// Records are binary; sniffing the first bytes would only guess.
		ContentType: "application/octet-stream",
		Metadata:    map[string]string{writeKey: rand.Text()},
		BeforeWrite: func(as func(any) bool) error {
			abortOnItsOwn(as, b, cfg)
			return nil
		},
	})
	if err != nil {
		cancel()
		return nil, fmt.Errorf("blobfs: create %s: %w", name, err)
	}
	return &writer{w: w, name: name, cancel: cancel}, nil
}

func (w *writer) Write(p []byte) (int, error) {
	n, err := w.w.Write(p)
	if err != nil {
		return n, fmt.Errorf("blobfs: write %s: %w", w.name, err)
	}
	return n, nil
}

// Close completes the upload; the object exists only if it returns nil.
func (w *writer) Close() error {
	defer w.cancel()
	if err := w.w.Close(); err != nil {
		return fmt.Errorf("blobfs: close %s: %w", w.name, err)
	}
	return nil
}

// Abort abandons the upload: no object is made (or replaced), what is
// buffered is not sent, and a multipart upload under way is aborted
// (abortOnItsOwn), its parts not left stored. gocloud's writer aborts
// when its context ends before Close. storage.Pending's Abort calls it.
func (w *writer) Abort() error {
	w.cancel()
	w.w.Close() // the cancellation's error: the abort is what was asked
	return nil
}

// abortOnItsOwn makes an S3 upload abort its multipart upload when it
// fails, its context cancelled included. The transfer manager aborts with
// the upload's own context unless given a FailTimeout, which gocloud does
// not set: a cancelled write (a killed convert, a failed shard of a
// sharded writer) then left its parts stored, and billed, in the bucket
// until a lifecycle rule removed them. The manager's options cannot be
// changed once made, so the writer's manager is replaced by one made as
// gocloud makes it, with a FailTimeout, on the bucket's upload client
// (uploadClient). Other stores have no parts to leave, or drop them
// themselves.
func abortOnItsOwn(as func(any) bool, b *blob.Bucket, cfg *config) {
	var tm *transfermanager.Client
	var client *s3.Client
	if !as(&tm) || !b.As(&client) {
		return
	}
	client = cfg.uploadClient(client)
	*tm = *transfermanager.New(client, func(o *transfermanager.Options) {
		o.RequestChecksumCalculation = client.Options().RequestChecksumCalculation
		if cfg.partSize != 0 {
			o.PartSizeBytes = int64(cfg.partSize)
		}
		if cfg.uploadStreams != 0 {
			o.Concurrency = cfg.uploadStreams
		}
		o.FailTimeout = abortTimeout
	})
}

// uploadClient returns the client a bucket's uploads use: client, whose
// answers StallTimeout bounds once a request is sent, as a read's are; a
// store that took an upload's request and never answered made the upload
// wait until its context ended (audit 61). A slow upload that keeps
// sending is never cut. There is one such client a bucket's client, so
// that its uploads share connections.
func (cfg *config) uploadClient(client *s3.Client) *s3.Client {
	if cfg.stallTimeout <= 0 {
		return client
	}
	if c, ok := cfg.uploadClients.Load(client); ok {
		return c.(*s3.Client)
	}
	hc, ok := headerTimeout(client.Options().HTTPClient, cfg.stallTimeout)
	if !ok {
		return client
	}
	c, _ := cfg.uploadClients.LoadOrStore(client, s3.New(client.Options(), func(o *s3.Options) { o.HTTPClient = hc }))
	return c.(*s3.Client)
}

// headerTimeout returns a copy of hc that waits at most d for an answer's
// headers once a request is sent, if hc is a client of the kinds the SDK
// and programs make (another is left as it is).
func headerTimeout(hc s3.HTTPClient, d time.Duration) (s3.HTTPClient, bool) {
	switch c := hc.(type) {
	case *awshttp.BuildableClient:
		return c.WithTransportOptions(func(tr *http.Transport) { tr.ResponseHeaderTimeout = d }), true
	case *http.Client:
		rt := c.Transport
		if rt == nil {
			rt = http.DefaultTransport
		}
		tr, ok := rt.(*http.Transport)
		if !ok {
			return nil, false
		}
		tr = tr.Clone()
		tr.ResponseHeaderTimeout = d
		cc := *c
		cc.Transport = tr
		return &cc, true
	}
	return nil, false
}
