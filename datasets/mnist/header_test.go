package mnist

import (
	"bytes"
	"errors"
	"io"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/sluiceml/sluice/datasets"
)

// checkDims refuses dimensions whose count, record size or data size
// would not fit an int, with 32-bit ints too, and impossible record sizes
// whatever the count.
func TestCheckDims(t *testing.T) {
	const maxInt32 = 1<<31 - 1
	tests := []struct {
		dims       []uint32
		want64     int // the failing dimension with 64-bit ints, or -1
		want32     int // with 32-bit ints
		limitWhere string
	}{
		{[]uint32{60000, 28, 28}, -1, -1, "MNIST"},
		{[]uint32{60000}, -1, -1, "labels"},
		{[]uint32{1 << 31, 1, 1}, -1, 0, "count 2^31"},
		{[]uint32{1<<31 - 1}, -1, -1, "labels, int32's largest"},
		{[]uint32{1 << 31}, -1, 0, "labels, count 2^31"},
		{[]uint32{1, 1 << 16, 1 << 16}, -1, 2, "image of 2^32 pixels"},
		{[]uint32{1 << 16, 1 << 8, 1 << 8}, -1, 2, "data of 2^32 bytes"},
		{[]uint32{0, 0xffffffff, 0xffffffff}, 2, 1, "count 0, impossible image"},
		{[]uint32{0, 1 << 20, 1 << 20}, -1, 2, "count 0, image of 2^40 bytes"},
		{[]uint32{0, 1 << 20, 1<<20 + 1}, 2, 2, "count 0, image beyond maxData"},
		{[]uint32{2, 1 << 20, 1 << 20}, 2, 2, "data beyond maxData"},
		{[]uint32{0xffffffff, 0xffffffff, 0xffffffff}, 1, 0, "everything huge"},
	}
	for _, tt := range tests {
		if got := checkDims(tt.dims, math.MaxInt64); got != tt.want64 {
			t.Errorf("%s: checkDims(%v, 64-bit) = %d, want %d", tt.limitWhere, tt.dims, got, tt.want64)
		}
		if got := checkDims(tt.dims, maxInt32); got != tt.want32 {
			t.Errorf("%s: checkDims(%v, 32-bit) = %d, want %d", tt.limitWhere, tt.dims, got, tt.want32)
		}
	}
}

// Headers that declare more than an int holds (on 32-bit platforms, where
// int(2^31) is negative and 65536×65536 is 0) or impossible images are
// refused by every reader, on every platform. Run with GOARCH=386 too.
func TestHugeHeaders(t *testing.T) {
	for _, in := range [][]byte{
		header(ImageMagic, 1<<31, 1, 1),
		header(ImageMagic, 1, 1<<16, 1<<16),
		header(ImageMagic, 0, 0xffffffff, 0xffffffff),
	} {
		if m, err := ReadImages(bytes.NewReader(in)); err == nil {
			t.Errorf("header %x: ReadImages: no error, Count %d Rows %d Cols %d, %d pixel bytes", in, m.Count, m.Rows, m.Cols, len(m.Pixels))
		}
		if r, err := NewImageReader(bytes.NewReader(in)); err == nil {
			img, err := r.Next()
			if err == nil || err == io.EOF && r.Count() > 0 {
				t.Errorf("header %x: ImageReader: Count %d, first image of %d bytes, %v", in, r.Count(), len(img), err)
			}
		}
	}
	if l, err := ReadLabels(bytes.NewReader(header(LabelMagic, 1<<31))); err == nil {
		t.Errorf("2^31 labels declared: no error, %d labels", len(l))
	}
}

// Each malformed file is reported as what is wrong with it.
func TestHeaderAndTrailerErrors(t *testing.T) {
	good := append(header(ImageMagic, 2, 2, 2), 1, 2, 3, 4, 5, 6, 7, 8)
	gz := gzipped(t, good)
	tests := []struct {
		name    string
		in      []byte
		is      error  // errors.Is(err, is), or nil for no error
		isNot   error  // !errors.Is(err, isNot)
		message string // in the error's text
	}{
		{"label file as images", append(header(LabelMagic, 3), 1, 2, 3), datasets.ErrHeader, io.ErrUnexpectedEOF, "invalid magic number 2049"},
		{"empty label file as images", header(LabelMagic, 0), datasets.ErrHeader, io.ErrUnexpectedEOF, "invalid magic number 2049"},
		{"three bytes", []byte{0, 0, 8}, io.ErrUnexpectedEOF, datasets.ErrHeader, "offset 3"},
		{"magic only", header(ImageMagic), io.ErrUnexpectedEOF, datasets.ErrHeader, "IDX image header"},
		{"count 0, impossible image", header(ImageMagic, 0, 0xffffffff, 0xffffffff), datasets.ErrHeader, nil, "declare more than"},
		{"gzip, trailing garbage", slices.Concat(gz, []byte("xy")), datasets.ErrTrailingData, io.ErrUnexpectedEOF, "not gzip"},
		{"gzip, trailing garbage of ten bytes", slices.Concat(gz, []byte("0123456789")), datasets.ErrTrailingData, io.ErrUnexpectedEOF, "not gzip"},
		{"gzip, truncated", gz[:len(gz)-4], io.ErrUnexpectedEOF, datasets.ErrTrailingData, ""},
		{"gzip, truncated second member", slices.Concat(gz, []byte{0x1f, 0x8b}), io.ErrUnexpectedEOF, datasets.ErrTrailingData, ""},
		{"gzip, two members", slices.Concat(gzipped(t, good[:10]), gzipped(t, good[10:])), nil, nil, ""},
		{"trailing byte", slices.Concat(good, []byte{9}), datasets.ErrTrailingData, nil, ""},
	}
	for _, tt := range tests {
		_, err := ReadImages(bytes.NewReader(tt.in))
		var rerr error
		if r, err := NewImageReader(bytes.NewReader(tt.in)); err != nil {
			rerr = err
		} else {
			for range r.All() {
			}
			rerr = r.Err()
		}
		for _, err := range []error{err, rerr} {
			switch {
			case tt.is == nil && err != nil:
				t.Errorf("%s: %v", tt.name, err)
			case tt.is == nil:
			case !errors.Is(err, tt.is):
				t.Errorf("%s: error %v, want %v", tt.name, err, tt.is)
			case tt.isNot != nil && errors.Is(err, tt.isNot):
				t.Errorf("%s: error %v is %v too", tt.name, err, tt.isNot)
			case !strings.Contains(err.Error(), tt.message):
				t.Errorf("%s: error %q lacks %q", tt.name, err, tt.message)
			}
		}
	}
}
