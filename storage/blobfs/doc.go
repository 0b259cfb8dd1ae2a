// Package blobfs serves object stores — Amazon S3 and S3-compatible
// stores, Google Cloud Storage, Azure Blob Storage, and an in-memory
// store — to package storage, through gocloud.dev/blob, so that every
// reader and command of sluice takes object URLs wherever it takes a
// file name.
//
// # Registering
//
// One call registers the default schemes ("s3", "gs", "azblob", "mem"):
//
//	fsys := blobfs.RegisterDefault()
//	defer fsys.Close()
//	f, err := storage.Open(ctx, "s3://my-bucket/train/part-00000.tfrecord")
//
// New and Register serve chosen schemes, or schemes with options of their
// own. Local paths and file:// URLs stay with storage.Local.
//
// # Names
//
// A name is scheme://bucket/key: s3://bucket/key, gs://bucket/key,
// azblob://container/key, mem://name/key. Keys are taken as written,
// with "/" an ordinary character as in the stores themselves. Glob
// patterns use path.Match syntax in the key ("s3://b/train/*.tfrecord");
// the bucket cannot be a pattern.
//
// # Credentials and endpoints
//
// Buckets are opened with gocloud's URL openers, which find credentials
// where each cloud's SDK does: for S3 the AWS environment variables,
// shared config and credentials files, and instance or container roles
// (AWS_REGION, AWS_PROFILE, AWS_ENDPOINT_URL_S3 included); for GCS
// Application Default Credentials (GOOGLE_APPLICATION_CREDENTIALS or the
// metadata server); for Azure AZURE_STORAGE_ACCOUNT with a key, SAS token
// or the default Azure credential chain. BucketParams adds gocloud URL
// parameters per scheme (an S3-compatible server needs
// "endpoint=...&use_path_style=true"), EnvParams takes those from
// SLUICE_S3_PARAMS (and SLUICE_GS_PARAMS, SLUICE_AZBLOB_PARAMS), as the
// sluice commands do, and Opener replaces the opener altogether, for a
// client configured in code.
//
// # Reading
//
// A File reads its object in blocks (BlockSize, 8 MiB by default), one
// ranged request each, so a reader of small records does not pay a
// request per record. While a file is read sequentially the next blocks
// (Readahead, 3) are fetched before they are asked for, at most
// Concurrency (4) requests at a time per file; ReadAt fetches the blocks
// it spans in parallel and may be called from many goroutines. A request
// that fails transiently — a 5xx answer, throttling, a reset connection,
// a body that ends early — is retried (Retries, 5) after an exponential
// backoff with jitter (Backoff, 100 ms doubling to 5 s), resuming at the
// first byte not yet received. A request that receives no byte for
// StallTimeout (30 s) — no answer, or headers and then silence — is
// cancelled and retried the same way, so a dead connection cannot hang
// a reader whose context has no deadline; the timeout counts time
// without progress, so a slow transfer that keeps moving is never cut.
// One that stalls on every retry fails with an error wrapping
// ErrStalled that names the object and the offset. Every block is
// checked for length: a read
// that cannot get all of its bytes fails with an error wrapping
// io.ErrUnexpectedEOF that names the object and the offset, never with a
// silently short file; a response longer than the range asked for (a
// store or proxy that ignored the Range header and sent the object from
// its start) fails at once with ErrLongBody, never passing those bytes
// off as the ones asked for.
//
// A File reads the version of its object that Open found. Open records
// the object's size, ETag (S3, Azure), generation (GCS) and modification
// time; every ranged read is conditional on that version where the store
// takes a condition (If-Match on S3 and Azure, a generation match on
// GCS), and every response's own ETag, generation or modification time
// is compared with it too, for stores that ignore the condition and for
// those that take none (mem, file). An object replaced while it is read,
// even by one of the same size, fails the read with an error wrapping
// ErrObjectChanged that names the object and the offset, never with
// blocks of two versions spliced together; it is not retried. The
// context given to Open governs all of the
// file's requests; Close stops the fetches in flight.
//
// A Glob lists a page of keys a request, each retried and cancelled on a
// stall as a read's requests are; a listing whose next page's token is
// one it gave before, which would page forever, fails with
// ErrListingLoops, and an S3 page that says more keys follow but gives no
// token to ask for them fails with ErrListingCut rather than end the
// listing short.
//
// # Writing
//
// Create returns a writer that uploads as it is written, in parts of
// PartSize (the driver's default, 8 MiB for S3, which sends objects under
// 16 MiB in one request) with UploadConcurrency parts at once; the object
// appears, whole, when Close returns nil. A failed or cancelled S3
// upload aborts its multipart upload, so its parts are not left stored.
// A writer that storage.Pending's Abort ends (a convert interrupted, a
// shard of a failed write) is abandoned the same way: what it buffered is
// not sent, and no object is made only to be deleted. On S3 an upload's
// request waits at most StallTimeout for the store's answer once it is
// sent (the SDK retries it then); a slow upload that keeps sending is
// never cut.
//
// Every object a writer makes carries metadata of its own, sluice-write:
// a random text, which a copy keeps.
//
// Rename (which storage.CreatePending's commit uses) copies inside the
// store and deletes the old object. A copy whose every answer is lost
// (the store made it, the connection dropped each reply) is recognised by
// that text, and counts as made: a rename that happened is not reported
// as one that did not. On S3 the copy is one CopyObject
// request, which S3 refuses for objects over 5 GiB: write shards smaller
// than that (TensorFlow's guides suggest 100–200 MB). A delete refused
// after the copy is reported with storage.ErrOldNameLeft, the new object
// being complete.
package blobfs
