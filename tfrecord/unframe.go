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
	bad := func(kind error, part string, at int64, length uint64) *dataerr.Error {
		return &dataerr.Error{File: name, Offset: off, Record: -1,
			Err: &RecordError{Err: kind, At: at, Part: part, Length: length, start: off}}
	}
	if len(b) < headerSize {
		return nil, bad(ErrTruncated, "", off, 0)
	}
	length := binary.LittleEndian.Uint64(b)
	if MaskedCRC(b[:8]) != binary.LittleEndian.Uint32(b[8:]) {
		return nil, bad(ErrCorrupt, damageHeader, off, 0)
	}
	if length > uint64(len(b)-headerSize-footerSize) || len(b) < headerSize+footerSize {
		return nil, bad(ErrTruncated, "", off, length)
	}
	if uint64(len(b)) != headerSize+length+footerSize {
		// The framing is sound; the span the caller read is not the
		// record's (an index made for another version of the file).
		e := bad(ErrCorrupt, "", off, length)
		e.Err.(*RecordError).Cause = fmt.Errorf("the record takes %d bytes, the %d read for it more", headerSize+length+footerSize, len(b))
		return nil, e
	}
	data := b[headerSize : headerSize+length]
	if MaskedCRC(data) != binary.LittleEndian.Uint32(b[headerSize+length:]) {
		return nil, bad(ErrCorrupt, damageData, off+headerSize, length)
	}
	return data, nil
}
