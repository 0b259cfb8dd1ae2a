package cifar10

import (
	"bufio"
	"fmt"
	"io"
	"iter"

	"github.com/sluiceml/sluice/datasets"
)

// A Reader reads the records of a CIFAR-style binary file one at a time
// through one reused buffer.
//
// Unlike TensorFlow's FixedLengthRecordReader, which silently drops a
// truncated final record, a Reader reports it: a CIFAR file's length is a
// whole number of records, and anything else means the file is damaged.
type Reader struct {
	l    Layout
	name string
	br   *bufio.Reader
	buf  []byte
	n    int64 // records read
	err  error
}

// NewReader returns a Reader of l-shaped records from r. If r has a Name
// method, as *os.File does, errors name the file.
func NewReader(r io.Reader, l Layout) (*Reader, error) {
	if err := l.Validate(); err != nil {
		return nil, err
	}
	return &Reader{l: l, name: datasets.NameOf(r), br: bufio.NewReaderSize(datasets.Progress(r), 64<<10), buf: make([]byte, l.RecordBytes())}, nil
}

// Next returns the next record, whose slices are valid until the next
// call, or io.EOF after the last one.
func (r *Reader) Next() (Record, error) {
	if r.err != nil {
		return Record{}, r.err
	}
	off := r.n * int64(len(r.buf))
	k, err := io.ReadFull(r.br, r.buf)
	switch {
	case err == io.EOF:
		r.err = io.EOF
		return Record{}, r.err
	case err == io.ErrUnexpectedEOF:
		// The record's offset, as the text says ("record 1 at offset
		// 3073"), not where the file ends (audit 49).
		r.err = datasets.Errorf(r.name, off, r.n, fmt.Errorf("%w (%w)", datasets.ErrSize, err),
			"the file ends %d bytes into the %d-byte record", k, len(r.buf))
		return Record{}, r.err
	case err != nil:
		r.err = datasets.Errorf(r.name, off+int64(k), r.n, err, "")
		return Record{}, r.err
	}
	rec, err := r.l.Parse(r.buf)
	if err != nil {
		r.err = datasets.Errorf(r.name, off, r.n, err, "")
		return Record{}, r.err
	}
	r.n++
	return rec, nil
}

// All returns an iterator over the remaining records and their indexes in
// the file (the index of FixedLengthRecordReader's key "file:index"). The
// record is reused between iterations. It stops after the last record or
// at the first error, which Err then returns.
func (r *Reader) All() iter.Seq2[int64, Record] {
	return func(yield func(int64, Record) bool) {
		for {
			i := r.n
			rec, err := r.Next()
			if err != nil || !yield(i, rec) {
				return
			}
		}
	}
}

// Err returns the error that stopped the reader, or nil after a clean end.
func (r *Reader) Err() error {
	if r.err == io.EOF {
		return nil
	}
	return r.err
}

// A Writer writes l-shaped records. It writes each record with one call to
// the underlying writer; wrap a file in a bufio.Writer.
type Writer struct {
	l   Layout
	w   io.Writer
	buf []byte
}

// NewWriter returns a Writer of l-shaped records to w.
func NewWriter(w io.Writer, l Layout) (*Writer, error) {
	if err := l.Validate(); err != nil {
		return nil, err
	}
	return &Writer{l: l, w: w, buf: make([]byte, 0, l.RecordBytes())}, nil
}

// Write writes one record: its label bytes and its image in height, width,
// channel order (transposed to the stored channel-major order).
func (w *Writer) Write(labels, hwc []byte) error {
	var err error
	w.buf, err = w.l.AppendRecord(w.buf[:0], labels, hwc)
	if err != nil {
		return err
	}
	_, err = w.w.Write(w.buf)
	return err
}
