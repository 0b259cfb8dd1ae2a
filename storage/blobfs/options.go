package blobfs

import (
	"context"
	"os"
	"strings"
	"sync"
	"time"

	"gocloud.dev/blob"
)

// Defaults for the options. A block is the unit of a ranged read: a file
// being read keeps at most Readahead+2 blocks in memory, so the defaults
// hold about 40 MiB per open file.
const (
	DefaultBlockSize   = 8 << 20
	DefaultReadahead   = 3
	DefaultConcurrency = 4
	DefaultRetries     = 5
	DefaultMinBackoff  = 100 * time.Millisecond
	DefaultMaxBackoff  = 5 * time.Second
	// DefaultStallTimeout is long enough for a busy store's first byte
	// and short enough that a dead connection is noticed well before a
	// person would give up on the command.
	DefaultStallTimeout = 30 * time.Second
)

// An OpenBucketFunc opens the bucket named by a URL of the form
// "scheme://bucket" (no key, no query). FS calls it once per bucket and
// keeps the result until Close.
type OpenBucketFunc func(ctx context.Context, bucketURL string) (*blob.Bucket, error)

// An Option changes how an FS reads and writes.
type Option func(*config)

type config struct {
	open         OpenBucketFunc
	params       map[string]string // scheme → query added by the default opener
	blockSize    int
	readahead    int
	concurrency  int
	retries      int
	minBackoff   time.Duration
	maxBackoff   time.Duration
	stallTimeout time.Duration // 0: none
	// uploadClients maps a bucket's S3 client to the one its uploads use,
	// whose answers StallTimeout bounds (abortOnItsOwn).
	uploadClients *sync.Map
	partSize      int
	uploadStreams int
	blocks        *blockPool // buffers of blockSize bytes, shared by the FS's files
}

func newConfig(opts []Option) config {
	c := config{
		blockSize:     DefaultBlockSize,
		readahead:     DefaultReadahead,
		concurrency:   DefaultConcurrency,
		retries:       DefaultRetries,
		minBackoff:    DefaultMinBackoff,
		maxBackoff:    DefaultMaxBackoff,
		stallTimeout:  DefaultStallTimeout,
		uploadClients: new(sync.Map),
	}
	for _, o := range opts {
		o(&c)
	}
	if c.open == nil {
		c.open = c.openDefault
	}
	c.blocks = &blockPool{size: c.blockSize}
	return c
}

// Opener makes the FS open buckets with f instead of gocloud's
// default URL mux. Use it to pass a configured client (an S3-compatible
// endpoint, explicit credentials, a custom HTTP transport).
func Opener(f OpenBucketFunc) Option { return func(c *config) { c.open = f } }

// BucketParams adds a URL query to every bucket of scheme that the
// default opener opens, for example
//
//	BucketParams("s3", "endpoint=http://localhost:9000&use_path_style=true&region=us-east-1")
//
// for an S3-compatible server. The parameters are gocloud's, listed in
// each driver's URLOpener documentation.
func BucketParams(scheme, query string) Option {
	return func(c *config) {
		if c.params == nil {
			c.params = map[string]string{}
		}
		c.params[scheme] = query
	}
}

// EnvParams adds, for each of DefaultSchemes, the URL query that the
// environment variable SLUICE_<SCHEME>_PARAMS holds (SLUICE_S3_PARAMS,
// SLUICE_GS_PARAMS, SLUICE_AZBLOB_PARAMS), as BucketParams does. It is how
// the sluice commands are pointed at an S3-compatible server, whose path-
// style addressing no AWS environment variable sets:
//
//	SLUICE_S3_PARAMS='endpoint=http://localhost:9000&use_path_style=true'
//
// A BucketParams given after EnvParams replaces its query for that scheme.
func EnvParams() Option {
	return func(c *config) {
		for _, scheme := range DefaultSchemes {
			if q := os.Getenv("SLUICE_" + strings.ToUpper(scheme) + "_PARAMS"); q != "" {
				BucketParams(scheme, q)(c)
			}
		}
	}
}

// BlockSize sets the size of one ranged read (default 8 MiB). Larger
// blocks mean fewer requests; smaller ones less memory and a shorter wait
// for the first byte.
func BlockSize(n int) Option {
	return func(c *config) {
		if n > 0 {
			c.blockSize = n
		}
	}
}

// Readahead sets how many blocks past the one being read are fetched
// ahead of a sequential reader (default 3; 0 turns readahead off).
func Readahead(blocks int) Option {
	return func(c *config) {
		if blocks >= 0 {
			c.readahead = blocks
		}
	}
}

// Concurrency bounds the ranged reads in flight for one open file
// (default 4).
func Concurrency(n int) Option {
	return func(c *config) {
		if n > 0 {
			c.concurrency = n
		}
	}
}

// Retries sets how many times a failed request is retried after its
// first attempt when the failure is transient (default 5). Attempts that
// make progress — a body that breaks after some bytes — do not count.
func Retries(n int) Option {
	return func(c *config) {
		if n >= 0 {
			c.retries = n
		}
	}
}

// Backoff sets the wait before the first retry and its cap; the wait
// doubles on each retry, with jitter (defaults 100 ms and 5 s).
func Backoff(initial, max time.Duration) Option {
	return func(c *config) {
		if initial > 0 {
			c.minBackoff = initial
		}
		if max >= initial {
			c.maxBackoff = max
		}
	}
}

// StallTimeout sets how long a read request may go without receiving a
// byte — waiting for the answer, or between two pieces of its body —
// before it is abandoned as stalled (default 30 s). It bounds the time
// without progress, not the whole request, so a slow but moving
// transfer of a large block is never cut. A stalled request is retried
// like any transient failure; one that stalls on every retry fails with
// an error wrapping ErrStalled. 0 turns the timeout off: a read then
// waits as long as the context given to Open allows. On S3 it also bounds
// the wait for the answer to each of an upload's requests, once sent.
func StallTimeout(d time.Duration) Option {
	return func(c *config) {
		if d >= 0 {
			c.stallTimeout = d
		}
	}
}

// PartSize sets the part size of multipart uploads, and so the memory
// each writer buffers per part (0 keeps the driver's default: 8 MiB for
// S3, whose minimum is 5 MiB). The S3 driver sends an object smaller
// than 16 MiB in one request and larger ones in parts.
func PartSize(n int) Option { return func(c *config) { c.partSize = n } }

// UploadConcurrency sets how many parts a writer uploads at once (0 keeps
// the driver's default).
func UploadConcurrency(n int) Option { return func(c *config) { c.uploadStreams = n } }
