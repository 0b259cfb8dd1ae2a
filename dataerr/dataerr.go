// Package dataerr defines the one description of where bad data is that
// every sluice package uses, so that a caller finds the file, the byte
// offset, the record's index in its batch and the record's key in one
// place, whichever layer noticed the damage:
//
//	var e *dataerr.Error
//	if errors.As(err, &e) {
//		log.Printf("bad record in %s at byte %d (key %q)", e.File, e.Offset, e.Key)
//	}
//
// Each layer fills in what it knows: the TFRecord framing knows the file
// and the offset, a decoder knows the record's index in the batch and its
// key, and the layer that knows a record's origin (the recordio readers,
// the sluice package) completes the same value with [Error.Fill] on its
// way up. What went wrong is Err: a sentinel, or a package's own detail
// type (tfrecord.RecordError, example.ParseError, decode.CSVError, ...)
// that errors.As reaches through the Error.
//
// The model is go/token.Position plus encoding/csv.ParseError: a position
// and the error found there. dataerr imports only the standard library,
// so every layer can use it.
package dataerr

import (
	"strconv"
	"strings"
)

// An Error is bad data and where it is. An Offset or Record that is not
// known is -1, a Line 0 (as in go/token.Position), a name "".
type Error struct {
	// File is the file (or object URL) the data came from.
	File string
	// Offset is the byte offset in File of the start of the record, or of
	// the damage when there is no record, counted in the decompressed
	// stream when File is compressed.
	Offset int64
	// Line is the 1-based line number in File, for text; 0 otherwise.
	Line int64
	// Record is the record's index: in its batch for a decoder's error,
	// in its file for a file format whose records are numbered (MNIST's
	// images, CIFAR-10's records, fixed-length records, Parquet rows); -1 for damage
	// outside any record, such as a file header.
	Record int64
	// Key is the record's key as the reader gave it (TensorFlow's
	// "file:offset", "file:line" or "file:index"), or "".
	Key string
	// Err is what is wrong.
	Err error
}

// Error returns Err's text after the place it is: the record's key when
// there is one (TensorFlow's keys already name the file and the offset,
// line or index), else the file, with ":line" for text. A key that Err's
// text already contains is not repeated: TensorFlow's messages about a
// record begin with its name ("Name: <key>, ...").
func (e *Error) Error() string {
	var msg string
	if e.Err != nil {
		msg = e.Err.Error()
	} else {
		msg = "bad data"
	}
	var b []byte
	switch {
	case e.Key != "":
		if strings.Contains(msg, e.Key) {
			return msg
		}
		b = append(b, e.Key...)
	case e.File != "":
		b = append(b, e.File...)
		if e.Line > 0 {
			b = append(b, ':')
			b = strconv.AppendInt(b, e.Line, 10)
		}
	}
	if len(b) > 0 {
		b = append(b, ": "...)
	}
	return string(append(b, msg...))
}

// Unwrap returns Err.
func (e *Error) Unwrap() error { return e.Err }

// Fill sets the fields of e that are unknown from o's, and returns e: the
// layer that knows a record's origin completes the error a lower layer
// returned, on the same value.
func (e *Error) Fill(o Error) *Error {
	if e.File == "" {
		e.File = o.File
	}
	if e.Offset < 0 {
		e.Offset = o.Offset
	}
	if e.Line <= 0 && o.Line > 0 {
		e.Line = o.Line
	}
	if e.Record < 0 {
		e.Record = o.Record
	}
	if e.Key == "" {
		e.Key = o.Key
	}
	return e
}
