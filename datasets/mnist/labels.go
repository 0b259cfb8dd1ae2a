package mnist

import (
	"encoding/binary"
	"fmt"
	"io"

	"github.com/sluiceml/sluice/datasets"
)

// ReadLabels reads a whole IDX label file (plain or gzip) from r: one byte
// per image. If r has a Name method, as *os.File does, errors name the file.
func ReadLabels(r io.Reader) ([]byte, error) {
	lr, err := NewLabelReader(r)
	if err != nil {
		return nil, err
	}
	return lr.s.readAll(int64(lr.count), 1, "label")
}

// A LabelReader reads the labels of an IDX label file one at a time, so
// that a header declaring billions of labels costs nothing until they are
// read: a caller compares Count with its images' first.
type LabelReader struct {
	s     *stream
	count int
	next  int
	err   error
}

// NewLabelReader reads the header of an IDX label file (plain or gzip)
// from r and returns a reader positioned at the first label.
func NewLabelReader(r io.Reader) (*LabelReader, error) {
	s, err := newStream(r)
	if err != nil {
		return nil, err
	}
	dims, err := s.header(LabelMagic, "label")
	if err != nil {
		return nil, err
	}
	return &LabelReader{s: s, count: int(dims[0])}, nil
}

// Count returns the number of labels the header declares.
func (r *LabelReader) Count() int { return r.count }

// Next returns the next label, or io.EOF after the last. Data missing
// before the declared count or present after it is an error.
func (r *LabelReader) Next() (byte, error) {
	if r.err != nil {
		return 0, r.err
	}
	if r.next == r.count {
		r.err = io.EOF
		if err := r.s.expectEOF(int64(r.count)); err != nil {
			r.err = err
		}
		return 0, r.err
	}
	var one [1]byte
	if _, err := io.ReadFull(r.s, one[:]); err != nil {
		r.err = datasets.Errorf(r.s.name, r.s.off, int64(r.next),
			fmt.Errorf("%w (%w)", datasets.ErrSize, datasets.Truncated(err)),
			"header declares %d labels, the data ends after %d", r.count, r.next)
		return 0, r.err
	}
	r.next++
	return one[0], nil
}

// WriteLabels writes labels as an uncompressed IDX label file.
func WriteLabels(w io.Writer, labels []byte) error {
	if uint64(len(labels)) > 1<<32-1 {
		return fmt.Errorf("mnist: %d labels do not fit an IDX header", len(labels))
	}
	var h [8]byte
	binary.BigEndian.PutUint32(h[0:], LabelMagic)
	binary.BigEndian.PutUint32(h[4:], uint32(len(labels)))
	if _, err := w.Write(h[:]); err != nil {
		return err
	}
	_, err := w.Write(labels)
	return err
}
