// Package cifar10 reads and writes the binary versions of CIFAR-10 and
// CIFAR-100, and any fixed-length record layout like theirs.
//
// A CIFAR-10 binary file (data_batch_1.bin … test_batch.bin) is a sequence
// of 3073-byte records with no header or footer: one label byte (0–9), then
// a 32×32×3 image in channel-major order — 1024 red bytes, 1024 green, 1024
// blue, each plane row-major. CIFAR-100 has two label bytes, coarse (0–19)
// then fine (0–99). TensorFlow's CIFAR-10 tutorial reads these files with
// FixedLengthRecordReader(record_bytes=3073), slices the label off, reshapes
// the rest to [3, 32, 32] and transposes it to [32, 32, 3] (height, width,
// channels); Layout.Decode does the same, and RecordBytes is the reader's
// record_bytes. A label outside its classes, the coarse one of CIFAR-100
// included, is an error (datasets.ErrLabel), not a silently wrong class.
//
// A Layout describes any "label bytes + channel-major image" record of any
// height, width and depth, so a program can write its own images in this
// format and read them back through a fixed-length record reader.
package cifar10
