package recordio

import (
	"fmt"

	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tfrecord"
)

// settings gathers the options of the readers.
type settings struct {
	name            string
	skipHeaderLines int
	recordBytes     int
	headerBytes     int
	footerBytes     int
	hopBytes        int
	compression     tfrecord.Compression
	detect          bool  // DetectCompression
	maxRecord       int64 // MaxRecordSize's n, for text lines; 0: the default
	recordOpts      []tfrecord.Option
	shard           shard
}

// An Option configures a reader. Options a format has no use for are
// ignored, so one option list can serve Open for any format.
type Option func(*settings)

// Name names the reader in error messages, which then read
// "<Kind> '<name>'" as TensorFlow's do. The default name is the kind.
func Name(name string) Option { return func(s *settings) { s.name = name } }

// SkipHeaderLines makes a TextLine reader skip the first n lines of every
// file.
func SkipHeaderLines(n int) Option { return func(s *settings) { s.skipHeaderLines = n } }

// RecordBytes sets a FixedLengthRecord reader's record size, for Open;
// NewFixedLengthRecordReader takes it as an argument.
func RecordBytes(n int) Option { return func(s *settings) { s.recordBytes = n } }

// HeaderBytes makes a FixedLengthRecord reader skip n bytes at the start
// of every file.
func HeaderBytes(n int) Option { return func(s *settings) { s.headerBytes = n } }

// FooterBytes makes a FixedLengthRecord reader ignore n bytes at the end
// of every file.
func FooterBytes(n int) Option { return func(s *settings) { s.footerBytes = n } }

// HopBytes sets how far a FixedLengthRecord reader moves from one record's
// start to the next; 0 (the default) means the record size.
func HopBytes(n int) Option { return func(s *settings) { s.hopBytes = n } }

// Compression sets how every file is compressed: for a FixedLengthRecord
// reader (TensorFlow's encoding attribute: ZLIB or GZIP, and ZSTD as an
// extension) the sizes then count uncompressed bytes; for a TFRecord reader opened with Open it is
// the compression_type (NewTFRecordReader takes it as an argument); a
// TextLine reader decompresses its files, ZSTD included, and counts their
// lines' offsets in the decompressed text. One
// name serves both, as one type, tfrecord.Compression, does.
func Compression(c tfrecord.Compression) Option { return func(s *settings) { s.compression = c } }

// DetectCompression makes a TFRecord reader take each file's compression
// from the file's first bytes (tfrecord.DetectCompression) in place of the
// one it was given, so that files of mixed compression share one reader,
// as they share one data set of package sluice. TensorFlow's
// TFRecordReader takes one compression_type for all its files.
func DetectCompression() Option { return func(s *settings) { s.detect = true } }

// SkipCorrupt makes a TFRecord reader skip corrupt records and count them
// (Reader.NumRecordsSkipped) instead of failing, which is the default as
// in TensorFlow. Truncated files and undecodable compressed streams still
// fail: nothing valid can follow them. See tfrecord.SkipCorrupt.
func SkipCorrupt() Option { return RecordOptions(tfrecord.SkipCorrupt()) }

// SkipCorruptUpTo is SkipCorrupt for at most n corrupt records per file;
// the next one fails the read as it would without skipping.
func SkipCorruptUpTo(n int64) Option { return RecordOptions(tfrecord.SkipCorruptUpTo(n)) }

// MaxRecordSize sets the largest record a TFRecord reader accepts (a
// longer length field fails the read with an error wrapping
// tfrecord.ErrTooLarge) and the longest line a TextLine reader does (a
// longer line fails it with an error wrapping ErrLineTooLong), and the
// largest record and footer a FixedLengthRecord reader is made for (a
// longer one is an error wrapping queue.ErrInvalidArgument). The default
// is tfrecord.DefaultMaxRecordSize (2 GiB); see tfrecord.MaxRecordSize.
func MaxRecordSize(n int64) Option {
	return func(s *settings) {
		s.maxRecord = n
		s.recordOpts = append(s.recordOpts, tfrecord.MaxRecordSize(n))
	}
}

// RecordOptions passes options to a TFRecord reader's tfrecord.Reader,
// for example tfrecord.SkipDataCRC() or tfrecord.MaxRecordSize(n).
func RecordOptions(opts ...tfrecord.Option) Option {
	return func(s *settings) { s.recordOpts = append(s.recordOpts, opts...) }
}

// Shard makes a reader keep only the records whose position in their unit
// is index modulo count (positions counted from 0), so that count readers
// given the same units, each with its own index, together read every
// record exactly once. It is for splitting one file among workers; to
// split a list of files, shard the producer instead (input.Shard), which
// does not read the records it skips. count must be positive and
// 0 <= index < count.
func Shard(index, count int) Option {
	return func(s *settings) { s.shard = shard{index: index, count: count, set: true} }
}

// shard is a reader's record shard.
type shard struct {
	index, count int
	set          bool
}

// check validates the shard in TensorFlow's words for Dataset.shard.
func (s shard) check() error {
	switch {
	case !s.set:
		return nil
	case s.count <= 0:
		return fmt.Errorf("Number of shards must be greater than zero (currently num_shards = %d): %w", s.count, queue.ErrInvalidArgument)
	case s.index < 0 || s.index >= s.count:
		return fmt.Errorf("Index must be between 0 and %d (currently index = %d): %w", s.count-1, s.index, queue.ErrInvalidArgument)
	}
	return nil
}

// keeps reports whether the record at position n of its unit is in the
// shard.
func (s shard) keeps(n int64) bool {
	return !s.set || s.count <= 1 || n%int64(s.count) == int64(s.index)
}

func newSettings(opts []Option) *settings {
	s := &settings{}
	for _, o := range opts {
		o(s)
	}
	return s
}

// nonNegative checks TensorFlow's attribute rule, in its words.
func nonNegative(attrs ...any) error {
	for i := 0; i < len(attrs); i += 2 {
		if v := attrs[i+1].(int); v < 0 {
			return fmt.Errorf("recordio: %s must be >= 0 not %d: %w", attrs[i], v, queue.ErrInvalidArgument)
		}
	}
	return nil
}
