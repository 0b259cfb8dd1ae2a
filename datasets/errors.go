package datasets

import (
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/sluiceml/sluice/dataerr"
)

// Sentinels for the conditions callers test with errors.Is. Truncation is
// reported with io.ErrUnexpectedEOF, as encoding/binary and archive/tar do.
var (
	// ErrHeader means a file's header is invalid: a wrong magic number,
	// an unsupported element type, impossible dimensions.
	ErrHeader = errors.New("invalid header")
	// ErrSize means the header's counts do not match the data that follows.
	ErrSize = errors.New("size does not match header")
	// ErrTrailingData means bytes follow the last record a header promised.
	ErrTrailingData = errors.New("trailing data after last record")
	// ErrLabel means a label is outside the data set's classes.
	ErrLabel = errors.New("label out of range")
)

// Errorf returns the *dataerr.Error of malformed input at the given place
// in file: offset counts bytes of the decompressed stream when the file is
// compressed, and record is the index of the image, label or record, or -1
// for a header. Its Err wraps err (one of the sentinels above or
// io.ErrUnexpectedEOF), so that errors.Is(result, err) holds, followed by
// the optional detail that format gives; its text says where, as
// "record 3 at offset 100: ..." or "offset 0: ...".
func Errorf(file string, offset, record int64, err error, format string, args ...any) *dataerr.Error {
	if format != "" {
		err = fmt.Errorf("%w: %s", err, fmt.Sprintf(format, args...))
	}
	b := make([]byte, 0, 32)
	if record >= 0 {
		b = append(b, "record "...)
		b = strconv.AppendInt(b, record, 10)
		b = append(b, " at "...)
	}
	b = append(b, "offset "...)
	b = strconv.AppendInt(b, offset, 10)
	return &dataerr.Error{File: file, Offset: offset, Record: record, Err: fmt.Errorf("%s: %w", b, err)}
}

// NameOf returns r's file name when r has one (an *os.File, or anything
// with a Name method), so errors can name the file without the caller
// passing it separately.
func NameOf(r any) string {
	if n, ok := r.(interface{ Name() string }); ok {
		return n.Name()
	}
	return ""
}

// Truncated converts an io.EOF in the middle of a structure into
// io.ErrUnexpectedEOF; other errors are returned as they are.
func Truncated(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}
