// Package sluice reads training data: files in, named batches out.
//
// A Dataset describes files of records and how to decode them: Examples
// for TFRecord files of tf.train.Example protos parsed by an example.Spec
// (each file's compression detected from its first bytes; DecodeImage
// turns an encoded image feature into pixels), SequenceExamples for
// tf.train.SequenceExample protos (context features and feature lists,
// padded per batch, with each record's steps), Records for TFRecord
// records as they are, CSV for text files of comma-separated values
// (plain, GZIP or ZSTD), FixedLengthRecords for binary files of
// fixed-size records such as CIFAR-10's. Files are named by a path or glob
// pattern, local or in an object store (see package storage), and Files
// adds more; a name that is a file is that file even when it holds glob
// characters (weird[v1].tfrecord), as storage.Match takes it. Batches runs
// the pipeline for one range loop:
//
//	spec := example.Spec{
//		"image": example.FixedLen(tensor.Float32, 784),
//		"label": example.FixedLen(tensor.Int64),
//	}
//	ds := sluice.Examples("data/train-*.tfrecord.gz", spec,
//		sluice.Epochs(2), sluice.Shuffle(10000), sluice.Seed(42))
//	for b, err := range ds.Batches(ctx, 128) {
//		if err != nil {
//			return err // the first error of any stage, with the file and offset
//		}
//		train(b.Float32("image"), b.Int64("label"))
//	}
//
// # Names
//
// A batch's features are named by the source's declaration (the spec's
// keys, the CSV columns, the record fields) and read by name with typed
// accessors: b.Float32("image") is a []float32 of Len() rows. Nothing is
// matched by position, so nothing can be mislabelled. A name the source did
// not declare, or a type other than the feature's, panics with a message
// naming the feature, as a failed type assertion does: both are fixed by
// the program, so the mistake shows the first time the line runs. Sparse
// features (VarLen, SparseFeature) are read with Sparse, or padded to the
// longest record of the batch by Dense and the typed accessors.
//
// # Defaults
//
// One epoch (Epochs, Forever); one reader per GOMAXPROCS (Readers); no
// shuffling (Shuffle shuffles records through a buffer and files per
// epoch, ShuffleFiles only files); a smaller last batch that holds what is
// left, so every record is delivered (DropRemainder drops it, as
// TensorFlow's queue batchers do by default; sluice prefers not to lose
// data silently). Every record of every epoch is delivered exactly once.
//
// # Lifetimes
//
// The goroutines that read and decode live as long as the loop: they end
// when the input ends, at the first error, when the context is cancelled,
// or when the loop body breaks out, and none is left running after the
// loop. A batch is valid until the loop's next iteration, since later
// batches are written into its memory (KeepBatches, Batch.Clone).
//
// # Speed
//
// Each reader goroutine compiles its parser once, reads a batch of records
// into a reused buffer, parses them in one call into the tensors of a
// batch it reused and hands the whole batch on, so that a record is copied
// once and no per-record value crosses a queue. With Shuffle, serialized
// records go through a RandomShuffle queue and are parsed in batches as
// they leave it (TensorFlow's shuffle_batch of serialized records followed
// by parse_example); each record's buffer is reused once it is parsed. The
// keys of TFRecords ("file:offset") are formed only to name a record in an
// error.
//
// # Errors
//
// Bad data ends the loop with an error holding one [*dataerr.Error]:
// errors.As finds the file, the byte offset (the line, for CSV), the
// record's index in its batch and its key in one place, whichever layer
// found the damage; errors.Is finds that layer's sentinel
// (tfrecord.ErrDataLoss, example.ErrMalformed, decode.ErrCSV, ...).
// Options and arguments out of range wrap [ErrInvalid].
//
//	var bad *dataerr.Error
//	if errors.As(err, &bad) {
//		log.Printf("skip %s at byte %d (record %q)", bad.File, bad.Offset, bad.Key)
//	}
//
// # Relation to the TensorFlow-faithful layer
//
// This package is built from the packages that rebuild TensorFlow 1.x's
// input pipeline: input's Pipeline and string_input_producer (epochs, file
// shuffling, sharding), recordio's readers, queue's FIFO and RandomShuffle
// queues, coord's queue runners and Coordinator (stop, join, the first
// error). Those packages keep TensorFlow's names and semantics for code
// ported from TensorFlow 1.x and for pipelines with stages of their own
// (bucketing, the state saver, resampling); this package is the short way
// for the common case.
package sluice
