package mnist

import (
	"encoding/binary"
	"fmt"
	"io"
	"iter"

	"github.com/sluiceml/sluice/datasets"
	"github.com/sluiceml/sluice/tensor"
)

// Images is the content of an IDX image file: Count images of Rows×Cols
// uint8 pixels, stored one after another in row-major order.
type Images struct {
	Count, Rows, Cols int
	Pixels            []byte // Count×Rows×Cols bytes
}

// At returns the pixels of image i, sharing storage with m.Pixels.
func (m *Images) At(i int) []byte {
	n := m.Rows * m.Cols
	return m.Pixels[i*n : (i+1)*n : (i+1)*n]
}

// Tensor returns the images as a uint8 tensor of shape [Count, Rows, Cols]
// that shares m.Pixels.
func (m *Images) Tensor() tensor.Tensor {
	return tensor.New(m.Pixels, m.Count, m.Rows, m.Cols)
}

// ReadImages reads a whole IDX image file (plain or gzip) from r. If r has
// a Name method, as *os.File does, errors name the file.
func ReadImages(r io.Reader) (*Images, error) {
	s, err := newStream(r)
	if err != nil {
		return nil, err
	}
	dims, err := s.header(ImageMagic, "image")
	if err != nil {
		return nil, err
	}
	m := &Images{Count: int(dims[0]), Rows: int(dims[1]), Cols: int(dims[2])}
	if err := checkImageDims(s, m.Count, m.Rows, m.Cols); err != nil {
		return nil, err
	}
	size := int64(m.Rows * m.Cols)
	m.Pixels, err = s.readAll(int64(m.Count), size, "image")
	if err != nil {
		return nil, err
	}
	return m, nil
}

// checkImageDims rejects images of no pixels: a header could otherwise
// declare billions of them in a few bytes.
func checkImageDims(s *stream, count, rows, cols int) error {
	if count > 0 && (rows == 0 || cols == 0) {
		return datasets.Errorf(s.name, 8, -1, datasets.ErrHeader, "%d images of %d×%d pixels", count, rows, cols)
	}
	return nil
}

// An ImageReader reads the images of an IDX image file one at a time,
// holding one image in memory.
type ImageReader struct {
	s                 *stream
	count, rows, cols int
	next              int
	buf               []byte
	err               error
}

// NewImageReader reads the header of an IDX image file (plain or gzip)
// from r and returns a reader positioned at the first image.
func NewImageReader(r io.Reader) (*ImageReader, error) {
	s, err := newStream(r)
	if err != nil {
		return nil, err
	}
	dims, err := s.header(ImageMagic, "image")
	if err != nil {
		return nil, err
	}
	ir := &ImageReader{s: s, count: int(dims[0]), rows: int(dims[1]), cols: int(dims[2])}
	if err := checkImageDims(s, ir.count, ir.rows, ir.cols); err != nil {
		return nil, err
	}
	return ir, nil
}

// Count returns the number of images the header declares.
func (r *ImageReader) Count() int { return r.count }

// Rows returns the height of every image.
func (r *ImageReader) Rows() int { return r.rows }

// Cols returns the width of every image.
func (r *ImageReader) Cols() int { return r.cols }

// Next returns the next image's Rows×Cols pixels, valid until the next
// call, or io.EOF after the last image. Data missing before the declared
// count or present after it is an error.
func (r *ImageReader) Next() ([]byte, error) {
	if r.err != nil {
		return nil, r.err
	}
	if r.next == r.count {
		r.err = io.EOF
		if err := r.s.expectEOF(int64(r.count)); err != nil {
			r.err = err
		}
		return nil, r.err
	}
	var err error
	// The buffer grows with the first image's data, so a header declaring
	// a huge image costs nothing until the bytes are really there.
	if r.buf, err = r.s.readN(r.buf, int64(r.rows*r.cols)); err != nil {
		// The image's offset, as the text says, not where the data ends.
		r.err = datasets.Errorf(r.s.name, r.s.off-int64(len(r.buf)), int64(r.next),
			fmt.Errorf("%w (%w)", datasets.ErrSize, datasets.Truncated(err)),
			"header declares %d images, the data ends after %d of image %d's %d bytes", r.count, len(r.buf), r.next, r.rows*r.cols)
		return nil, r.err
	}
	r.next++
	return r.buf, nil
}

// All returns an iterator over the remaining images and their indexes.
// The pixel slice is reused between iterations. It stops after the last
// image or at the first error, which Err then returns, as bufio.Scanner
// does.
func (r *ImageReader) All() iter.Seq2[int, []byte] {
	return func(yield func(int, []byte) bool) {
		for {
			i := r.next
			img, err := r.Next()
			if err != nil {
				return
			}
			if !yield(i, img) {
				return
			}
		}
	}
}

// Err returns the error that stopped the reader, or nil after a clean end.
func (r *ImageReader) Err() error {
	if r.err == io.EOF {
		return nil
	}
	return r.err
}

// WriteImages writes m as an uncompressed IDX image file.
func WriteImages(w io.Writer, m *Images) error {
	if m.Count < 0 || m.Rows < 0 || m.Cols < 0 || uint64(m.Count) > 1<<32-1 || uint64(m.Rows) > 1<<32-1 || uint64(m.Cols) > 1<<32-1 {
		return fmt.Errorf("mnist: cannot write %d images of %d×%d pixels in IDX", m.Count, m.Rows, m.Cols)
	}
	if want := m.Count * m.Rows * m.Cols; len(m.Pixels) != want {
		return fmt.Errorf("mnist: %d pixel bytes for %d images of %d×%d pixels, want %d", len(m.Pixels), m.Count, m.Rows, m.Cols, want)
	}
	var h [16]byte
	binary.BigEndian.PutUint32(h[0:], ImageMagic)
	binary.BigEndian.PutUint32(h[4:], uint32(m.Count))
	binary.BigEndian.PutUint32(h[8:], uint32(m.Rows))
	binary.BigEndian.PutUint32(h[12:], uint32(m.Cols))
	if _, err := w.Write(h[:]); err != nil {
		return err
	}
	_, err := w.Write(m.Pixels)
	return err
}
