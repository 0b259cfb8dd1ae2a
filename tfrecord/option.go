package tfrecord

// An Option configures a [Reader] or a [Writer]. A [Compression] value is an
// Option. Options that only concern reading are ignored by NewWriter.
type Option interface {
	apply(*config)
}

// DefaultMaxRecordSize is the largest record a Reader accepts unless
// MaxRecordSize says otherwise: 2 GiB, the protobuf message limit, so any
// tf.train.Example fits.
const DefaultMaxRecordSize = 1 << 31

type config struct {
	compression Compression
	name        string
	skipDataCRC bool
	maxRecord   uint64
	skip        bool  // skip corrupt records instead of failing
	skipLimit   int64 // with skip: fail on corrupt record number skipLimit+1; <0: unlimited
	startOffset int64
	level       int
	levelSet    bool
	bufSize     int
	inputSize   int64 // bytes of input; <0: unknown (measured by seeking, if possible)
}

func newConfig(opts []Option) config {
	c := config{maxRecord: DefaultMaxRecordSize, skipLimit: -1, bufSize: defaultBufSize, inputSize: -1}
	for _, o := range opts {
		if o != nil {
			o.apply(&c)
		}
	}
	return c
}

func (c Compression) apply(cfg *config) { cfg.compression = c }

type optionFunc func(*config)

func (f optionFunc) apply(c *config) { f(c) }

// Name sets the name, normally the file name, that errors report.
func Name(name string) Option {
	return optionFunc(func(c *config) { c.name = name })
}

// SkipDataCRC makes a Reader skip verifying each record's data CRC, for
// speed on trusted data. The length CRC is always verified: without it a
// damaged length would be trusted.
func SkipDataCRC() Option {
	return optionFunc(func(c *config) { c.skipDataCRC = true })
}

// MaxRecordSize sets the largest record length a Reader accepts; a longer
// length field is an error wrapping ErrTooLarge that names the length and
// the limit. The default is DefaultMaxRecordSize.
//
// A Reader never allocates for a length field ahead of the data: storage
// for a large record grows as its bytes arrive (or is checked against the
// input's size first, see InputSize). But an honest record of n bytes
// costs n bytes of memory, and a compressed stream can hold a gigabyte of
// zeros in a few kilobytes, so a program that reads untrusted files
// should set a limit that fits its records and its memory.
func MaxRecordSize(n int64) Option {
	return optionFunc(func(c *config) {
		if n < 0 {
			n = 0
		}
		c.maxRecord = uint64(n)
	})
}

// InputSize tells a Reader that the reader given to it holds n bytes from
// where it starts (the file's size, less any offset already skipped). For
// an uncompressed stream the Reader then reports a length field that
// claims more than the rest of the input as truncation at once, without
// reading or allocating, and allocates a large record's storage in one
// step. Without InputSize a Reader measures an io.Seeker by seeking to its
// end and back; for other readers the size is unknown. It is ignored for
// compressed streams.
func InputSize(n int64) Option {
	return optionFunc(func(c *config) { c.inputSize = max(n, 0) })
}

// SkipCorrupt makes a Reader skip corrupt records and count them (see
// [Reader.Stats]) instead of failing, as TensorFlow does by default.
//
// A record whose data CRC fails is skipped whole: its length was verified,
// so the next record starts right after it. A record whose length CRC
// fails has lost the framing; the Reader then scans forward byte by byte
// for the next position that holds a valid header (a length whose masked
// CRC matches and that is within MaxRecordSize) and resumes there; if it
// finds none before the end, the stream ends cleanly. Each damaged region
// counts as one skipped record.
//
// Truncation, an oversized length and an undecodable compressed stream
// still fail: nothing valid can follow them.
func SkipCorrupt() Option {
	return optionFunc(func(c *config) { c.skip, c.skipLimit = true, -1 })
}

// SkipCorruptUpTo is SkipCorrupt, except that the (n+1)th corrupt record
// fails the read as it would without skipping.
func SkipCorruptUpTo(n int64) Option {
	return optionFunc(func(c *config) {
		if n < 0 {
			n = 0
		}
		c.skip, c.skipLimit = true, n
	})
}

// StartOffset tells a Reader that its input begins at this offset of the
// uncompressed stream (for example after the caller seeked an uncompressed
// file to a saved position), so that offsets and errors report positions
// in the whole stream.
func StartOffset(off int64) Option {
	return optionFunc(func(c *config) { c.startOffset = off })
}

// CompressionLevel sets a Writer's compression level, in the compressor's
// own scale (compress/flate levels -1..9 for ZLIB and GZIP, zstd encoder
// levels 1..4 for ZSTD). The default is the compressors' default, which is
// what TensorFlow uses (zlib's Z_DEFAULT_COMPRESSION).
func CompressionLevel(level int) Option {
	return optionFunc(func(c *config) { c.level, c.levelSet = level, true })
}

// BufferSize sets the size of a Reader's read buffer (default 64 KiB).
// Records that fit in the buffer are returned without copying.
func BufferSize(n int) Option {
	return optionFunc(func(c *config) {
		if n < minBufSize {
			n = minBufSize
		}
		c.bufSize = n
	})
}
