package recordio

import (
	"bufio"
	"context"
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

// NewFixedLengthRecordReader returns a reader of files of fixed-size
// records, such as CIFAR-10's: after HeaderBytes, a record of recordBytes
// starts every HopBytes (default: recordBytes), and FooterBytes at the end
// are ignored. Keys are "file:index", counting from 0. As in TensorFlow, a
// last record that is cut short, or not followed by the footer, is
// dropped silently. Compression decompresses each file first; the sizes then
// count uncompressed bytes. A compressed stream that is itself cut short
// (its end or checksum missing) is an error naming the record it stopped
// in, where TensorFlow ends the file quietly.
//
// A file shorter than its header fails its read with an error wrapping
// ErrShortHeader; the next read goes on with the next file. Any other
// failed read (an I/O error, a broken compressed stream) is returned by
// every read until the unit changes, since the failed read leaves the
// stream at an unknown place within its record. Memory for a record is
// taken as its bytes arrive, so a recordBytes far beyond a file's size
// costs only the file's bytes; recordBytes and FooterBytes together may
// not exceed MaxRecordSize.
func NewFixedLengthRecordReader(q queue.Queue, recordBytes int, opts ...Option) (*Reader, error) {
	return Open(fixedLengthKind, q, append(opts[:len(opts):len(opts)], RecordBytes(recordBytes))...)
}

func newFixedLengthFormat(s *settings) (*fixedLengthFormat, error) {
	if err := nonNegative("record_bytes", s.recordBytes, "header_bytes", s.headerBytes,
		"footer_bytes", s.footerBytes, "hop_bytes", s.hopBytes); err != nil {
		return nil, err
	}
	if s.recordBytes == 0 {
		return nil, fmt.Errorf("recordio: record_bytes must be > 0: %w", queue.ErrInvalidArgument)
	}
	limit := s.maxRecord
	if limit <= 0 {
		limit = tfrecord.DefaultMaxRecordSize
	}
	if int64(s.recordBytes) > limit-int64(s.footerBytes) {
		return nil, fmt.Errorf("recordio: record_bytes %d and footer_bytes %d make a record longer than the %d-byte limit (MaxRecordSize): %w",
			s.recordBytes, s.footerBytes, limit, queue.ErrInvalidArgument)
	}
	switch s.compression {
	case tfrecord.None, tfrecord.Gzip, tfrecord.Zlib, tfrecord.Zstd:
	default:
		return nil, fmt.Errorf("recordio: FixedLengthRecordReader encoding must be none, ZLIB, GZIP or ZSTD, not %v: %w", s.compression, queue.ErrInvalidArgument)
	}
	return &fixedLengthFormat{recordBytes: s.recordBytes, headerBytes: s.headerBytes,
		footerBytes: s.footerBytes, hopBytes: s.hopBytes, compression: s.compression}, nil
}

func init() {
	recordhook.NewFixedLengthFormat = func(recordBytes, headerBytes, footerBytes int, c tfrecord.Compression) (recordhook.Format, error) {
		f, err := newFixedLengthFormat(&settings{recordBytes: recordBytes, headerBytes: headerBytes, footerBytes: footerBytes, compression: c})
		if err != nil {
			return nil, err
		}
		f.noKeys = true
		return f, nil
	}
}

// fixedLengthFormat reads fixed-length records. It is the Format behind
// NewFixedLengthRecordReader.
type fixedLengthFormat struct {
	recordBytes, headerBytes, footerBytes, hopBytes int
	compression                                     tfrecord.Compression
	// noKeys makes Read return an empty key, saving an allocation per
	// record; Work and Offset give the record's position instead.
	noKeys  bool
	omitKey bool // the Read in progress is a Reader.ReadValue

	file    *unitFile
	closer  io.Closer // the decompressor, if any
	src     *bufio.Reader
	work    string
	buf     []byte // look-ahead: record + footer
	have    int    // valid bytes in buf
	index   int64  // index of the next record
	resumed bool   // the stream is at a record's start: do not hop first
	key     []byte
	failed  error // the error that stopped the unit, until it changes
}

func (f *fixedLengthFormat) hop() int64 {
	if f.hopBytes == 0 {
		return int64(f.recordBytes)
	}
	return int64(f.hopBytes)
}

// open opens work positioned at record index: TensorFlow's algorithm
// reaches record i at HeaderBytes + i*hop. short reports that the stream
// ends before that position.
func (f *fixedLengthFormat) open(ctx context.Context, work string, index int64) (short bool, err error) {
	if index > (math.MaxInt64-int64(f.headerBytes))/f.hop() {
		return false, fmt.Errorf("%w: record index %d out of range", ErrState, index)
	}
	start := int64(f.headerBytes) + index*f.hop()
	f.failed = nil
	file, err := openUnit(ctx, work)
	if err != nil {
		return false, err
	}
	defer file.watch(ctx)() // the header and skipped records are read here
	var r io.Reader
	var closer io.Closer
	skip := start
	switch {
	case f.compression == tfrecord.None && file.Size() < 0:
		// A stream (a named pipe) is read in order, the header and any
		// skipped records discarded below.
		r = file
	case f.compression == tfrecord.None:
		// Uncompressed files are positioned directly.
		if start > file.Size() {
			short, start = true, file.Size()
		}
		r, skip = io.NewSectionReader(file, start, file.Size()-start), 0
	case file.Size() == 0:
		// An empty file is an empty stream, as TensorFlow's
		// ZlibInputStream reads it.
		r = file
	default:
		br := bufio.NewReaderSize(file, 64<<10)
		dec, err := decompress(f.compression, br, work)
		if err != nil {
			file.Close()
			return false, err
		}
		r = strings.NewReader("") // empty
		if dec != nil {
			r, closer = dec, dec
		}
	}
	if f.src == nil {
		f.src = bufio.NewReaderSize(r, 64<<10)
	} else {
		f.src.Reset(r)
	}
	f.file, f.closer, f.work = file, closer, work
	f.have, f.index, f.resumed = 0, index, true
	for skip > 0 {
		n, err := f.src.Discard(int(min(skip, 1<<30)))
		skip -= int64(n)
		if err == io.EOF {
			short = true
			break
		}
		if err != nil {
			f.Reset()
			if closer != nil {
				// A compressed stream cut short, or damaged, before
				// the position: bad data, where it stopped.
				return false, &dataerr.Error{File: work, Offset: start - skip, Record: -1,
					Err: fmt.Errorf("%v stream, skipping to byte %d of its decompressed data: %w", f.compression, start, err)}
			}
			return false, fmt.Errorf("%s: skipping to byte %d: %w", work, start, err)
		}
	}
	return short, nil
}

// fill reads until the look-ahead holds need bytes, growing it as bytes
// arrive: a record_bytes far beyond what the stream holds costs memory
// only for the bytes that are there. It returns io.EOF if the stream ends
// first, or the decompressor's io.ErrUnexpectedEOF if it was cut short.
func (f *fixedLengthFormat) fill(need int) error {
	for f.have < need {
		if f.have == len(f.buf) {
			grown := make([]byte, min(need, max(2*len(f.buf), 64<<10)))
			copy(grown, f.buf[:f.have])
			f.buf = grown
		}
		n, err := f.src.Read(f.buf[f.have:min(need, len(f.buf))])
		f.have += n
		if err != nil && f.have < need {
			return err
		}
	}
	return nil
}

// streamError is a failed read of the record at f.index: bad data where
// a decompressor failed (the record has a key though it was never
// produced), an I/O error of the file otherwise, both naming the record's
// offset.
func (f *fixedLengthFormat) streamError(err error) error {
	off := int64(f.headerBytes) + f.index*f.hop()
	if f.closer == nil {
		return fmt.Errorf("%s: record %d at byte %d: %w", f.work, f.index, off, err)
	}
	return &dataerr.Error{File: f.work, Offset: off, Record: f.index,
		Key: f.work + ":" + strconv.FormatInt(f.index, 10),
		Err: fmt.Errorf("%v stream, at byte %d of its decompressed data: %w", f.compression, off, err)}
}

// OnWorkStarted opens the file and skips its header.
func (f *fixedLengthFormat) OnWorkStarted(ctx context.Context, work string) error {
	short, err := f.open(ctx, work, 0)
	if err != nil {
		return err
	}
	if short {
		f.Reset()
		return &dataerr.Error{File: work, Offset: 0, Record: -1,
			Err: fmt.Errorf("reached end of file in the %d-byte header: %w", f.headerBytes, ErrShortHeader)}
	}
	return nil
}

// Read reads the next record. The value is valid until the next Read.
func (f *fixedLengthFormat) Read(ctx context.Context) (string, []byte, bool, bool, error) {
	if f.failed != nil {
		return "", nil, false, false, f.failed
	}
	key, value, produced, atEnd, err := f.read()
	if err != nil {
		// The failed read has consumed an unknown part of the record (and
		// its hop): reading on would return misaligned records.
		f.failed = err
	}
	return key, value, produced, atEnd, err
}

func (f *fixedLengthFormat) read() (string, []byte, bool, bool, error) {
	if !f.resumed {
		// Advance by hop: drop look-ahead bytes, then skip the rest.
		if hop := f.hop(); hop <= int64(f.have) {
			f.have = copy(f.buf, f.buf[hop:f.have])
		} else {
			skip := int(hop) - f.have
			f.have = 0
			if n, err := f.src.Discard(skip); n < skip {
				if err != io.EOF {
					return "", nil, false, false, f.streamError(err)
				}
				return "", nil, false, true, nil
			}
		}
	}
	f.resumed = false
	err := f.fill(f.recordBytes + f.footerBytes)
	if err == io.EOF {
		return "", nil, false, true, nil // a short last record is dropped, as in TensorFlow
	}
	// A decompressor's io.ErrUnexpectedEOF is a stream cut short: its
	// records are lost, which TensorFlow passes over in silence, but
	// which here fails as a damaged TFRecord or text stream does.
	if err != nil {
		return "", nil, false, false, f.streamError(err)
	}
	f.index++
	if f.noKeys || f.omitKey {
		return "", f.buf[:f.recordBytes], true, false, nil
	}
	f.key = strconv.AppendInt(append(append(f.key[:0], f.work...), ':'), f.index-1, 10)
	return string(f.key), f.buf[:f.recordBytes], true, false, nil
}

func (f *fixedLengthFormat) omitKeys(omit bool) { f.omitKey = omit }

// Work returns the name of the file the last record read came from.
func (f *fixedLengthFormat) Work() string { return f.work }

// Offset returns the index of the last record read in its file, counting
// from 0: what follows the colon of the record's key.
func (f *fixedLengthFormat) Offset() int64 { return f.index - 1 }

// OnWorkFinished closes the file.
func (f *fixedLengthFormat) OnWorkFinished() error { return f.Reset() }

// Reset closes any open file.
func (f *fixedLengthFormat) Reset() error {
	var err error
	if f.closer != nil {
		f.closer.Close()
		f.closer = nil
	}
	if f.file != nil {
		err = f.file.Close()
		f.file = nil
	}
	return err
}

// Position returns the index of the next record of the current file.
func (f *fixedLengthFormat) Position() ([]byte, error) {
	return protowire.AppendVarint(nil, uint64(f.index)), nil
}

// Seek reopens work at the record Position saved: directly for an
// uncompressed file, by decompressing up to it otherwise. A position past
// the end leaves no records to read.
func (f *fixedLengthFormat) Seek(ctx context.Context, work string, pos []byte) error {
	n, m := protowire.ConsumeVarint(pos)
	if m < 0 || m != len(pos) || int64(n) < 0 {
		return fmt.Errorf("%w: bad fixed-length position %x", ErrState, pos)
	}
	_, err := f.open(ctx, work, int64(n))
	return err
}

// unit returns the file of the unit in progress (see unitWatcher).
func (f *fixedLengthFormat) unit() *unitFile { return f.file }

// Watch makes the end of ctx end the open file's reads in flight
// (recordhook.Format).
func (f *fixedLengthFormat) Watch(ctx context.Context) (stop func() bool) { return f.file.watch(ctx) }

// PositionOf returns the position of the record of index i: Position's
// form, the index itself.
func (f *fixedLengthFormat) PositionOf(i int64) ([]byte, bool) {
	return protowire.AppendVarint(nil, uint64(i)), true
}
