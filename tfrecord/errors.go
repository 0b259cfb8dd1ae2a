package tfrecord

import (
	"errors"
	"fmt"

	"github.com/sluiceml/sluice/dataerr"
)

// Sentinel errors. Bad input is reported as a [*dataerr.Error] holding a
// [*RecordError] that wraps one of
// ErrCorrupt, ErrTruncated or ErrTooLarge; each of those also matches
// ErrDataLoss, so errors.Is(err, ErrDataLoss) asks "is the data bad?"
// the way TensorFlow's DataLoss status code does.
var (
	// ErrDataLoss matches every error about bad data in the stream.
	ErrDataLoss = errors.New("data loss")
	// ErrCorrupt reports a CRC mismatch or an undecodable compressed
	// stream (TensorFlow: "corrupted record at <offset>").
	ErrCorrupt = errors.New("corrupted record")
	// ErrTruncated reports a stream that ends inside a record header,
	// inside a record's data, or inside its compressed form (TensorFlow:
	// "truncated record at <offset>").
	ErrTruncated = errors.New("truncated record")
	// ErrTooLarge reports a length field above the reader's maximum record
	// size (TensorFlow: "record size too large").
	ErrTooLarge = errors.New("record size too large")
	// ErrUnknownCompression reports a compression name ParseCompression
	// does not know.
	ErrUnknownCompression = errors.New("unknown compression type")
)

// Kinds of damage a RecordError can describe; they refine the sentinel.
const (
	damageHeader     = "length" // length CRC mismatch: framing lost
	damageData       = "data"   // data CRC mismatch: next record intact
	damageCompressed = "compressed"
)

// A RecordError is what is wrong with one record of a TFRecord stream.
// The Reader returns it as the Err of a [*dataerr.Error] that says where:
// the file (the name given with WithName) and the byte offset, in the
// uncompressed stream, of the start of the record, which is what
// TensorFlow puts in a record key. errors.As reaches either.
type RecordError struct {
	Err error // ErrCorrupt, ErrTruncated or ErrTooLarge
	// At is the offset TensorFlow's message prints: the record's start,
	// except for a data CRC mismatch, where it is the start of the data
	// (12 bytes further).
	At int64
	// Part says what was damaged for ErrCorrupt: "length" (the length
	// CRC; framing is lost), "data" (the data CRC; the next record is
	// intact) or "compressed" (the decompressor failed). Empty otherwise.
	Part string
	// Length is the record's length field, when it was read and trusted.
	Length uint64
	// Limit is the largest length the reader accepted, for ErrTooLarge.
	Limit uint64
	// Cause is the underlying error, such as the decompressor's, or nil.
	Cause error
	start int64 // the record's start, which a data CRC message names
}

// Error returns TensorFlow's message ("corrupted record at <offset>",
// DECODERS "TFRecord framing") with what sluice knows besides.
func (e *RecordError) Error() string {
	var msg string
	switch {
	case e.Err == ErrTooLarge:
		msg = fmt.Sprintf("record size too large (%d bytes, more than the limit of %d) at %d", e.Length, e.Limit, e.At)
	case e.Part == damageCompressed:
		msg = fmt.Sprintf("%v at %d (in compressed stream)", e.Err, e.At)
	case e.Part == damageData:
		msg = fmt.Sprintf("%v at %d (data CRC mismatch in record at %d)", e.Err, e.At, e.start)
	case e.Part == damageHeader:
		msg = fmt.Sprintf("%v at %d (length CRC mismatch)", e.Err, e.At)
	default:
		msg = fmt.Sprintf("%v at %d", e.Err, e.At)
	}
	if e.Cause != nil {
		msg += ": " + e.Cause.Error()
	}
	return msg
}

// Unwrap returns the sentinel, ErrDataLoss and the cause, so errors.Is and
// errors.As see all three.
func (e *RecordError) Unwrap() []error {
	if e.Cause != nil {
		return []error{e.Err, ErrDataLoss, e.Cause}
	}
	return []error{e.Err, ErrDataLoss}
}

// recordError returns the *dataerr.Error, at the record that starts at
// start, of the given damage.
func (r *Reader) recordError(kind error, part string, start, at int64, length uint64) *dataerr.Error {
	re := &RecordError{Err: kind, At: at, Part: part, Length: length, start: start}
	return &dataerr.Error{File: r.cfg.name, Offset: start, Record: -1, Err: re}
}
