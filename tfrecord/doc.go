// Package tfrecord reads and writes TFRecord files, the record framing of
// TensorFlow's TFRecordWriter, TFRecordReader and TFRecordDataset.
//
// A TFRecord stream is a sequence of records with no file header or trailer.
// Each record is framed as
//
//	uint64 length        little-endian
//	uint32 masked CRC-32C of the 8 length bytes
//	[length]byte data
//	uint32 masked CRC-32C of the data
//
// so every record costs 16 bytes of overhead and an empty stream holds zero
// records. The CRC is CRC-32C (Castagnoli), masked as TensorFlow masks it
// (see [Mask]) so that a CRC stored inside checksummed data does not
// checksum to a constant.
//
// With ZLIB or GZIP compression (and ZSTD, a sluice extension) the whole
// stream is compressed and the framing lives inside
// it; record offsets, as [Reader.Offset] reports them and as TensorFlow
// forms its "file:offset" keys, count bytes of the uncompressed stream.
//
// A [Reader] verifies both CRCs by default and reports bad input as a
// [*dataerr.Error] naming the file and the record's byte offset, whose Err
// is a [*RecordError] (what was damaged) wrapping one of the sentinels
// [ErrCorrupt], [ErrTruncated] or [ErrTooLarge]; every such error also
// matches [ErrDataLoss], TensorFlow's status code for them.
// The reader never allocates memory for a length field it has not seen
// data for: it checks the claim against the input's size when that is
// known (an uncompressed file) and otherwise grows its buffer in steps as
// bytes actually arrive. [MaxRecordSize] refuses records too large to
// hold, such as a decompression bomb's.
//
// A [Writer] produces exactly the bytes TensorFlow's TFRecordWriter
// produces for the uncompressed stream. Compressed output is readable by
// TensorFlow but not byte-identical to it, since TensorFlow uses zlib's
// deflate and this package uses a different (faster) implementation.
//
// The package uses the standard library, github.com/klauspost/compress and
// sluice's dataerr only; it knows nothing about files, queues or Example protos.
package tfrecord
