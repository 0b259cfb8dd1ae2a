package mnist

import (
	"bufio"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/bits"
	"slices"

	"github.com/sluiceml/sluice/datasets"
)

// The magic numbers of the two IDX files MNIST uses: two zero bytes, the
// element type (0x08, unsigned byte) and the number of dimensions.
const (
	ImageMagic = 0x00000803
	LabelMagic = 0x00000801
)

// maxData bounds the data a header may declare (count×rows×cols bytes), so
// that size arithmetic cannot overflow. Real IDX files are far smaller.
const maxData = 1 << 40

// stream is an IDX input: a buffered, possibly decompressed reader that
// counts the offset of what it has consumed.
type stream struct {
	name string
	br   *bufio.Reader
	off  int64
}

// newStream wraps r, decompressing it if it starts with gzip's magic bytes.
func newStream(r io.Reader) (*stream, error) {
	s := &stream{name: datasets.NameOf(r)}
	br := bufio.NewReader(datasets.Progress(r))
	if isGzip(br) {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, datasets.Errorf(s.name, 0, -1, datasets.ErrHeader, "gzip: %v", err)
		}
		zr.Multistream(false)
		br = bufio.NewReader(&members{src: br, zr: zr})
	}
	s.br = br
	return s, nil
}

// isGzip reports whether br starts with gzip's magic bytes.
func isGzip(br *bufio.Reader) bool {
	magic, err := br.Peek(2)
	return err == nil && magic[0] == 0x1f && magic[1] == 0x8b
}

// errNotGzip is what follows a gzip stream that is neither its end nor
// another member: garbage appended to a whole file, not a truncated one.
var errNotGzip = fmt.Errorf("%w: bytes that are not gzip follow the compressed stream", datasets.ErrTrailingData)

// members decompresses a gzip stream of one or more members, as a
// gzip.Reader does by default; but bytes after a member that do not start
// another are errNotGzip, where gzip.Reader would report an invalid
// header or, with fewer than ten of them, io.ErrUnexpectedEOF, the error
// of a truncated file.
type members struct {
	src *bufio.Reader
	zr  *gzip.Reader
}

func (m *members) Read(p []byte) (int, error) {
	for {
		n, err := m.zr.Read(p)
		if err != io.EOF {
			return n, err
		}
		if n > 0 {
			return n, nil // the next Read returns io.EOF again
		}
		if _, err := m.src.Peek(1); err != nil {
			// The end, or a failure to read, which is not bytes that
			// are not gzip (audit 101: it was reported as such).
			return 0, err
		}
		if !isGzip(m.src) {
			return 0, errNotGzip
		}
		if err := m.zr.Reset(m.src); err != nil {
			return 0, err
		}
		m.zr.Multistream(false)
	}
}

func (s *stream) Read(p []byte) (int, error) {
	n, err := s.br.Read(p)
	s.off += int64(n)
	return n, err
}

// header reads an IDX header of the given magic and returns its dimensions.
// what names the file kind in errors ("image", "label"), as TensorFlow's
// mnist.py does: "Invalid magic number 2049 in MNIST image file". The
// magic number is read and checked first, so that another kind of IDX
// file, shorter than this kind's header, is reported as what it is rather
// than as truncated.
func (s *stream) header(magic uint32, what string) ([]uint32, error) {
	var b [16]byte
	ndim := int(magic & 0xff)
	if _, err := io.ReadFull(s, b[:4]); err != nil {
		return nil, datasets.Errorf(s.name, s.off, -1, datasets.Truncated(err), "IDX %s header", what)
	}
	if got := binary.BigEndian.Uint32(b[:4]); got != magic {
		return nil, datasets.Errorf(s.name, 0, -1, datasets.ErrHeader,
			"invalid magic number %d (%#08x) in MNIST %s file, want %d", got, got, what, magic)
	}
	if _, err := io.ReadFull(s, b[4:4+4*ndim]); err != nil {
		return nil, datasets.Errorf(s.name, s.off, -1, datasets.Truncated(err), "IDX %s header", what)
	}
	dims := make([]uint32, ndim)
	for i := range dims {
		dims[i] = binary.BigEndian.Uint32(b[4+4*i:])
	}
	if i := checkDims(dims, math.MaxInt); i >= 0 {
		return nil, datasets.Errorf(s.name, int64(4+4*i), -1, datasets.ErrHeader,
			"IDX dimensions %v declare more than %d bytes", dims, dataLimit(math.MaxInt))
	}
	return dims, nil
}

// dataLimit is the most data a header may declare where an int's largest
// value is maxInt: maxData, or less where an int is 32 bits.
func dataLimit(maxInt uint64) uint64 { return min(maxData, maxInt) }

// checkDims returns the index of the first of dims (a count, then the
// shape of one record) that makes the data larger than dataLimit(maxInt),
// or -1 if none does. One record's size is checked on its own too, so a
// count of 0 cannot hide impossible dimensions; so the count, the record
// size and the data size all fit an int, and the callers may convert and
// multiply them. maxInt is a parameter so that the 32-bit limit can be
// tested anywhere.
func checkDims(dims []uint32, maxInt uint64) int {
	limit := dataLimit(maxInt)
	if len(dims) == 0 {
		return -1
	}
	count, record := uint64(dims[0]), uint64(1)
	if count > limit {
		return 0
	}
	for i, d := range dims[1:] {
		hi, lo := bits.Mul64(record, uint64(d))
		if hi != 0 || lo > limit {
			return i + 1
		}
		record = lo
		if hi, lo := bits.Mul64(count, record); hi != 0 || lo > limit {
			return i + 1
		}
	}
	return -1
}

// readAll reads count records of recordSize bytes and checks that nothing
// follows them.
func (s *stream) readAll(count, recordSize int64, what string) ([]byte, error) {
	start := s.off
	size := count * recordSize // the header check bounds it
	buf, err := s.readN(nil, size)
	if err != nil {
		rec := int64(len(buf)) / recordSize // err implies size > 0
		return nil, datasets.Errorf(s.name, start+rec*recordSize, rec, fmt.Errorf("%w (%w)", datasets.ErrSize, datasets.Truncated(err)),
			"header declares %d %ss (%d bytes of data from offset %d), the data ends after %d bytes",
			count, what, size, start, len(buf))
	}
	if err := s.expectEOF(count); err != nil {
		return nil, err
	}
	return buf, nil
}

// readN reads exactly n bytes into buf[:0], growing buf as data arrives
// rather than trusting n: a header can declare any size in four bytes. On
// error it returns what it read.
func (s *stream) readN(buf []byte, n int64) ([]byte, error) {
	const chunk = 1 << 20
	buf = buf[:0]
	for int64(len(buf)) < n {
		k := int(min(n-int64(len(buf)), chunk))
		buf = slices.Grow(buf, k)
		got, err := io.ReadFull(s, buf[len(buf):len(buf)+k])
		buf = buf[:len(buf)+got]
		if err != nil {
			return buf, err
		}
	}
	return buf, nil
}

// expectEOF reports an error if anything follows the last of n records.
func (s *stream) expectEOF(n int64) error {
	var one [1]byte
	k, err := io.ReadFull(s, one[:])
	if k > 0 {
		return datasets.Errorf(s.name, s.off-1, n, datasets.ErrTrailingData, "the header declares %d", n)
	}
	if err != io.EOF {
		return datasets.Errorf(s.name, s.off, n, err, "")
	}
	return nil
}
