// Package recordhook gives the module root (package sluice) the formats
// that package recordio keeps from its users: TFRecord files with each
// file's compression detected, text lines and fixed-length records, all
// returning records without keys and telling their position only when asked, which saves an
// allocation per record where keys are wanted only to name a bad record.
//
// Package recordio sets the three constructors when it is
// initialised, so they are set before any package that imports recordio
// runs.
package recordhook

import (
	"context"

	"github.com/sluiceml/sluice/tfrecord"
)

// A Format is a recordio.Format that also tells where the last record it
// read comes from. Its first four methods are recordio.Format's, which
// this package cannot name (recordio imports it), so a Format can be
// given to recordio.NewReader.
type Format interface {
	OnWorkStarted(ctx context.Context, work string) error
	Read(ctx context.Context) (key string, value []byte, produced, atEnd bool, err error)
	OnWorkFinished() error
	Reset() error

	// Work returns the name of the file the last record read came from.
	Work() string
	// Offset returns where in its file the last record read is: the
	// offset in the uncompressed stream of a TFRecord, the number of a
	// line, the index of a fixed-length record.
	Offset() int64

	// Position returns the position of the next record of the open file,
	// for Seek.
	Position() ([]byte, error)
	// Seek opens work positioned at pos, a value Position returned for
	// that work or PositionOf made.
	Seek(ctx context.Context, work string, pos []byte) error
	// PositionOf returns the position, for Seek, of the record whose
	// Offset is offset, if the format can go to it without reading the
	// file from its start (text lines cannot: ok is false).
	PositionOf(offset int64) (pos []byte, ok bool)

	// Watch makes the end of ctx end the open file's reads in flight, for
	// a file on an object store, whose reads do not take a context: a
	// Read stalled on the network then returns when its caller gives up.
	// Call stop when the Read is done. recordio.Reader does this itself;
	// a caller of Read without one must. For a local file it costs a
	// call.
	Watch(ctx context.Context) (stop func() bool)
}

// NewTFRecordFormat returns a new Format of TFRecord files, read with
// opts, that chooses each file's compression from the file's first bytes
// (tfrecord.DetectCompression) and returns every record with an empty
// key: Work and Offset give its position.
var NewTFRecordFormat func(opts []tfrecord.Option) Format

// NewFixedLengthFormat returns a new Format of files of fixed-length
// records (recordio.NewFixedLengthRecordReader's, with its HeaderBytes,
// FooterBytes and Compression) that returns every record with an empty
// key: Work and Offset (the record's index in its file) give its
// position. It fails on sizes or a compression that reader refuses.
var NewFixedLengthFormat func(recordBytes, headerBytes, footerBytes int, c tfrecord.Compression) (Format, error)

// NewTextLineFormat returns a new Format of text files that skips
// skipHeaderLines lines of every file and returns every line with an
// empty key: Work and Offset (the line's number) give its position.
var NewTextLineFormat func(skipHeaderLines int) Format

// WatchUnits makes r, a *recordio.Reader, call done each time it reads a
// unit to its end, with the unit and the number of records its format
// produced there; an error done returns is that read's. The front door
// learns so that an endless run's files hold no record. Package recordio
// sets it.
var WatchUnits func(r any, done func(work string, records int64) error)
