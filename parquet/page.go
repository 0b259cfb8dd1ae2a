package parquet

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"hash/crc32"
	"io"

	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
)

// A pageReader reads the pages of one column chunk, a section of the
// file, and decompresses them. It reads the chunk a window at a time, so
// that a chunk of small pages costs a few large reads rather than two
// small ones a page: an object store's blocks are fetched once, in the
// order the columns' chunks lie in the file.
type pageReader struct {
	r      io.ReaderAt
	off    int64 // of the next page header
	end    int64 // of the chunk
	codec  codec
	limits *decoders

	window int    // bytes read at once
	win    []byte // what was read last, from winOff
	winOff int64
	winBuf []byte // win's storage, kept across chunks
	raw    []byte // a page larger than the window
	plain  []byte // the page decompressed
}

// A page is one page's header and its decompressed bytes. Its data is
// valid until the next page is read.
type page struct {
	h      pageHeader
	offset int64  // of the page's header in the file
	data   []byte // decompressed; for a v2 data page, levels then values
}

// decoders holds what decompressing needs, shared by a reader's columns.
type decoders struct {
	maxPage int
	gz      *gzip.Reader
	zs      *zstd.Decoder
}

func (d *decoders) close() {
	if d.zs != nil {
		d.zs.Close()
		d.zs = nil
	}
}

// headerReadAhead is the bytes a page header is parsed from at first;
// headers with long statistics take more.
const headerReadAhead = 256

// Window sizes: the columns read together share windowBudget, each
// between minWindow and maxWindow, and no larger than its chunk.
const (
	windowBudget = 64 << 20
	minWindow    = 256 << 10
	maxWindow    = 8 << 20
)

// windowFor returns the window of a chunk of size bytes read beside
// ncols-1 others.
func windowFor(size int64, ncols int) int {
	w := min(max(windowBudget/max(ncols, 1), minWindow), maxWindow)
	return int(min(int64(w), max(size, 1)))
}

// bytes returns the n bytes of the file at off, which lie inside the
// chunk; they are valid until the next call.
func (pr *pageReader) bytes(off int64, n int) ([]byte, error) {
	if off >= pr.winOff && off+int64(n) <= pr.winOff+int64(len(pr.win)) {
		return pr.win[off-pr.winOff:][:n], nil
	}
	if n > pr.window {
		pr.raw = resize(pr.raw, n)
		if err := readAt(pr.r, pr.raw, off); err != nil {
			return nil, err
		}
		return pr.raw, nil
	}
	m := int(min(int64(pr.window), pr.end-off))
	pr.winBuf = resize(pr.winBuf, m)
	pr.win, pr.winOff = nil, 0
	if err := readAt(pr.r, pr.winBuf, off); err != nil {
		return nil, err
	}
	pr.win, pr.winOff = pr.winBuf, off
	return pr.win[:n], nil
}

// next returns the chunk's next page, or io.EOF after the last.
func (pr *pageReader) next() (page, error) {
	if pr.off >= pr.end {
		return page{}, io.EOF
	}
	p := page{offset: pr.off}
	h, n, err := pr.header()
	if err != nil {
		return p, err
	}
	p.h = h
	if h.CompressedSize < 0 || h.UncompressedSize < 0 {
		return p, fmt.Errorf("page sizes %d and %d", h.CompressedSize, h.UncompressedSize)
	}
	if int(h.UncompressedSize) > pr.limits.maxPage || int(h.CompressedSize) > pr.limits.maxPage {
		return p, fmt.Errorf("page of %d bytes (%d stored) is over the %d-byte limit", h.UncompressedSize, h.CompressedSize, pr.limits.maxPage)
	}
	start := pr.off + int64(n)
	if int64(h.CompressedSize) > pr.end-start {
		return p, fmt.Errorf("page of %d bytes runs past its column chunk's end at %d", h.CompressedSize, pr.end)
	}
	raw, err := pr.bytes(start, int(h.CompressedSize))
	if err != nil {
		return p, fmt.Errorf("reading page: %w", err)
	}
	pr.off = start + int64(h.CompressedSize)
	if h.HasCRC && crc32.ChecksumIEEE(raw) != uint32(h.CRC) {
		return p, fmt.Errorf("page CRC mismatch (stored %#08x, computed %#08x)", uint32(h.CRC), crc32.ChecksumIEEE(raw))
	}
	p.data, err = pr.decompress(h, raw)
	return p, err
}

// header reads and decodes the page header at pr.off.
func (pr *pageReader) header() (pageHeader, int, error) {
	want := headerReadAhead
	for {
		n := int64(want)
		if left := pr.end - pr.off; n > left {
			n = left
		}
		b, err := pr.bytes(pr.off, int(n))
		if err != nil {
			return pageHeader{}, 0, fmt.Errorf("reading page header: %w", err)
		}
		h, used, err := parsePageHeader(b)
		if err == nil {
			return h, used, nil
		}
		if !errors.Is(err, io.ErrUnexpectedEOF) || int(n) < want || want >= pr.limits.maxPage {
			return h, 0, err
		}
		want *= 4
	}
}

// decompress returns the page's bytes as written before compression.
// A v2 data page compresses only its values, after the levels.
func (pr *pageReader) decompress(h pageHeader, src []byte) ([]byte, error) {
	levels := 0
	if v2 := h.DataV2; v2 != nil {
		levels = int(v2.RepetitionLevelsByteLength) + int(v2.DefinitionLevelsByteLength)
		if v2.RepetitionLevelsByteLength < 0 || v2.DefinitionLevelsByteLength < 0 || levels > len(src) || levels > int(h.UncompressedSize) {
			return nil, fmt.Errorf("data page v2: level lengths %d and %d in a page of %d bytes", v2.RepetitionLevelsByteLength, v2.DefinitionLevelsByteLength, len(src))
		}
		if !v2.IsCompressed {
			if len(src) != int(h.UncompressedSize) {
				return nil, fmt.Errorf("uncompressed page of %d bytes says %d", len(src), h.UncompressedSize)
			}
			return src, nil
		}
	}
	if pr.codec == codecUncompressed {
		if len(src) != int(h.UncompressedSize) {
			return nil, fmt.Errorf("uncompressed page of %d bytes says %d", len(src), h.UncompressedSize)
		}
		return src, nil
	}
	pr.plain = resize(pr.plain, int(h.UncompressedSize))
	copy(pr.plain, src[:levels])
	dst, err := pr.inflate(pr.plain[levels:], src[levels:])
	if errors.Is(err, ErrUnsupported) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("%v page: %w", pr.codec, err)
	}
	if dst != len(pr.plain)-levels {
		return nil, fmt.Errorf("%v page: %d bytes decompressed, the header says %d", pr.codec, dst+levels, h.UncompressedSize)
	}
	return pr.plain, nil
}

// errPageSize reports compressed data that inflates past the page's
// stated size.
var errPageSize = errors.New("decompresses to more than the page header says")

// inflate decompresses src into dst, which is exactly as long as the
// header says the page is, and returns the bytes written.
func (pr *pageReader) inflate(dst, src []byte) (int, error) {
	d := pr.limits
	switch pr.codec {
	case codecSnappy:
		n, err := s2.DecodedLen(src)
		if err != nil {
			return 0, err
		}
		if n != len(dst) {
			return n, nil // the caller reports the mismatch
		}
		out, err := s2.Decode(dst, src)
		return len(out), err
	case codecGzip:
		if d.gz == nil {
			gz, err := gzip.NewReader(bytes.NewReader(src))
			if err != nil {
				return 0, err
			}
			d.gz = gz
		} else if err := d.gz.Reset(bytes.NewReader(src)); err != nil {
			return 0, err
		}
		return readExactly(d.gz, dst)
	case codecZstd:
		if d.zs == nil {
			zs, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(uint64(d.maxPage)+1))
			if err != nil {
				return 0, err
			}
			d.zs = zs
		}
		out, err := d.zs.DecodeAll(src, dst[:0:len(dst)])
		if err != nil {
			return 0, err
		}
		if len(out) > len(dst) || len(out) > 0 && &out[0] != &dst[0] {
			return 0, errPageSize
		}
		return len(out), nil
	}
	return 0, fmt.Errorf("%v compression is %w", pr.codec, ErrUnsupported)
}

// supportedCodec reports whether pages compressed with c can be read.
func supportedCodec(c codec) bool {
	switch c {
	case codecUncompressed, codecSnappy, codecGzip, codecZstd:
		return true
	}
	return false
}

// readExactly fills dst from r and checks that r ends there: the read
// past dst is where a gzip stream's checksum (CRC-32 and size) is
// checked, and its error is the page's.
func readExactly(r io.Reader, dst []byte) (int, error) {
	n, err := io.ReadFull(r, dst)
	if err != nil {
		return n, noEOF(err)
	}
	var one [1]byte
	switch m, err := io.ReadFull(r, one[:]); {
	case m > 0:
		return n, errPageSize
	case err != io.EOF:
		return n, err
	}
	return n, nil
}

// noEOF turns an end of input inside a structure into
// io.ErrUnexpectedEOF.
// readAt reads len(b) bytes at off, all or an error: a ReaderAt may
// return io.EOF with a whole read that ends at the end of its data, which
// was taken for a failure (audit 101: every file of an FS that does so).
func readAt(r io.ReaderAt, b []byte, off int64) error {
	n, err := r.ReadAt(b, off)
	if n == len(b) {
		return nil
	}
	if err == nil {
		err = io.ErrUnexpectedEOF
	}
	return noEOF(err)
}

func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}
