package tfrecord

import (
	"encoding/binary"
	"fmt"

	"github.com/sluiceml/sluice/dataerr"
)

// Unframe returns the data of the one whole record that b holds (its
// length, both CRCs and nothing after), as a Reader would return it, for a
// caller that read the record's bytes itself, at an offset an index gave.
// name and off, the file and the record's offset in it, go into the error
// of a bad record, which is the error a Reader would have returned. The
// data is a part of b.
func Unframe(b []byte, name string, off int64) ([]byte, error) {
	if err := CheckHeader(b, int64(len(b)), name, off); err != nil {
		return nil, err
	}
	length := binary.LittleEndian.Uint64(b)
	data := b[headerSize : headerSize+length]
	if MaskedCRC(data) != binary.LittleEndian.Uint32(b[headerSize+length:]) {
		return nil, frameError(ErrCorrupt, damageData, name, off, off+headerSize, length)
	}
	return data, nil
}

// CheckHeader reports whether h, the first bytes (at least the header's
// 12) of a span of n bytes at offset off of file name, begins a record
// that is the whole span, with the error Unframe would return for the
// span otherwise. A caller told by an index that a record takes many bytes
// checks the header before it allocates room for them: an index that does
// not match its file is not to size an allocation.
func CheckHeader(h []byte, n int64, name string, off int64) error {
	if len(h) < headerSize || n < headerSize {
		return frameError(ErrTruncated, "", name, off, off, 0)
	}
	length := binary.LittleEndian.Uint64(h)
	if MaskedCRC(h[:8]) != binary.LittleEndian.Uint32(h[8:]) {
		return frameError(ErrCorrupt, damageHeader, name, off, off, 0)
	}
	if n < Overhead || length > uint64(n-Overhead) {
		return frameError(ErrTruncated, "", name, off, off, length)
	}
	if uint64(n) != Overhead+length {
		// The framing is sound; the span the caller read is not the
		// record's (an index made for another version of the file).
		e := frameError(ErrCorrupt, "", name, off, off, length)
		e.Err.(*RecordError).Cause = fmt.Errorf("the record takes %d bytes, not the %d given for it", Overhead+length, n)
		return e
	}
	return nil
}

// frameError is the error of the record at off of file name: kind, found
// at at in the part named.
func frameError(kind error, part, name string, off, at int64, length uint64) *dataerr.Error {
	return &dataerr.Error{File: name, Offset: off, Record: -1,
		Err: &RecordError{Err: kind, At: at, Part: part, Length: length, start: off}}
}
