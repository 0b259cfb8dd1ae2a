package sluice

import (
	"time"

	"github.com/sluiceml/sluice/internal/batchhook"
	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tfrecord"
)

// Options are typed by the kind of thing they configure, so that an option
// passed where it means nothing does not compile: SkipHeaderLines belongs to
// CSV, HeaderBytes to FixedLengthRecords, DropRemainder to Batches. The
// options every source takes (Epochs, Readers, Shuffle, Seed, ...) are of
// type Option, which is all three source option kinds at once.

// settings are the options every source shares.
type settings struct {
	files        []string
	epochs       int // 0: one epoch
	epochsSet    bool
	forever      bool
	readers      int // 0: GOMAXPROCS
	shuffle      int // record shuffle buffer (min_after_dequeue); 0: none
	shuffleFiles bool
	seed         uint64
	seeded       bool
	shard        [2]int // index, count; count 0: no sharding
	skipCorrupt  bool

	deterministic bool
	globalShuffle bool
	shardSet      bool // a Shard(i, 0) from an unset world size is an error, not no sharding

	names queue.Queue // FilenameQueue's; nil: the files, by a producer of its own

	grace time.Duration // GracePeriod's; 0: the pipeline's default
}

// An ExampleOption configures Examples.
type ExampleOption interface{ applyExample(*exampleSettings) }

// A CSVOption configures CSV.
type CSVOption interface{ applyCSV(*csvSettings) }

// A RecordOption configures FixedLengthRecords.
type RecordOption interface{ applyRecord(*recordSettings) }

// An Option configures any source: it is an ExampleOption, a CSVOption and
// a RecordOption.
type Option interface {
	ExampleOption
	CSVOption
	RecordOption
}

// A BatchOption configures Batches.
type BatchOption interface{ applyBatch(*batchSettings) }

type option func(*settings)

func (o option) applyExample(s *exampleSettings) { o(&s.settings) }
func (o option) applyCSV(s *csvSettings)         { o(&s.settings) }
func (o option) applyRecord(s *recordSettings)   { o(&s.settings) }

// Files adds names or glob patterns to the one a source was given, for a
// list of files: Examples("a.tfrecord", spec, Files("b.tfrecord")). Names
// are local paths or object-store URLs (see package storage); each pattern
// must match at least one file.
func Files(patterns ...string) Option {
	return option(func(s *settings) { s.files = append(s.files, patterns...) })
}

// Epochs makes the data set deliver every record n times, once per epoch
// (TensorFlow's num_epochs). Without it, or with Epochs(1), every record is
// delivered once. n must be at least 1; use Forever to repeat without end.
func Epochs(n int) Option {
	return option(func(s *settings) { s.epochs, s.epochsSet, s.forever = n, true, false })
}

// Forever makes the data set repeat its files without end (TensorFlow's
// num_epochs=None); the loop ends only by break, its context or an error.
// Files that hold no record at all are such an error (ErrInvalid), met
// once each has been read through, where TensorFlow would go round them
// for ever.
func Forever() Option {
	return option(func(s *settings) { s.forever = true })
}

// Readers sets how many goroutines read and decode files in parallel; the
// default (or Readers(0)) is runtime.GOMAXPROCS(0). Each reader reads whole files, so with
// more than one the order of records across files varies from run to run;
// Readers(1) without Shuffle delivers the files' records in order. More
// than 65536 readers is an error (ErrInvalid).
func Readers(n int) Option {
	return option(func(s *settings) { s.readers = n })
}

// GracePeriod sets how long stopping an iteration (Close, the end of its
// context, an error) waits for its reading goroutines before it returns
// without them: two minutes by default, TensorFlow's
// Coordinator.join grace period. Goroutines end as soon as they see the
// stop, unless one is blocked in a call nothing can cancel, a read of a
// FIFO or of a hung network file system; a program about to exit need not
// wait two minutes for it. It bounds the default engine's pipeline, not
// the Deterministic and GlobalShuffle engines, whose goroutines end
// with their reads.
func GracePeriod(d time.Duration) Option {
	return option(func(s *settings) { s.grace = d })
}

// Shuffle shuffles records through a buffer that keeps at least n records
// back until the input ends (a RandomShuffle queue with min_after_dequeue
// n, as TensorFlow's shuffle_batch; with Deterministic, a buffer of n as
// tf.data's shuffle, which keeps n-1 back), and shuffles the order of the
// files in each epoch. Shuffle(0), the default, shuffles nothing. A buffer of
// more than 2^31-1 records, TensorFlow's bound, is an error (ErrInvalid).
func Shuffle(n int) Option {
	return option(func(s *settings) { s.shuffle = n })
}

// ShuffleFiles shuffles the order of the files in each epoch, without
// shuffling records (Shuffle does both).
func ShuffleFiles() Option {
	return option(func(s *settings) { s.shuffleFiles = true })
}

// Seed seeds every shuffle. The files' order in each epoch is then the
// same on every run, and so, with one reader (Readers(1)) and
// ShuffleFiles, is the order of the records. A Shuffle buffer's order
// depends as well on how far the readers have got each time a batch is
// taken from it, as TensorFlow's shuffle_batch's does: for the same
// batches on every run, use Deterministic. Without Seed, shuffles are
// seeded from the clock. Every iteration of the data set (Batches,
// Iterator) starts the same seeded order: a loop that iterates it once an
// epoch sees one order each epoch, where Epochs(n) reshuffles every epoch
// of one iteration (or give each epoch's data set a seed of its own).
func Seed(seed uint64) Option {
	return option(func(s *settings) { s.seed, s.seeded = seed, true })
}

// Shard makes this worker read only its part of the files: worker index of
// count gets files index, index+count, ... of the list sorted by name, so
// count workers together read every file once per epoch, whatever order
// each lists them in. The worker reads its files in the order it lists
// them (shuffled per epoch with Shuffle or ShuffleFiles). With
// GlobalShuffle it splits each epoch's order of the records, numbered in
// the sorted list of files, instead. It needs 0 <= index < count: a count
// of 0 (a world size never set) is an error, not a data set read whole by
// every worker; so is a shard of no file (index at least the number of
// files), both wrapping ErrInvalid.
func Shard(index, count int) Option {
	return option(func(s *settings) { s.shard, s.shardSet = [2]int{index, count}, true })
}

// FilenameQueue makes the data set read the files named by the units it
// dequeues from q, a queue of scalar strings, instead of its own list:
// TensorFlow's shared filename queue, from which workers on several hosts
// (a queue/natsqueue.Queue) or several data sets take distinct files. The
// data set's end of input is q's, so its producer decides the files, their
// order and the epochs: the names given to the source are not read, and
// Epochs, Forever, ShuffleFiles, Shard, Deterministic and GlobalShuffle are
// errors with it. A queue that wants to hear when a file has been read to
// its end (recordio.WorkAcker) hears it. The data set never closes q.
func FilenameQueue(q queue.Queue) Option {
	return option(func(s *settings) { s.names = q })
}

type exampleSettings struct {
	settings
	images  []imageFeature // DecodeImage's
	parquet bool           // Parquet's
}

type csvSettings struct {
	settings
	headerLines int
	csvOpts     []csvDecodeOption
}

type recordSettings struct {
	settings
	headerBytes, footerBytes int
	compression              tfrecord.Compression
}

type exampleOption func(*exampleSettings)

func (o exampleOption) applyExample(s *exampleSettings) { o(s) }

// SkipCorrupt makes Examples skip corrupt TFRecords (a bad CRC) instead of
// failing, which is the default, and Iterator.Skipped count them.
// Truncated files still fail.
func SkipCorrupt() ExampleOption {
	return exampleOption(func(s *exampleSettings) { s.skipCorrupt = true })
}

type csvOption func(*csvSettings)

func (o csvOption) applyCSV(s *csvSettings) { o(s) }

// SkipHeaderLines makes CSV skip the first n lines of every file.
func SkipHeaderLines(n int) CSVOption {
	return csvOption(func(s *csvSettings) { s.headerLines = n })
}

// FieldDelim sets the field separator of CSV, a comma by default.
func FieldDelim(d string) CSVOption {
	return csvOption(func(s *csvSettings) { s.csvOpts = append(s.csvOpts, csvDecodeOption{delim: d}) })
}

// csvDecodeOption is kept as data so that each reader builds its own
// decoder.
type csvDecodeOption struct{ delim string }

type recordOption func(*recordSettings)

func (o recordOption) applyRecord(s *recordSettings) { o(s) }

// HeaderBytes makes FixedLengthRecords skip n bytes at the start of every
// file.
func HeaderBytes(n int) RecordOption {
	return recordOption(func(s *recordSettings) { s.headerBytes = n })
}

// FooterBytes makes FixedLengthRecords ignore n bytes at the end of every
// file.
func FooterBytes(n int) RecordOption {
	return recordOption(func(s *recordSettings) { s.footerBytes = n })
}

// Compression makes FixedLengthRecords decompress each file with c first
// (TensorFlow's encoding attribute); sizes then count uncompressed bytes.
func Compression(c tfrecord.Compression) RecordOption {
	return recordOption(func(s *recordSettings) { s.compression = c })
}

type batchSettings struct {
	dropRemainder bool
	keep          bool
	resume        []byte
	alloc         batchhook.Allocator // memory to decode into, for sluice-serve
	check         batchhook.Check     // run on each batch decoded, for sluice-serve
}

func init() {
	batchhook.Option = func(a batchhook.Allocator) any {
		return batchOption(func(s *batchSettings) { s.alloc = a })
	}
	batchhook.CheckOption = func(c batchhook.Check) any {
		return batchOption(func(s *batchSettings) { s.check = c })
	}
}

type batchOption func(*batchSettings)

func (o batchOption) applyBatch(s *batchSettings) { o(s) }

// DropRemainder drops the last batch of the input when it is smaller than
// the batch size (TensorFlow's default for its queue batchers, tf.data's
// drop_remainder=True), for models that need one fixed batch shape.
// Without it the last batch holds what is left, so every record is
// delivered.
func DropRemainder() BatchOption {
	return batchOption(func(s *batchSettings) { s.dropRemainder = true })
}

// KeepBatches gives every batch memory of its own, so that the loop may
// keep batches (and the slices read from them) after its iteration. By
// default a batch is valid only until the loop's next iteration, as
// bufio.Scanner's Bytes is until the next Scan: the pipeline writes later
// batches into the memory of earlier ones, which saves allocating and
// clearing every batch — more than half the CPU time of reading MNIST-like
// Examples. Batch.Clone keeps a single batch.
//
// A batch per step is garbage at a rate Go's collector, sized by a small
// live heap, meets by collecting hundreds of times a second: a program that
// keeps batches runs about twice as fast with GOGC=off and GOMEMLIMIT set
// to a few times the data in flight (see the README's Performance section).
func KeepBatches() BatchOption {
	return batchOption(func(s *batchSettings) { s.keep = true })
}

// Resume makes an Iterator (or Batches) of a Deterministic data set go on
// from a checkpoint that Iterator.Checkpoint returned, delivering exactly
// the batches that the iteration which saved it would have delivered
// next. The data set must have the options, and its files the sizes, it
// had then; otherwise the iteration fails with an error wrapping
// ErrCheckpoint that names what changed. Options without effect on the
// order are not compared: Shuffle and ShuffleFiles with GlobalShuffle, and
// Seed when nothing is shuffled.
func Resume(checkpoint []byte) BatchOption {
	return batchOption(func(s *batchSettings) { s.resume = checkpoint })
}
