package tfrecord

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"iter"

	"github.com/sluiceml/sluice/dataerr"
)

// Overhead is the framing cost of one record in bytes: a record of n
// bytes takes n+Overhead bytes of the uncompressed stream.
const Overhead = headerSize + footerSize

const (
	headerSize = 12 // uint64 length + uint32 masked CRC of it
	footerSize = 4  // uint32 masked CRC of the data

	defaultBufSize = 64 << 10
	minBufSize     = 64
	// firstChunk is the first allocation for a record too large for the
	// read buffer when the input's size is unknown; see readUnknown.
	firstChunk = 256 << 10
)

var errReaderClosed = errors.New("tfrecord: Next called after Close")

// Stats are a Reader's running counts.
type Stats struct {
	Records      int64 // records returned
	Skipped      int64 // corrupt records (or damaged regions) skipped
	SkippedBytes int64 // bytes of the uncompressed stream skipped with them
}

// A Reader reads records from a TFRecord stream. Create one with
// [NewReader]. A Reader is not safe for concurrent use.
type Reader struct {
	cfg    config
	raw    sourceReader // the caller's reader, remembering its errors
	src    io.Reader    // the uncompressed stream; nil until the first Next
	closer func()       // releases the decompressor's resources

	buf    []byte // read buffer, or the stream itself (view); unread data is buf[r:w]
	r, w   int
	own    []byte // the Reader's own read buffer, kept across Resets
	view   []byte // the stream, for ResetBytes; nil otherwise
	srcErr error  // sticky error from src; io.EOF at the end

	big []byte // reused storage for records larger than buf

	br *bufio.Reader // over raw, for a compressed stream; kept across Resets

	// size is the number of bytes the caller's reader held when reading
	// began (uncompressed streams only), or -1 if unknown; with raw.n it
	// tells how much of the input is left.
	size int64

	off   int64 // uncompressed offset of the next record
	last  int64 // uncompressed offset of the record last returned
	err   error // sticky error returned by every later Next
	stats Stats
}

// NewReader returns a Reader of the TFRecord stream in r. Options select
// the compression (a [Compression] value; default None), the name errors
// report ([Name]), CRC checking ([SkipDataCRC]), the largest record
// ([MaxRecordSize]) and what to do with corrupt records ([SkipCorrupt],
// [SkipCorruptUpTo]; the default, as in TensorFlow, is to fail).
//
// NewReader does no I/O; a compressed stream's header is read by the first
// call to Next.
func NewReader(r io.Reader, opts ...Option) *Reader {
	rd := new(Reader)
	rd.reset(r, opts)
	return rd
}

// Reset makes r read a new stream from src, as NewReader(src, opts...)
// would, but keeps r's buffers, so that one Reader can read file after
// file without allocating. It releases the previous decompressor.
func (r *Reader) Reset(src io.Reader, opts ...Option) {
	if r.closer != nil {
		r.closer()
	}
	r.reset(src, opts)
}

// ResetBytes makes r read the stream held in b, as
// Reset(bytes.NewReader(b), opts...) would, with one difference: the
// records of an uncompressed stream are slices of b, not copies, so Next
// copies nothing, and a record stays valid as long as b does — not only
// until the next call. b must not change while r reads it, and a caller
// must not write to a record. Reading a file through a memory mapping
// this way spares the copy a read system call makes. An [InputSize]
// option is ignored: the stream is b.
func (r *Reader) ResetBytes(b []byte, opts ...Option) {
	if r.closer != nil {
		r.closer()
	}
	if b == nil {
		b = []byte{} // a nil view would mean none
	}
	r.reset(nil, opts)
	r.view = b
}

func (r *Reader) reset(src io.Reader, opts []Option) {
	own, big, br := r.own, r.big, r.br
	cfg := newConfig(opts)
	*r = Reader{
		cfg:  cfg,
		raw:  sourceReader{r: src},
		off:  cfg.startOffset,
		last: cfg.startOffset,
		big:  big[:0],
		br:   br,
		size: -1,
	}
	if len(own) == cfg.bufSize {
		r.own = own
	}
	if !cfg.compression.valid() {
		r.err = fmt.Errorf("tfrecord: %w %v", ErrUnknownCompression, cfg.compression)
	}
}

// Next returns the next record's data. At the end of the stream (a record
// boundary) it returns io.EOF; any other error describes bad or unreadable
// data and is usually a [*dataerr.Error] holding a [*RecordError]. Errors are sticky: once Next fails,
// every later call returns the same error.
//
// One to eleven bytes after the last record (a partial header) are reported
// as truncation. TensorFlow 2.21 ends such a file cleanly instead; sluice
// treats a file cut inside a header as having lost data. An error of the
// underlying reader is returned wrapped, with the name and offset, and does
// not match ErrDataLoss.
//
// The returned slice is only valid until the next call to Next or Close:
// the Reader reuses its memory. Copy it (bytes.Clone) to keep it.
func (r *Reader) Next() ([]byte, error) {
	if r.err != nil {
		return nil, r.err
	}
	if r.src == nil {
		if err := r.init(); err != nil {
			r.err = err
			return nil, err
		}
	}
	for {
		rec, err := r.next()
		if err == nil {
			r.stats.Records++
			return rec, nil
		}
		if re := damage(err); re != nil && r.canSkip(re) {
			r.stats.Skipped++
			if re.Part == damageHeader {
				r.resync()
			} else {
				r.stats.SkippedBytes += int64(re.Length) + Overhead
			}
			continue
		}
		if re := damage(err); re != nil {
			// Read past a record whose data CRC failed: the position
			// is the record's, so that one saved now resumes at it and
			// fails again, as TensorFlow's reader, which advances its
			// offset only past a good record, does.
			r.off = re.start
		}
		r.err = err
		return nil, err
	}
}

// damage returns the RecordError of an error of next, or nil.
func damage(err error) *RecordError {
	if e, ok := err.(*dataerr.Error); ok && e != nil {
		re, _ := e.Err.(*RecordError)
		return re
	}
	return nil
}

func (r *Reader) canSkip(e *RecordError) bool {
	if !r.cfg.skip || e.Err != ErrCorrupt || e.Part == damageCompressed {
		return false
	}
	return r.cfg.skipLimit < 0 || r.stats.Skipped < r.cfg.skipLimit
}

// All returns an iterator over the remaining records. It stops after the
// last record, or after yielding one non-nil error. As with Next, each
// record is only valid until the iteration continues.
func (r *Reader) All() iter.Seq2[[]byte, error] {
	return func(yield func([]byte, error) bool) {
		for {
			rec, err := r.Next()
			if err == io.EOF {
				return
			}
			if err != nil {
				yield(nil, err)
				return
			}
			if !yield(rec, nil) {
				return
			}
		}
	}
}

// Offset returns the byte offset, in the uncompressed stream, at which the
// record last returned by Next starts: the number TensorFlow's
// TFRecordReader puts after the colon of its "file:offset" keys. Before
// the first record it returns the start offset (0 unless [StartOffset]).
func (r *Reader) Offset() int64 { return r.last }

// NextOffset returns the offset at which the next record will be read,
// which is where a saved position resumes. After Next failed on a
// damaged record, it is that record's offset: a position saved then
// resumes at the record, and fails there again.
func (r *Reader) NextOffset() int64 { return r.off }

// Stats returns the counts of records read and skipped so far.
func (r *Reader) Stats() Stats { return r.stats }

// Close releases the decompressor's resources. It does not close the
// underlying reader. Next fails after Close.
func (r *Reader) Close() error {
	if r.closer != nil {
		r.closer()
		r.closer = nil
	}
	r.err = errReaderClosed
	r.buf, r.own, r.view, r.big, r.br = nil, nil, nil, nil, nil
	return nil
}

func (r *Reader) init() error {
	if r.view != nil {
		if r.cfg.compression == None {
			// The whole stream is buffered and nothing more will come:
			// every record that fits in it is a slice of it, one that
			// claims more is truncated (readBig finds nothing left).
			r.buf, r.r, r.w = r.view, 0, len(r.view)
			r.src, r.srcErr, r.size = eofReader{}, io.EOF, 0
			return nil
		}
		r.raw.r = bytes.NewReader(r.view)
	}
	if len(r.own) != r.cfg.bufSize {
		r.own = make([]byte, r.cfg.bufSize)
	}
	r.buf = r.own
	if r.cfg.compression == None {
		r.src = &r.raw
		size, err := inputSize(r.raw.r, r.cfg.inputSize)
		if err != nil {
			return r.readError(err, r.off)
		}
		r.size = size
		return nil
	}
	if r.br == nil {
		r.br = bufio.NewReaderSize(&r.raw, 32<<10)
	} else {
		r.br.Reset(&r.raw)
	}
	br := r.br
	// An empty file is an empty stream whatever its declared compression,
	// as in TensorFlow, where an empty file yields no records.
	if _, err := br.Peek(1); err != nil {
		if err == io.EOF {
			r.src = eofReader{}
			return nil
		}
		return r.readError(err, r.off)
	}
	src, closer, err := newDecompressor(r.cfg.compression, br)
	if err != nil {
		return r.readError(err, r.off)
	}
	r.src, r.closer = src, closer
	return nil
}

// next reads one record, leaving the stream positioned after it unless the
// length CRC failed (then resync decides where to go on).
func (r *Reader) next() ([]byte, error) {
	start := r.off
	avail := r.fill(headerSize)
	if avail < headerSize {
		if avail == 0 && r.srcErr == io.EOF {
			return nil, io.EOF
		}
		return nil, r.shortError(start)
	}
	h := r.buf[r.r : r.r+headerSize]
	length := binary.LittleEndian.Uint64(h)
	if MaskedCRC(h[:8]) != binary.LittleEndian.Uint32(h[8:]) {
		return nil, r.recordError(ErrCorrupt, damageHeader, start, start, 0)
	}
	if length > r.cfg.maxRecord {
		e := r.recordError(ErrTooLarge, "", start, start, length)
		damage(e).Limit = r.cfg.maxRecord
		return nil, e
	}
	var data []byte
	var crc uint32
	if need := headerSize + length + footerSize; need <= uint64(len(r.buf)) {
		n := int(need)
		if r.fill(n) < n {
			return nil, r.shortError(start)
		}
		// Capped, so that a caller's append cannot write over the
		// footer, or into a view's next record.
		data = r.buf[r.r+headerSize : r.r+headerSize+int(length) : r.r+headerSize+int(length)]
		crc = binary.LittleEndian.Uint32(r.buf[r.r+headerSize+int(length):])
		r.r += n
	} else {
		r.r += headerSize
		b, err := r.readBig(length, start)
		if err != nil {
			return nil, err
		}
		if r.fill(footerSize) < footerSize {
			return nil, r.shortError(start)
		}
		data = b
		crc = binary.LittleEndian.Uint32(r.buf[r.r:])
		r.r += footerSize
	}
	r.off = start + headerSize + int64(length) + footerSize
	if !r.cfg.skipDataCRC && MaskedCRC(data) != crc {
		return nil, r.recordError(ErrCorrupt, damageData, start, start+headerSize, length)
	}
	r.last = start
	return data, nil
}

// readBig reads a record's data of length bytes, more than the read
// buffer holds, into r.big and returns it with exactly that capacity
// (storage kept from an earlier record is reused when large enough).
//
// A length field can claim more than the input holds. When the input's
// size is known, a claim beyond it is reported as truncation before
// anything is allocated, and otherwise the storage is allocated at once.
// When the size is unknown, a record of up to four times firstChunk is
// allocated at once too, and a larger one as readUnknown says.
func (r *Reader) readBig(length uint64, start int64) ([]byte, error) {
	buffered := uint64(r.w - r.r)
	if r.size >= 0 {
		left := uint64(max(r.size-r.raw.n, 0)) + buffered
		if left < length+footerSize {
			return nil, r.recordError(ErrTruncated, "", start, start, 0)
		}
	}
	b := r.big[:0]
	if uint64(cap(b)) < length {
		if r.size < 0 && buffered < length/4 && length/4 > firstChunk {
			return r.readUnknown(length, start)
		}
		b = make([]byte, 0, length)
	}
	return r.readRest(b, length, start)
}

// readUnknown is readBig for an input of unknown size. It reads the first
// quarter of the record into chunks that double from firstChunk, and only
// then, the data having shown up, allocates the record and copies them in.
// So a length field that claims more than the input holds costs at most
// about four times the bytes that did arrive, never the claim; and an
// honest record costs at most 1.25 times its length, with no copying
// beyond its first quarter.
func (r *Reader) readUnknown(length uint64, start int64) ([]byte, error) {
	quarter := length / 4
	var chunks [][]byte
	for got, size := uint64(0), uint64(firstChunk); got < quarter; size *= 2 {
		c := make([]byte, min(size, quarter-got))
		n := copy(c, r.buf[r.r:r.w])
		r.r += n
		if n < len(c) {
			if r.srcErr != nil {
				return nil, r.shortError(start)
			}
			m, err := io.ReadFull(r.src, c[n:])
			if err != nil {
				if err == io.ErrUnexpectedEOF {
					err = io.EOF
				}
				r.srcErr = err
				return nil, r.shortError(start)
			}
			n += m
		}
		chunks = append(chunks, c)
		got += uint64(n)
	}
	b := make([]byte, 0, length)
	for _, c := range chunks {
		b = append(b, c...)
	}
	return r.readRest(b, length, start)
}

// readRest reads into b, of capacity at least length, what is missing of
// a record's length bytes: first from the read buffer, then from src.
func (r *Reader) readRest(b []byte, length uint64, start int64) ([]byte, error) {
	k := min(uint64(r.w-r.r), length-uint64(len(b)))
	b = append(b, r.buf[r.r:r.r+int(k)]...)
	r.r += int(k)
	r.big = b[:0]
	if uint64(len(b)) < length {
		if r.srcErr != nil {
			return nil, r.shortError(start)
		}
		m, err := io.ReadFull(r.src, b[len(b):length])
		b = b[:len(b)+m]
		if err != nil {
			if err == io.ErrUnexpectedEOF {
				err = io.EOF
			}
			r.srcErr = err
			return nil, r.shortError(start)
		}
	}
	return b[:length:length], nil
}

// inputSize returns how many bytes src holds from its current position:
// size if the caller said (InputSize), else what seeking src to its end
// and back measures when src is an io.Seeker, else -1.
func inputSize(src io.Reader, size int64) (int64, error) {
	if size >= 0 {
		return size, nil
	}
	s, ok := src.(io.Seeker)
	if !ok {
		return -1, nil
	}
	cur, err := s.Seek(0, io.SeekCurrent)
	if err != nil {
		return -1, nil // not really seekable, such as a pipe
	}
	end, err := s.Seek(0, io.SeekEnd)
	if err != nil {
		return -1, nil
	}
	if _, err := s.Seek(cur, io.SeekStart); err != nil {
		return -1, err
	}
	return max(end-cur, 0), nil
}

// fill tries to have n (≤ len(buf)) unread bytes buffered and returns how
// many are. It returns fewer only when src has failed or ended.
func (r *Reader) fill(n int) int {
	if r.w-r.r >= n {
		return r.w - r.r
	}
	// Once src has ended nothing more comes to make room for; and a
	// view, whose src has ended from the start, must not be written.
	if r.srcErr == nil && len(r.buf)-r.r < n {
		r.w = copy(r.buf, r.buf[r.r:r.w])
		r.r = 0
	}
	for empty := 0; r.w-r.r < n && r.srcErr == nil; {
		m, err := r.src.Read(r.buf[r.w:])
		r.w += m
		if err != nil {
			r.srcErr = err
		} else if m == 0 {
			if empty++; empty >= 100 {
				r.srcErr = io.ErrNoProgress
			}
		}
	}
	return r.w - r.r
}

// resync skips a record whose length CRC failed: it scans forward from the
// byte after the bad header for the next valid header, or to the end.
func (r *Reader) resync() {
	r.drop(1)
	for {
		if r.fill(headerSize) < headerSize {
			if r.srcErr == io.EOF {
				r.drop(r.w - r.r)
			}
			return
		}
		for i := r.r; i+headerSize <= r.w; i++ {
			h := r.buf[i:]
			if validHeader(h) && binary.LittleEndian.Uint64(h) <= r.cfg.maxRecord {
				r.drop(i - r.r)
				return
			}
		}
		r.drop(r.w - r.r - (headerSize - 1))
	}
}

func (r *Reader) drop(n int) {
	r.r += n
	r.off += int64(n)
	r.stats.SkippedBytes += int64(n)
}

// shortError reports why fewer bytes arrived than a record needs.
func (r *Reader) shortError(start int64) error {
	if r.srcErr == io.EOF {
		return r.recordError(ErrTruncated, "", start, start, 0)
	}
	return r.readError(r.srcErr, start)
}

// readError classifies a failure of the source: an error of the caller's
// reader is passed on (it is not data loss, as far as we know); any other
// error came from the decompressor and means a broken compressed stream.
func (r *Reader) readError(err error, start int64) error {
	if r.raw.err != nil && errors.Is(err, r.raw.err) || r.cfg.compression == None {
		if r.cfg.name != "" {
			return fmt.Errorf("tfrecord: %s: reading record at %d: %w", r.cfg.name, start, err)
		}
		return fmt.Errorf("tfrecord: reading record at %d: %w", start, err)
	}
	kind := ErrCorrupt
	if errors.Is(err, io.ErrUnexpectedEOF) {
		kind = ErrTruncated
	}
	e := r.recordError(kind, damageCompressed, start, start, 0)
	damage(e).Cause = err
	return e
}

func validHeader(h []byte) bool {
	return MaskedCRC(h[:8]) == binary.LittleEndian.Uint32(h[8:headerSize])
}

// sourceReader remembers the last error of the caller's reader, so that
// an I/O error passed through a decompressor is not mistaken for bad data.
type sourceReader struct {
	r   io.Reader
	err error
	n   int64 // bytes read
}

// Read reads from the source, giving up on one that returns no bytes and
// no error: after 100 such reads in a row it returns io.ErrNoProgress, as
// fill does. io.ReadFull of a record larger than the buffer, and the ZSTD
// decoder, read such a source for ever, spinning a CPU (audit 101).
func (s *sourceReader) Read(p []byte) (n int, err error) {
	for empty := 0; n == 0 && err == nil && len(p) > 0; empty++ {
		if empty == 100 {
			err = io.ErrNoProgress
			break
		}
		n, err = s.r.Read(p)
	}
	s.n += int64(n)
	if err != nil && err != io.EOF {
		s.err = err
	}
	return n, err
}

type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }
