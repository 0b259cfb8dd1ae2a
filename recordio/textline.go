package recordio

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/sluiceml/sluice/dataerr"
	"github.com/sluiceml/sluice/internal/recordhook"
	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tfrecord"
	"google.golang.org/protobuf/encoding/protowire"
)

// NewTextLineReader returns a reader of the lines of the text files named
// in q. Keys are "file:line", counting from 1 and including skipped header
// lines. Values are lines without "\n" or "\r\n"; a last line without a
// newline is still a record, and a file ending in a newline has no empty
// last record. SkipHeaderLines(n) skips n lines of every file; a negative
// n is an error wrapping [queue.ErrInvalidArgument].
//
// Compression(c) reads files compressed as c (ZLIB, GZIP or ZSTD), as
// tf.data.TextLineDataset's compression_type does (TensorFlow's
// TextLineReader reads only plain text). MaxRecordSize(n) fails a read at
// a line longer than n bytes with an error wrapping ErrLineTooLong; the
// default, tfrecord.DefaultMaxRecordSize, bounds what a compressed
// stream's endless line can cost.
func NewTextLineReader(q queue.Queue, opts ...Option) (*Reader, error) {
	return Open(textLineKind, q, opts...)
}

func init() {
	recordhook.NewTextLineFormat = func(skipHeaderLines int) recordhook.Format {
		return &textLineFormat{skipHeaderLines: skipHeaderLines, detect: true, noKeys: true, maxLine: maxLine(tfrecord.DefaultMaxRecordSize)}
	}
}

func newTextLineFormat(s *settings) (Format, error) {
	if err := nonNegative("skip_header_lines", s.skipHeaderLines); err != nil {
		return nil, err
	}
	switch s.compression {
	case tfrecord.None, tfrecord.Zlib, tfrecord.Gzip, tfrecord.Zstd:
	default:
		return nil, fmt.Errorf("recordio: unknown compression %v: %w", s.compression, queue.ErrInvalidArgument)
	}
	return &textLineFormat{skipHeaderLines: s.skipHeaderLines, compression: s.compression, maxLine: maxLine(s.maxRecord)}, nil
}

// maxLine returns the line limit for a MaxRecordSize of n, 0 meaning the
// default.
func maxLine(n int64) int {
	if n <= 0 {
		n = tfrecord.DefaultMaxRecordSize
	}
	return int(min(n, math.MaxInt-2))
}

// textLineFormat reads text files line by line. It is the Format behind
// NewTextLineReader.
type textLineFormat struct {
	skipHeaderLines int
	compression     tfrecord.Compression
	// detect makes the format decompress a file whose first bytes are a
	// GZIP or ZSTD header, whatever compression says. ZLIB is not looked
	// for: its two-byte header ("x^", "x\x9c", ...) can begin a line.
	detect  bool
	maxLine int // the longest line accepted
	// noKeys makes Read return an empty key, saving an allocation per
	// line, for a caller that names a line only when something is wrong
	// with it: it takes the line's position from Work and Offset.
	noKeys  bool
	omitKey bool // the Read in progress is a Reader.ReadValue

	file   *unitFile
	raw    *bufio.Reader // the compressed file, when it is
	dec    io.ReadCloser // its decompressor, or nil
	br     *bufio.Reader // the text
	work   string
	line   int64   // lines consumed, including skipped ones
	off    int64   // bytes of text consumed (decompressed, if compressed)
	long   []byte  // a line longer than the buffer, assembled
	prefix [4]byte // a file's first bytes, for detect (a field: ReadAt's argument escapes)
	key    []byte
	// failed is the error that stopped the unit, returned again by every
	// Read until the unit changes: a read that failed has consumed an
	// unknown part of its line, so reading on would return the rest of
	// it as a line, under the wrong number.
	failed error
}

// LineSplitter splits r into lines as a TextLine reader does, for use without
// a queue: each call to Next returns the next line without its "\n" or
// "\r\n", and io.EOF after the last.
type LineSplitter struct {
	br   *bufio.Reader
	long []byte
	n    int64
	max  int
}

// NewLineSplitter returns a LineSplitter over r.
func NewLineSplitter(r io.Reader) *LineSplitter {
	return &LineSplitter{br: bufio.NewReaderSize(r, 64<<10)}
}

// SetMaxLine makes Next fail at a line longer than n bytes (not counting
// its terminator) with an error wrapping ErrLineTooLong, having read no
// more of it than n bytes and a buffer: a line of a decompressed bomb
// then costs no more memory than that. n <= 0, the default, sets no
// limit.
func (s *LineSplitter) SetMaxLine(n int) { s.max = n }

// Next returns the next line, valid until the next call.
func (s *LineSplitter) Next() ([]byte, error) {
	line, n, err := readLine(s.br, &s.long, s.max)
	s.n += n
	if errors.Is(err, ErrLineTooLong) {
		err = fmt.Errorf("%w: more than %d bytes", ErrLineTooLong, s.max)
	}
	return line, err
}

// readLine reads one line, returning it without its terminator, and the
// number of bytes consumed. As TensorFlow's InputBuffer::ReadLine, it
// strips one '\r' before the '\n' or the end of input, and returns io.EOF
// when nothing but that '\r' remains: a file's last line is a record only
// if it has something besides "\r". A line longer than max > 0 is
// ErrLineTooLong, found having read at most max bytes and a buffer of it.
func readLine(br *bufio.Reader, long *[]byte, max int) ([]byte, int64, error) {
	line, err := br.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		*long = appendCapped((*long)[:0], line, max)
		for errors.Is(err, bufio.ErrBufferFull) {
			if max > 0 && len(*long) > max+len("\r\n") {
				return nil, int64(len(*long)), ErrLineTooLong
			}
			line, err = br.ReadSlice('\n')
			*long = appendCapped(*long, line, max)
		}
		line = *long
	}
	n := int64(len(line))
	if err != nil && err != io.EOF {
		return nil, n, err
	}
	if err == nil {
		line = line[:len(line)-1]
	}
	if len(line) > 0 && line[len(line)-1] == '\r' {
		line = line[:len(line)-1]
	}
	if err == io.EOF && len(line) == 0 {
		return nil, n, io.EOF
	}
	if max > 0 && len(line) > max {
		return nil, n, ErrLineTooLong
	}
	return line, n, nil
}

// appendCapped appends p to b as append does, but, when max > 0, grows b
// to no more than a line of max bytes can take (its terminator and a read
// past it), and to that at once from half of it: append's doubling made
// a line refused at max allocate four times max, its last buffer twice
// max and the buffers before it as much again (audits 49 and 51); this
// allocates at most twice.
func appendCapped(b, p []byte, max int) []byte {
	if need := len(b) + len(p); max > 0 && need > cap(b) {
		limit := max + len("\r\n") + 1 + len(p)
		c := 2*cap(b) + len(p)
		if c > limit/2 {
			// Straight to the most it can take, so that the buffers
			// before it take no more than it does.
			c = limit
		}
		nb := make([]byte, len(b), c)
		copy(nb, b)
		b = nb
	}
	return append(b, p...)
}

func (f *textLineFormat) open(ctx context.Context, work string) error {
	f.failed = nil
	file, err := openUnit(ctx, work)
	if err != nil {
		return err
	}
	c := f.compression
	var text io.Reader = file
	if f.detect {
		n, src, err := file.peek(ctx, f.prefix[:])
		if err != nil {
			file.Close()
			return &dataerr.Error{File: work, Offset: 0, Record: -1, Err: fmt.Errorf("reading the first bytes to detect the compression: %w", err)}
		}
		if d := tfrecord.DetectCompression(f.prefix[:n]); d == tfrecord.Gzip || d == tfrecord.Zstd {
			c = d
		}
		text = src
	}
	f.dec = nil
	if c != tfrecord.None && file.Size() != 0 {
		// An empty file is an empty stream, as TensorFlow's
		// ZlibInputStream reads it.
		if f.raw == nil {
			f.raw = bufio.NewReaderSize(text, 64<<10)
		} else {
			f.raw.Reset(text)
		}
		stop := file.watch(ctx) // a GZIP header is read here
		dec, err := decompress(c, f.raw, work)
		stop()
		if err != nil {
			file.Close()
			return err
		}
		text = strings.NewReader("") // empty; not f.raw, which a buffered reader of it could be
		if dec != nil {
			text, f.dec = dec, dec
		}
	}
	if f.br == nil {
		f.br = bufio.NewReaderSize(text, 64<<10)
	} else {
		f.br.Reset(text)
	}
	f.file, f.work, f.line, f.off = file, work, 0, 0
	return nil
}

// lineError describes err, met reading the line after the last one
// counted, as a failure of that line: its file, number and offset.
func (f *textLineFormat) lineError(err error, max int) error {
	if errors.Is(err, ErrLineTooLong) {
		err = fmt.Errorf("%w: more than %d bytes", ErrLineTooLong, max)
	} else if f.dec != nil {
		err = fmt.Errorf("decompressing: %w", err)
	}
	return &dataerr.Error{File: f.work, Line: f.line + 1, Offset: f.off, Record: -1, Err: err}
}

// OnWorkStarted opens the file and skips its header lines; a file shorter
// than its header simply has no records.
func (f *textLineFormat) OnWorkStarted(ctx context.Context, work string) error {
	if err := f.open(ctx, work); err != nil {
		return err
	}
	defer f.file.watch(ctx)()
	for range f.skipHeaderLines {
		n, err := skipLine(f.br)
		if err == io.EOF {
			break
		}
		if err != nil {
			err = f.lineError(err, 0)
			f.Reset()
			return err
		}
		f.line++
		f.off += n
	}
	return nil
}

// skipLine reads past the next line and returns the bytes it took, its
// terminator included, or io.EOF at the end of the input. A header line
// is not a record, so no length limit applies to it, as none applies to
// TensorFlow's SkipLine; like SkipLine it keeps none of the line, so that
// a header of gigabytes, or a compressed stream with no newline in it,
// costs no memory (it cost the line's size twice over, audit 108).
func skipLine(br *bufio.Reader) (int64, error) {
	var n int64
	for {
		part, err := br.ReadSlice('\n')
		n += int64(len(part))
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err == io.EOF && n > 0 {
			// The last line, without a terminator: skipped, and the next
			// read ends the input.
			err = nil
		}
		return n, err
	}
}

// Read reads the next line.
func (f *textLineFormat) Read(ctx context.Context) (string, []byte, bool, bool, error) {
	if f.failed != nil {
		return "", nil, false, false, f.failed
	}
	line, n, err := readLine(f.br, &f.long, f.maxLine)
	if err == io.EOF {
		return "", nil, false, true, nil
	}
	if err != nil {
		f.failed = f.lineError(err, f.maxLine)
		return "", nil, false, false, f.failed
	}
	f.line++
	f.off += n
	if f.noKeys || f.omitKey {
		return "", line, true, false, nil
	}
	f.key = strconv.AppendInt(append(append(f.key[:0], f.work...), ':'), f.line, 10)
	return string(f.key), line, true, false, nil
}

func (f *textLineFormat) omitKeys(omit bool) { f.omitKey = omit }

// Work returns the name of the file the last line read came from.
func (f *textLineFormat) Work() string { return f.work }

// Offset returns the number of the last line read in its file, counting
// from 1 and including skipped header lines: what follows the colon of the
// line's key.
func (f *textLineFormat) Offset() int64 { return f.line }

// OnWorkFinished closes the file.
func (f *textLineFormat) OnWorkFinished() error {
	if f.dec != nil {
		f.dec.Close()
		f.dec = nil
	}
	err := f.file.Close()
	f.file = nil
	return err
}

// Reset closes any open file.
func (f *textLineFormat) Reset() error {
	if f.file != nil {
		f.OnWorkFinished()
	}
	return nil
}

// Position returns the line number and byte offset of the next line.
func (f *textLineFormat) Position() ([]byte, error) {
	b := protowire.AppendVarint(nil, uint64(f.line))
	return protowire.AppendVarint(b, uint64(f.off)), nil
}

// Seek opens work at a position Position returned.
func (f *textLineFormat) Seek(ctx context.Context, work string, pos []byte) error {
	line, n := protowire.ConsumeVarint(pos)
	if n < 0 {
		return fmt.Errorf("%w: bad text line position %x", ErrState, pos)
	}
	off, m := protowire.ConsumeVarint(pos[n:])
	if m < 0 || int64(off) < 0 || int64(line) < 0 || int64(off) < int64(line) {
		return fmt.Errorf("%w: bad text line position %x", ErrState, pos)
	}
	if err := f.open(ctx, work); err != nil {
		return err
	}
	// A saved offset follows a line's '\n', or is the end of the text: one
	// inside a line (a checkpoint made by hand, or of another file) would
	// make its tail a line of its own (audit 49).
	var before lastByte
	if f.dec != nil {
		// A compressed stream is decompressed up to the offset.
		defer f.file.watch(ctx)()
		n, err := io.CopyN(&before, f.br, int64(off))
		if err != nil {
			f.Reset()
			if err == io.EOF {
				return fmt.Errorf("%w: %s decompresses to %d bytes, fewer than the saved offset %d", ErrState, work, n, off)
			}
			return &dataerr.Error{File: work, Offset: n, Record: -1, Err: fmt.Errorf("decompressing: %w", err)}
		}
	} else {
		if size := f.file.Size(); int64(off) > size {
			f.Reset()
			return fmt.Errorf("%w: %s has %d bytes, fewer than the saved offset %d", ErrState, work, size, off)
		}
		if off > 0 {
			var b [1]byte
			// A ReaderAt may return io.EOF with a whole read that ends at
			// the end of its data: a position after a file's last line
			// was refused (audit 101).
			if n, err := f.file.ReadAt(b[:], int64(off)-1); n < 1 {
				if err == nil {
					err = io.ErrUnexpectedEOF
				}
				f.Reset()
				return fmt.Errorf("%s: reading the byte before the saved offset %d: %w", work, off, err)
			}
			before.Write(b[:])
		}
		f.br.Reset(io.NewSectionReader(f.file, int64(off), f.file.Size()-int64(off)))
	}
	if off > 0 && before.b != '\n' {
		switch _, err := f.br.Peek(1); {
		case err == nil:
			f.Reset()
			return fmt.Errorf("%w: %s: the saved offset %d is inside a line, not at the start of one", ErrState, work, off)
		case err != io.EOF:
			f.Reset()
			return &dataerr.Error{File: work, Offset: int64(off), Record: -1, Err: err}
		}
	}
	f.line, f.off = int64(line), int64(off)
	return nil
}

// lastByte is an io.Writer that keeps the last byte written to it.
type lastByte struct{ b byte }

func (l *lastByte) Write(p []byte) (int, error) {
	if len(p) > 0 {
		l.b = p[len(p)-1]
	}
	return len(p), nil
}

// unit returns the file of the unit in progress (see unitWatcher).
func (f *textLineFormat) unit() *unitFile { return f.file }

// Watch makes the end of ctx end the open file's reads in flight
// (recordhook.Format).
func (f *textLineFormat) Watch(ctx context.Context) (stop func() bool) { return f.file.watch(ctx) }

// PositionOf reports that a line's number alone does not locate it: its
// byte offset is known only to a reader that has read up to it.
func (f *textLineFormat) PositionOf(int64) ([]byte, bool) { return nil, false }
