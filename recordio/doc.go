// Package recordio turns work units from a queue — normally file names —
// into records: TensorFlow's ReaderBase and its five readers, TFRecord,
// TextLine, FixedLengthRecord, WholeFile and Identity.
//
// A Reader takes a unit from its queue (a queue.Queue of scalar strings)
// when it has none in progress, opens it, and returns its records one at a
// time as (key, value) pairs, moving on to the next unit inside the same
// call when one ends, so empty files leave no gap. When the queue is closed
// and drained, Read returns the queue's end-of-input error, for which
// errors.Is(err, io.EOF) holds; every blocking call takes a context and
// returns when it ends. Keys are TensorFlow's: "file:offset" for TFRecord
// (the offset in the uncompressed stream), "file:line" for text lines
// (from 1), "file:index" for fixed-length records (from 0), the file name
// for whole files, the unit itself for Identity. ReadUpTo returns batches
// that never mix two units; ReadValue reads a record without making its
// key, for callers that do not name records.
//
// # Formats
//
// A file format is a Format: four hooks that open a unit, read one record,
// close the unit and reset, called under the reader's lock, as TensorFlow
// calls OnWorkStartedLocked, ReadLocked, OnWorkFinishedLocked and
// ResetLocked. The Reader does the rest: taking work from the queue,
// counting records and units, ReadUpTo, and saving and restoring state.
// Formats are registered by name (Register) so that Open can make a
// reader of a format chosen at run time; the built-in ones go by
// TensorFlow's names, such as "TFRecordReader". Their formats are not
// exported: a reader of a built-in format is made by its constructor
// (NewTFRecordReader, ...) or by Open, and a custom format, a type of
// one's own, is given to NewReader or Register. The package example below
// is a complete custom format.
//
// # State
//
// SerializeState returns TensorFlow's ReaderBaseState protocol buffer:
// units started (field 1) and finished (2), records produced (3) and the
// current unit (4), byte for byte as TensorFlow writes them. A state
// saved between units restores in TensorFlow and the other way round.
// TensorFlow can restore only Identity and WholeFile readers and never
// inside a unit; in sluice every built-in format implements Positioner,
// and a state saved inside a unit also carries the format's position there
// (field 16, which TensorFlow's parser would keep as an unknown field), so
// RestoreState reopens the unit and resumes at the exact next record.
//
// # Errors
//
// A unit that cannot be opened fails one read with an error naming it;
// it does not count as started, and the next read takes the next unit.
// Bad data fails the read with a [*dataerr.Error] naming the file and the
// byte offset (and, for fixed-length records, the record's index and key);
// the reader fills in the file where the format did not. A TFRecord file's
// corrupt record is one holding a *tfrecord.RecordError (errors.Is
// tfrecord.ErrDataLoss); SkipCorrupt and SkipCorruptUpTo skip such records
// instead and NumRecordsSkipped counts them. A fixed-length file shorter
// than its header is one wrapping ErrShortHeader. Bad options and work queues
// wrap [queue.ErrInvalidArgument], bad states ErrState.
//
// Where sluice departs from TensorFlow 2.21 (checked by
// tools/tfref/readers.py): WholeFileReader fails once for a missing file
// instead of on every later read; a fixed-length file shorter than its
// header fails with ErrShortHeader rather than an OutOfRange error that
// read loops take for the end of input; ReadUpTo returns the records read
// before an error instead of dropping them; and RestoreState rejects a
// state with more units finished than started, which TensorFlow accepts.
//
// # Contexts
//
// Each call's context governs that call. A unit's file lives as long as
// the unit, not as long as the Read that opened it, so a context per call
// (a timeout each) works as well as one for the whole reading. On an
// object store, whose reads block on the network, the end of a Read's
// context ends the read in progress: the Read returns the context's error,
// and the next Read reopens the unit where the cut-off one began, so no
// record is lost or repeated. A unit whose open a context cut off is
// opened again by the next Read rather than dropped.
//
// # Writing
//
// ShardedWriter is the other direction: it deals records round-robin into
// TFRecord files named in TensorFlow's prefix-00000-of-00004 convention
// (ShardNames), through package storage, so a data set written once can
// be read by many readers, on one machine or many.
package recordio
