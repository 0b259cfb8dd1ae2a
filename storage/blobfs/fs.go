package blobfs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"gocloud.dev/blob"

	"github.com/sluiceml/sluice/storage"
)

// FS serves object-store URLs of the form scheme://bucket/key through
// gocloud.dev/blob. It implements storage.FS and is safe for concurrent
// use. The zero FS is not usable; call New.
type FS struct {
	cfg config

	mu      sync.Mutex
	buckets map[string]*blob.Bucket // by bucket URL
	closed  bool
}

var _ storage.FS = (*FS)(nil)

// New returns an FS. Without Opener it opens buckets with gocloud's
// default URL mux, which reads credentials from the usual environment.
func New(opts ...Option) *FS {
	return &FS{cfg: newConfig(opts), buckets: map[string]*blob.Bucket{}}
}

// openDefault opens a bucket through blob.DefaultURLMux, adding the query
// BucketParams set for its scheme.
func (c *config) openDefault(ctx context.Context, bucketURL string) (*blob.Bucket, error) {
	if q := c.params[storage.Scheme(bucketURL)]; q != "" {
		bucketURL += "?" + q
	}
	return blob.OpenBucket(ctx, bucketURL)
}

// ErrClosed reports use of a closed FS or File.
var ErrClosed = errors.New("blobfs: closed")

// location is a parsed object name.
type location struct {
	bucketURL string // "s3://bucket", scheme lower-cased
	prefix    string // the name up to and including the key's leading "/", as written
	key       string
}

// parse splits name, "scheme://bucket/key", into bucket and key.
func parse(name string) (location, error) {
	scheme := storage.Scheme(name)
	if scheme == "" {
		return location{}, fmt.Errorf("blobfs: %s: not a URL of the form scheme://bucket/key", name)
	}
	rest := name[len(scheme)+len("://"):]
	bucket, key, _ := strings.Cut(rest, "/")
	if bucket == "" {
		return location{}, fmt.Errorf("blobfs: %s: no bucket", name)
	}
	return location{
		bucketURL: scheme + "://" + bucket,
		prefix:    name[:len(name)-len(key)],
		key:       key,
	}, nil
}

// bucket returns the bucket for loc, opening it on first use. Buckets are
// kept because opening one builds a client (and, for mem://, a new empty
// store), and connections are reused through it.
func (fsys *FS) bucket(ctx context.Context, loc location) (*blob.Bucket, error) {
	fsys.mu.Lock()
	defer fsys.mu.Unlock()
	if fsys.closed {
		return nil, ErrClosed
	}
	if b, ok := fsys.buckets[loc.bucketURL]; ok {
		return b, nil
	}
	b, err := fsys.cfg.open(ctx, loc.bucketURL)
	if err != nil {
		return nil, fmt.Errorf("blobfs: open bucket %s: %w", loc.bucketURL, err)
	}
	fsys.buckets[loc.bucketURL] = b
	return b, nil
}

// Open opens the object name for reading. The context governs the
// file's reads, readahead included: cancelling it makes them fail, so it
// should live as long as the file.
func (fsys *FS) Open(ctx context.Context, name string) (storage.File, error) {
	loc, err := parse(name)
	if err != nil {
		return nil, err
	}
	if loc.key == "" {
		return nil, fmt.Errorf("blobfs: open %s: no object key", name)
	}
	b, err := fsys.bucket(ctx, loc)
	if err != nil {
		return nil, err
	}
	return openFile(ctx, &fsys.cfg, b, name, loc.key)
}

// Create creates or replaces the object name. Nothing is visible until
// Close returns nil; large objects are uploaded in parts as they are
// written. Cancelling ctx before Close abandons the upload.
func (fsys *FS) Create(ctx context.Context, name string) (io.WriteCloser, error) {
	loc, err := parse(name)
	if err != nil {
		return nil, err
	}
	if loc.key == "" {
		return nil, fmt.Errorf("blobfs: create %s: no object key", name)
	}
	b, err := fsys.bucket(ctx, loc)
	if err != nil {
		return nil, err
	}
	return newWriter(ctx, &fsys.cfg, b, name, loc.key)
}

// Close closes the buckets the FS opened. Files already open keep
// working until their next request, which then fails.
func (fsys *FS) Close() error {
	fsys.mu.Lock()
	defer fsys.mu.Unlock()
	fsys.closed = true
	var errs []error
	for u, b := range fsys.buckets {
		if err := b.Close(); err != nil {
			errs = append(errs, fmt.Errorf("blobfs: close bucket %s: %w", u, err))
		}
		delete(fsys.buckets, u)
	}
	return errors.Join(errs...)
}
