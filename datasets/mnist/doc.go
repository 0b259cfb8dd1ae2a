// Package mnist reads and writes the IDX files in which MNIST is
// distributed (and Fashion-MNIST and EMNIST, which use the same layout).
//
// An IDX file is a big-endian header followed by the data:
//
//	images: 0x00000803, count, rows, cols (uint32 each), then count×rows×cols pixel bytes
//	labels: 0x00000801, count (uint32 each), then count label bytes
//
// The files are often kept gzip-compressed (train-images-idx3-ubyte.gz);
// every reader here detects gzip by its magic bytes and decompresses it,
// whatever the file is called.
//
// Counts in a header are never trusted: ReadImages and ReadLabels grow
// their buffers only as data arrives, and report a file whose length does
// not match its header — shorter or longer — as a *dataerr.Error naming the
// file, the byte offset (of the decompressed stream) and the image or label
// index. A header is refused (datasets.ErrHeader) when its magic number is
// another kind's, which is checked before the rest of the header is read,
// or when it declares more data than 2^40 bytes or an int holds, counting
// one image's size on its own so that a count of 0 cannot hide impossible
// dimensions: the dimensions the readers return always multiply without
// overflow, on 32-bit platforms too. Bytes after a gzip stream that do not
// start another gzip member are trailing data (datasets.ErrTrailingData),
// not truncation. ImageReader streams images one at a time through one
// reused buffer.
//
// TensorFlow's convert_to_records.py turns MNIST into tf.train.Example
// records with the features height, width, depth (int64), label (int64) and
// image_raw (bytes: the rows×cols×1 uint8 pixels); the Feature* constants
// name them, so a converter writes Examples that TensorFlow's
// fully_connected_reader.py reads back.
package mnist
