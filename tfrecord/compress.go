package tfrecord

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zlib"
	"github.com/klauspost/compress/zstd"
)

// zstdMaxWindow bounds the history a zstd stream may make the decoder
// allocate: the decoder sizes its window from the frame header before any
// data arrives, so a 12-byte hostile header could otherwise cost hundreds
// of megabytes. 8 MiB is the largest window zstd's own levels 1-19 use
// (and this package's writer uses less), so real files are unaffected.
const zstdMaxWindow = 8 << 20

// zstdDecoders keeps released zstd decoders for the next stream: each
// holds a window of up to zstdMaxWindow, which a reader of many small
// files would otherwise allocate for every one. gzipReaders and
// zlibReaders do the same for the other two, whose 40 KB of window and
// tables took longer to set up than ten 1 KB records to read
// (BenchmarkSmallStreams).
var zstdDecoders, gzipReaders, zlibReaders sync.Pool

// noInput is what a released decompressor is reset to, so that it no
// longer refers to the stream it read.
var noInput = bytes.NewReader(nil)

// NewDecompressor returns a reader of the stream r compressed as c, with
// the bounds this package's Reader decompresses with (a zstd window of at
// most 8 MiB), for data kept beside TFRecord files in the same
// compressions, such as text. Its Close releases the decompressor, not r,
// for the next stream to use: nothing reads it after.
// None returns r as it is.
func NewDecompressor(c Compression, r io.Reader) (io.ReadCloser, error) {
	if !c.valid() {
		return nil, fmt.Errorf("tfrecord: %w %v", ErrUnknownCompression, c)
	}
	d, release, err := newDecompressor(c, r)
	if err != nil {
		return nil, err
	}
	return &releaser{d, release}, nil
}

// A releaser is what NewDecompressor returns: its Close hands the
// decompressor back, for another stream, and so must be its last use.
type releaser struct {
	r       io.Reader
	release func() // nil once closed
}

var errDecompressorClosed = errors.New("tfrecord: read after the decompressor's Close")

func (d *releaser) Read(p []byte) (int, error) {
	if d.release == nil {
		return 0, errDecompressorClosed
	}
	return d.r.Read(p)
}

func (d *releaser) Close() error {
	if d.release != nil {
		d.release()
		d.release = nil
	}
	return nil
}

// newDecompressor returns a reader of the decompressed stream in r and a
// function that releases it.
func newDecompressor(c Compression, r io.Reader) (io.Reader, func(), error) {
	switch c {
	case Zlib:
		// Read byte by byte (as zlib reads a ByteReader), so that what
		// follows the stream's end is left to look at.
		br, ok := r.(io.ByteReader)
		if !ok {
			b := bufio.NewReader(r)
			r, br = b, b
		}
		zr, _ := zlibReaders.Get().(io.ReadCloser)
		if zr == nil {
			var err error
			if zr, err = zlib.NewReader(r); err != nil {
				return nil, nil, err
			}
		} else if err := zr.(zlib.Resetter).Reset(r, nil); err != nil {
			zlibReaders.Put(zr)
			return nil, nil, err
		}
		return &zlibEnd{zr, br}, func() {
			zr.Close()
			zr.(zlib.Resetter).Reset(noInput, nil) // lets go of r; fails, as it may
			zlibReaders.Put(zr)
		}, nil
	case Gzip:
		zr, _ := gzipReaders.Get().(*gzip.Reader)
		if zr == nil {
			var err error
			if zr, err = gzip.NewReader(r); err != nil {
				return nil, nil, err
			}
		} else if err := zr.Reset(r); err != nil {
			gzipReaders.Put(zr)
			return nil, nil, err
		}
		return zr, func() {
			zr.Close()
			zr.Reset(noInput) // lets go of r; fails, as it may
			gzipReaders.Put(zr)
		}, nil
	case Zstd:
		zr, _ := zstdDecoders.Get().(*zstd.Decoder)
		if zr == nil {
			var err error
			zr, err = zstd.NewReader(r,
				zstd.WithDecoderConcurrency(1), // decode in the caller's goroutine
				zstd.WithDecoderLowmem(true),
				zstd.WithDecoderMaxWindow(zstdMaxWindow),
				zstd.WithDecoderMaxMemory(zstdMaxWindow))
			if err != nil {
				return nil, nil, err
			}
		} else if err := zr.Reset(r); err != nil {
			zr.Close()
			return nil, nil, err
		}
		return zr, func() {
			zr.Reset(nil) // lets go of r
			zstdDecoders.Put(zr)
		}, nil
	}
	return r, func() {}, nil
}

// NewCompressor returns a writer that compresses what it is given into w
// as c at its default level, with the headers this package's Writer
// writes, for data kept beside TFRecord files in the same compressions,
// such as text. Close ends the stream, not w. None returns w as it is,
// with a Close that does nothing.
func NewCompressor(c Compression, w io.Writer) (io.WriteCloser, error) {
	switch {
	case !c.valid():
		return nil, fmt.Errorf("tfrecord: %w %v", ErrUnknownCompression, c)
	case c == None:
		return nopCloser{w}, nil
	}
	return newCompressor(c, w, -1, false)
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// newCompressor returns a writer that compresses into w. level < 0 or
// !levelSet selects the default.
func newCompressor(c Compression, w io.Writer, level int, levelSet bool) (compressor, error) {
	switch c {
	case Zlib:
		if !levelSet {
			level = zlib.DefaultCompression
		}
		return zlib.NewWriterLevel(w, level)
	case Gzip:
		if !levelSet {
			level = gzip.DefaultCompression
		}
		zw, err := gzip.NewWriterLevel(w, level)
		if err != nil {
			return nil, err
		}
		// zlib's header, as TensorFlow writes it: mtime 0, OS 3 (Unix).
		// (This gzip writes a zero ModTime as its Unix value truncated to
		// 32 bits, not as 0.)
		zw.ModTime = time.Unix(0, 0)
		zw.OS = 3
		return zw, nil
	case Zstd:
		eopts := []zstd.EOption{zstd.WithEncoderConcurrency(1)}
		if levelSet {
			eopts = append(eopts, zstd.WithEncoderLevel(zstd.EncoderLevel(level)))
		}
		return zstd.NewWriter(w, eopts...)
	}
	return nil, nil
}

type compressor interface {
	io.WriteCloser
	Flush() error
}

// ErrTrailingData is wrapped by the error of a ZLIB stream followed by
// more bytes: a second stream appended to the file, or junk. zlib has no
// members, as GZIP has, so the bytes after its end are no part of it, and
// ending there quietly would drop whatever they hold (TensorFlow ignores
// them; audit 49).
var ErrTrailingData = errors.New("data after the end of the compressed stream")

// zlibEnd is a ZLIB stream that ends with an error wrapping
// ErrTrailingData, not io.EOF, when bytes follow it.
type zlibEnd struct {
	io.Reader
	after io.ByteReader // what the stream was read from
}

func (z *zlibEnd) Read(p []byte) (int, error) {
	n, err := z.Reader.Read(p)
	if err == io.EOF {
		if _, berr := z.after.ReadByte(); berr == nil {
			err = fmt.Errorf("zlib: %w", ErrTrailingData)
		}
	}
	return n, err
}
