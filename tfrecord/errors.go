package tfrecord

import (
	"errors"
	"fmt"
)

// Sentinel errors. Bad input is reported as a [*RecordError] wrapping one of
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

// A RecordError describes bad data at one record of a TFRecord stream.
//
// Offset is the byte offset, in the uncompressed stream, of the start of
// the record being read; it is what TensorFlow puts in a record key. At is
// the offset TensorFlow's message prints, which differs from Offset for a
// data CRC mismatch (Offset + 12, where the data begins).
type RecordError struct {
	Name   string // file name given with Name; may be empty
	Offset int64  // start of the record in the uncompressed stream
	At     int64  // offset as TensorFlow reports it
	Err    error  // ErrCorrupt, ErrTruncated or ErrTooLarge
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
}

func (e *RecordError) Error() string {
	var msg string
	switch {
	case e.Err == ErrTooLarge:
		msg = fmt.Sprintf("record size too large (%d bytes, more than the limit of %d) at %d", e.Length, e.Limit, e.At)
	case e.Part == damageCompressed:
		msg = fmt.Sprintf("%v at %d (in compressed stream)", e.Err, e.At)
	case e.Part == damageData:
		msg = fmt.Sprintf("%v at %d (data CRC mismatch in record at %d)", e.Err, e.At, e.Offset)
	case e.Part == damageHeader:
		msg = fmt.Sprintf("%v at %d (length CRC mismatch)", e.Err, e.At)
	default:
		msg = fmt.Sprintf("%v at %d", e.Err, e.At)
	}
	if e.Cause != nil {
		msg += ": " + e.Cause.Error()
	}
	if e.Name != "" {
		return "tfrecord: " + e.Name + ": " + msg
	}
	return "tfrecord: " + msg
}

// Unwrap returns the sentinel, ErrDataLoss and the cause, so errors.Is and
// errors.As see all three.
func (e *RecordError) Unwrap() []error {
	if e.Cause != nil {
		return []error{e.Err, ErrDataLoss, e.Cause}
	}
	return []error{e.Err, ErrDataLoss}
}
