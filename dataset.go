package sluice

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/sluiceml/sluice/coord"
	"github.com/sluiceml/sluice/dataerr"
	"github.com/sluiceml/sluice/input"
	"github.com/sluiceml/sluice/internal/batchhook"
	"github.com/sluiceml/sluice/internal/recordhook"
	"github.com/sluiceml/sluice/internal/stagehook"
	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/recordio"
	"github.com/sluiceml/sluice/storage"
	"github.com/sluiceml/sluice/tensor"
	"github.com/sluiceml/sluice/tfrecord"
)

// ErrNoFiles is the error, wrapped with the pattern, of a glob pattern that
// matches no file.
var ErrNoFiles = errors.New("no files match")

// ErrInvalid is wrapped by the errors of options and arguments out of range
// (Epochs(0), a batch size of 0, ...). It is queue.ErrInvalidArgument, the
// sentinel of the layers below, so that one errors.Is test also catches
// the invalid arguments the data set passes on from them (a negative
// SkipHeaderLines, say) without importing those packages.
var ErrInvalid = queue.ErrInvalidArgument

// ErrSparseIndex is wrapped by the error of a batch in which a
// SparseFeature's index lies outside the feature's size, or repeats
// another of its record: bad data, which TensorFlow's parse_example passes
// through and tf.sparse.to_dense refuses; sluice refuses it when it parses
// the batch.
var ErrSparseIndex = errors.New("bad sparse index")

// A Dataset is a set of files read as records and decoded into named
// features: TFRecord Examples, CSV lines or fixed-length records. It holds
// only the description; each call of Batches reads the files anew, with
// goroutines that live as long as that loop.
type Dataset struct {
	kind     string // the constructor's name, for messages
	settings settings
	layout   *layout
	err      error // a build error, returned by Batches

	// newFormat returns a format of the data set's files, whose records
	// have no keys (to save an allocation per record) and are named by
	// position instead; readerKind names its reader in errors.
	newFormat  func() (recordhook.Format, error)
	readerKind string
	// extra describes the format's settings, for checkpoints.
	extra string
	// fixed holds FixedLengthRecords' sizes, for random access.
	fixed struct {
		recordBytes, headerBytes, footerBytes int
		compression                           tfrecord.Compression
	}
	// origin returns where the record with the given key comes from, to
	// complete a decoder's error about it.
	origin func(key string) dataerr.Error
	// newDecoder returns a decoder for one goroutine; with reuse, one
	// that writes each batch over the one it returned before, where it
	// can.
	newDecoder func(reuse bool) (decoder, error)
	// newDecoderInto, if set, is newDecoder for a decoder that writes
	// each batch into memory from a when a lends it (batchhook).
	newDecoderInto func(a batchhook.Allocator, reuse bool) (decoder, error)
}

// A decoder turns records into one batch element in the layout's order.
// The records are valid only during the call. keys, which may be nil, name
// the records in errors.
type decoder func(recs [][]byte, keys []string) (queue.Element, error)

// Batches returns the data set as batches of n records, for a range loop:
//
//	for b, err := range ds.Batches(ctx, 128) {
//		if err != nil {
//			return err
//		}
//		train(b.Float32("image"), b.Int64("label"))
//	}
//
// The loop starts the reading goroutines and ends them when it ends: at
// the end of the last epoch, at the first error, when ctx is cancelled or
// when the loop body breaks out. An error is the first any stage met (a
// corrupt record names its file and offset); it is yielded once, and the
// loop then ends. Batches are n records each, except the last, which holds
// what is left (use DropRemainder to drop it instead).
//
// A batch is valid until the loop's next iteration: later batches are
// written into its memory. Copy what must outlive the iteration
// (Batch.Clone), or ask for batches of their own with KeepBatches.
//
// Batches is an Iterator in a range loop; use an Iterator to save
// checkpoints between batches.
func (d *Dataset) Batches(ctx context.Context, n int, opts ...BatchOption) iter.Seq2[*Batch, error] {
	return func(yield func(*Batch, error) bool) {
		it, err := d.Iterator(ctx, n, opts...)
		if err != nil {
			yield(nil, err)
			return
		}
		defer it.Close()
		for {
			b, err := it.Next()
			if err == io.EOF {
				return
			}
			if err != nil {
				yield(nil, err)
				return
			}
			if !yield(b, nil) {
				return
			}
		}
	}
}

// maxBatchSize is the largest batch size: TensorFlow's batchers take the
// batch size as an int32 tensor, and a batch's first dimension is an int32
// in its shape functions. A batch of more records is no data set's batch
// size but a mistake, and an error at once rather than an attempt to make
// room for it.
const maxBatchSize = 1<<31 - 1

// maxShuffle is the largest Shuffle buffer, TensorFlow's int32 bound on a
// queue's min_after_dequeue as on a batch size; with it, the shuffle
// queue's capacity (the buffer, room for the batches taken from it and for
// the readers' batches) cannot overflow an int.
const maxShuffle = 1<<31 - 1

// maxReaders is the most reading goroutines a data set starts: far more
// than any machine has cores, and few enough that a mistaken Readers
// value is an error rather than an allocation of a slot for each.
const maxReaders = 1 << 16

// maxReserved bounds the records a data set's collectors together make
// room for before they have read them: a batch size sized for a large
// data set may exceed a small one's records many times over, so the room
// past it grows as records come. Each of n readers makes room for its
// share (1024 readers each making room for 65536 records took 3 GB before
// a record was read, audit 114).
const maxReserved = 1 << 16

// maxReservedBytes bounds the bytes a collector makes room for before the
// records that fill them have arrived; beyond it the buffer grows with
// them.
const maxReservedBytes = 64 << 20

// A run is one iteration's pipeline.
type run struct {
	skipCount
	p       *input.Pipeline
	out     queue.Queue     // whole batches, in the layout's components
	kind    string          // the data set's, for messages
	ctx     context.Context // the iteration's
	readers []*recordio.Reader
	// done: next has stopped or joined the pipeline, at its end or an
	// error, so that stop does not wait a second grace period for the
	// same goroutines (audit 86: a cancel took twice GracePeriod).
	done bool
}

// check reports a build error of the data set, or an option or batch
// size out of range.
func (d *Dataset) check(n int) error {
	if d.err != nil {
		return d.err
	}
	s := d.settings
	switch {
	case n < 1:
		return fmt.Errorf("sluice: %s: batch size %d: %w (want at least 1)", d.kind, n, ErrInvalid)
	case n > maxBatchSize:
		return fmt.Errorf("sluice: %s: batch size %d: %w (at most %d, TensorFlow's int32 batch_size)", d.kind, n, ErrInvalid, maxBatchSize)
	case s.grace < 0:
		return fmt.Errorf("sluice: %s: GracePeriod(%v): %w (want 0 for the default, or a duration)", d.kind, s.grace, ErrInvalid)
	case s.epochs < 0 || s.epochs == 0 && s.epochsSet:
		return fmt.Errorf("sluice: %s: Epochs(%d): %w (want at least 1, or Forever)", d.kind, s.epochs, ErrInvalid)
	case s.readers < 0 || s.readers > maxReaders:
		return fmt.Errorf("sluice: %s: Readers(%d): %w (want at least 1, and at most %d)", d.kind, s.readers, ErrInvalid, maxReaders)
	case s.shuffle < 0 || s.shuffle > maxShuffle:
		return fmt.Errorf("sluice: %s: Shuffle(%d): %w (want 0 for none, or a buffer size of at most %d)", d.kind, s.shuffle, ErrInvalid, maxShuffle)
	case s.shardSet && (s.shard[1] < 1 || s.shard[0] < 0 || s.shard[0] >= s.shard[1]):
		return fmt.Errorf("sluice: %s: Shard(%d, %d): %w (want 0 <= index < count)", d.kind, s.shard[0], s.shard[1], ErrInvalid)
	case s.names != nil:
		// The queue's producer owns the files' order and epochs.
		for _, o := range []struct {
			set  bool
			name string
		}{{s.epochsSet, "Epochs"}, {s.forever, "Forever"}, {s.shuffleFiles, "ShuffleFiles"}, {s.shardSet, "Shard"},
			{s.deterministic, "Deterministic"}, {s.globalShuffle, "GlobalShuffle"}} {
			if o.set {
				return fmt.Errorf("sluice: %s: %s with FilenameQueue: %w (the queue's producer decides the files and epochs)", d.kind, o.name, ErrInvalid)
			}
		}
		if dt := s.names.DTypes(); len(dt) != 1 || dt[0] != tensor.String {
			return fmt.Errorf("sluice: %s: FilenameQueue of %v: %w (want one string component)", d.kind, dt, ErrInvalid)
		}
	}
	return nil
}

func (d *Dataset) start(ctx context.Context, n int, bs batchSettings, pl *pool) (*run, error) {
	s := d.settings
	var files []string
	if s.names == nil {
		var err error
		if files, err = d.match(ctx); err != nil {
			return nil, err
		}
		if files, err = d.shardFiles(files); err != nil {
			return nil, err
		}
	}
	readers := s.readers
	if readers == 0 {
		readers = runtime.GOMAXPROCS(0)
	}

	var popts []input.PipelineOption
	if s.seeded {
		popts = append(popts, input.Seed(s.seed))
	}
	if s.grace > 0 {
		popts = append(popts, input.GracePeriod(s.grace))
	}
	p := input.NewPipeline(popts...)
	names := s.names
	if names == nil {
		fopts := []input.ProducerOption{input.Shuffle(s.shuffle > 0 || s.shuffleFiles), input.Name("filenames")}
		if !s.forever {
			fopts = append(fopts, input.NumEpochs(max(s.epochs, 1)))
		}
		names = p.StringInputProducer(files, fopts...)
	}

	// Whole batches travel as one element each, so the queue's cost is
	// per batch, not per record.
	out, err := queue.NewFIFO(readers+1, d.layout.dtypes, queue.Name("batches"))
	if err != nil {
		return nil, err
	}
	stagehook.Of(p).TrackQueue(out, 0)
	var empty *emptyFiles
	if s.forever && s.names == nil {
		empty = newEmptyFiles(d.kind, files)
	}
	r := new(run)
	rd := make([]*collector, readers)
	dec := make([]decoder, readers)
	for i := range readers {
		f, err := d.newFormat()
		if err != nil {
			return nil, fmt.Errorf("sluice: %s: %w", d.kind, err)
		}
		rd[i] = &collector{r: recordio.NewReader(d.readerKind, f, names), pos: f, recordBytes: d.fixed.recordBytes, skips: &r.skipCount,
			reserve: max(1, maxReserved/readers)}
		if empty != nil {
			recordhook.WatchUnits(rd[i].r, empty.done)
		}
		if pl != nil {
			dec[i] = pl.decode
		} else if dec[i], err = d.newDecoder(false); err != nil {
			return nil, fmt.Errorf("sluice: %s: %w", d.kind, err)
		}
	}
	if s.shuffle == 0 {
		err = d.direct(p, out, rd, dec, n, bs)
	} else {
		err = d.shuffled(p, out, rd, dec, n, bs)
	}
	if err != nil {
		return nil, err
	}
	if err := p.Start(ctx); err != nil {
		p.Stop(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("sluice: %s: %w", d.kind, err)
	}
	r.p, r.out, r.kind, r.ctx = p, out, d.kind, ctx
	for _, c := range rd {
		r.readers = append(r.readers, c.r)
	}
	return r, nil
}

// A pool lends decoders that write each batch over the one they decoded
// before (example.Parser.ReuseOutputs), and takes each back when the loop
// asks for the batch after the one it decoded: the loop body is then done
// with it. The decoder lent is the one returned last, whose memory is the
// most likely to be in the CPU's caches. So a reading goroutine parses into
// memory of its own, yet the loop's batches share a few buffers, as many
// as are in flight at once (the batch queue's capacity, one per reader and
// one in the loop).
type pool struct {
	newDecoder func(reuse bool) (decoder, error)
	// check, if set, looks at each batch decoded (batchhook.CheckOption):
	// its error is the decoder's, so that decodeNamed completes it with
	// the record's origin.
	check batchhook.Check
	l     *layout

	mu   sync.Mutex
	free []decoder
	lent map[*tensor.Tensor]decoder // by the batch's first component
}

func newPool(newDecoder func(reuse bool) (decoder, error)) *pool {
	return &pool{newDecoder: newDecoder, lent: map[*tensor.Tensor]decoder{}}
}

// decode decodes a batch with a decoder of the pool.
func (p *pool) decode(recs [][]byte, keys []string) (queue.Element, error) {
	var dc decoder
	p.mu.Lock()
	if n := len(p.free); n > 0 {
		dc = p.free[n-1]
		p.free = p.free[:n-1]
	}
	p.mu.Unlock()
	if dc == nil {
		var err error
		if dc, err = p.newDecoder(true); err != nil {
			return nil, err
		}
	}
	e, err := dc(recs, keys)
	if err == nil && p.check != nil {
		b := &Batch{l: p.l, e: e, n: len(recs)}
		err = p.check(b.Dense, len(recs))
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if err != nil || len(e) == 0 {
		p.free = append(p.free, dc)
		return e, err
	}
	p.lent[&e[0]] = dc
	return e, nil
}

// release takes back the decoder of batch e, which the loop is done with.
func (p *pool) release(e queue.Element) {
	if len(e) == 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if dc, ok := p.lent[&e[0]]; ok {
		delete(p.lent, &e[0])
		p.free = append(p.free, dc)
	}
}

// match expands the data set's names and patterns.
func (d *Dataset) match(ctx context.Context) ([]string, error) {
	var files []string
	for _, pat := range d.settings.files {
		m, err := storage.Match(ctx, pat)
		if err != nil {
			return nil, fmt.Errorf("sluice: %s: %w", d.kind, err)
		}
		if len(m) == 0 {
			return nil, fmt.Errorf("sluice: %s: %w %q", d.kind, ErrNoFiles, pat)
		}
		files = append(files, m...)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("sluice: %s: %w: no file names given", d.kind, ErrNoFiles)
	}
	return files, nil
}

// direct runs one goroutine per reader that reads n records, decodes them
// as one batch and enqueues it: no queue between reading and decoding, and
// no record ever copied twice. This is the path without record shuffling.
func (d *Dataset) direct(p *input.Pipeline, out queue.Queue, rd []*collector, dec []decoder, n int, bs batchSettings) error {
	rem := &remainder{active: len(rd), n: n, drop: bs.dropRemainder, dec: dec[0], out: out, origin: d.origin}
	steps := make([]coord.Step, len(rd))
	for i := range rd {
		w := &directReader{c: rd[i], dec: dec[i], out: out, n: n, rem: rem, origin: d.origin}
		steps[i] = w.step
	}
	qr, err := coord.NewQueueRunner(out, steps)
	if err != nil {
		return err
	}
	p.AddQueueRunner(qr)
	return nil
}

// A positioner tells where the record a reader returned last comes from
// (recordhook.Format).
type positioner interface {
	Work() string
	Offset() int64
}

// A collector reads records into batches: their bytes in one buffer, and
// their keys, or their positions when the format gives no keys.
type collector struct {
	r     *recordio.Reader
	pos   positioner
	bufs  *buffers // with a shuffle queue: a buffer for each record
	local [][]byte // free buffers taken from bufs
	arena []byte
	recs  [][]byte
	keys  []string // with no positioner
	works []string // with a positioner: the records' files and offsets
	offs  []int64
	// recordBytes is the size of every record, when the format fixes it
	// (else 0): the arena is then made the size of a batch at once.
	recordBytes int
	// skips is the iteration's count of corrupt records skipped, and
	// seen the reader's count last added to it.
	skips *skipCount
	seen  int64
	// maxBytes, when > 0, ends a read once its records take that many
	// bytes, before n records (a shuffled data set's readers).
	maxBytes int
	// reserve is the most records the collector makes room for before
	// they arrive: its share of maxReserved.
	reserve int
}

// reset empties the batch. With fresh, the records of the batch before
// were handed on as they are, so neither their bytes nor the slice of
// them is reused.
func (c *collector) reset(fresh bool) {
	if fresh {
		c.recs = make([][]byte, 0, cap(c.recs))
	}
	c.arena, c.recs, c.keys, c.works, c.offs = c.arena[:0], c.recs[:0], c.keys[:0], c.works[:0], c.offs[:0]
}

// own returns a copy of rec in a buffer of its own from c.bufs.
func (c *collector) own(rec []byte) []byte { return c.bufs.own(&c.local, rec) }

// read adds records up to n in all, or up to c.maxBytes, and returns the
// error that stopped it (wrapping io.EOF at the end of the input).
func (c *collector) read(ctx context.Context, n int) error {
	defer func() { c.skips.add(c.r.NumRecordsSkipped(), &c.seen) }()
	if want := min(n, c.reserve); cap(c.recs) < want {
		// Room for the batch at once rather than by doubling, up to
		// c.reserve records.
		c.recs = slices.Grow(c.recs, want-len(c.recs))
		if c.pos != nil {
			c.works, c.offs = slices.Grow(c.works, want-len(c.works)), slices.Grow(c.offs, want-len(c.offs))
		}
	}
	bytes := 0
	for len(c.recs) < n && (c.maxBytes == 0 || bytes < c.maxBytes) {
		key, rec, err := c.r.Read(ctx)
		if err != nil {
			return err
		}
		bytes += len(rec)
		if c.bufs != nil {
			c.recs = append(c.recs, c.own(rec))
		} else {
			if len(c.arena)+len(rec) > cap(c.arena) {
				// A larger buffer; the records already in the batch
				// keep the old one alive until the batch is decoded.
				// The first is sized for a batch of records like this
				// one, up to 64 KiB; or exactly, for records of a
				// fixed size, up to maxReservedBytes: a batch of 1024
				// records of 256 MiB asked for 256 GiB at the first
				// record of a file that held one (audit 112).
				m := min(n, c.reserve)
				c.arena = make([]byte, 0, max(2*cap(c.arena), len(c.arena)+len(rec), min(m*len(rec)*5/4, 64<<10), min(m*c.recordBytes, maxReservedBytes)))
			}
			start := len(c.arena)
			c.arena = append(c.arena, rec...)
			c.recs = append(c.recs, c.arena[start:len(c.arena):len(c.arena)])
		}
		if c.pos != nil {
			c.works = append(c.works, c.pos.Work())
			c.offs = append(c.offs, c.pos.Offset())
		} else {
			c.keys = append(c.keys, key)
		}
	}
	return nil
}

// keyList returns the keys of the batch's records, formed now if need be.
func (c *collector) keyList() []string { return c.keysOf(len(c.recs)) }

// keysOf returns the keys of the batch's first n records.
func (c *collector) keysOf(n int) []string {
	if c.pos == nil {
		return c.keys[:n]
	}
	keys := make([]string, n)
	for i, off := range c.offs[:n] {
		keys[i] = c.works[i] + ":" + strconv.FormatInt(off, 10)
	}
	return keys
}

// decodeNamed decodes recs; only if that fails does it form their keys
// (keys() returns them) and decode again, for an error that names the
// record, and completes that error with the record's origin.
func decodeNamed(dec decoder, recs [][]byte, keys func() []string, origin func(string) dataerr.Error) (queue.Element, error) {
	e, err := dec(recs, nil)
	if err != nil {
		ks := keys()
		_, err = dec(recs, ks)
		if de, ok := errors.AsType[*dataerr.Error](err); ok && de.Record >= 0 && de.Record < int64(len(ks)) && origin != nil {
			o := origin(ks[de.Record])
			de.Fill(o)
			if o.Record >= 0 {
				// A record numbered in its file (a Parquet row, a
				// fixed-length record) is named by that number, not
				// by its place in the batch (audit 67).
				de.Record = o.Record
			}
		}
	}
	return e, err
}

// keyOrigin returns the origin of a record whose key is "file:n", for
// formats whose keys are formed so: n is passed to at, which fills in the
// offset or line it stands for.
func keyOrigin(at func(e *dataerr.Error, n int64)) func(key string) dataerr.Error {
	return func(key string) dataerr.Error {
		e := dataerr.Error{Offset: -1, Record: -1, Key: key}
		i := strings.LastIndexByte(key, ':')
		if i < 0 {
			return e
		}
		n, err := strconv.ParseInt(key[i+1:], 10, 64)
		if err != nil {
			return e
		}
		e.File = key[:i]
		at(&e, n)
		return e
	}
}

// A directReader is one reader goroutine's state on the direct path.
type directReader struct {
	c      *collector
	dec    decoder
	out    queue.Queue
	n      int
	rem    *remainder
	origin func(string) dataerr.Error
}

func (w *directReader) step(ctx context.Context) error {
	w.c.reset(false)
	if err := w.c.read(ctx, w.n); err != nil {
		if errors.Is(err, io.EOF) {
			return w.rem.finish(ctx, w.c, err)
		}
		return err
	}
	e, err := decodeNamed(w.dec, w.c.recs, w.c.keyList, w.origin)
	if err != nil {
		return err
	}
	return w.out.Enqueue(ctx, e)
}

// A remainder collects the records each reader holds when the input ends,
// fewer than a batch; the last reader to end makes batches of them, so
// that only the very last batch can be short.
type remainder struct {
	mu     sync.Mutex
	active int
	held   collector // the records, and their names for errors
	n      int
	drop   bool
	dec    decoder
	out    queue.Queue
	origin func(string) dataerr.Error
}

func (r *remainder) finish(ctx context.Context, c *collector, eof error) error {
	r.mu.Lock()
	// The reader's arena is not reused after it ended, so its records can
	// be kept as they are. Their keys are formed only for an error.
	h := &r.held
	h.pos = c.pos
	h.recs, h.keys = append(h.recs, c.recs...), append(h.keys, c.keys...)
	h.works, h.offs = append(h.works, c.works...), append(h.offs, c.offs...)
	r.active--
	last := r.active == 0
	r.mu.Unlock()
	if !last {
		return eof
	}
	for len(h.recs) > 0 {
		k := min(r.n, len(h.recs))
		if k < r.n && r.drop {
			break
		}
		e, err := decodeNamed(r.dec, h.recs[:k], func() []string { return h.keysOf(k) }, r.origin)
		if err != nil {
			return err
		}
		if err := r.out.Enqueue(ctx, e); err != nil {
			return err
		}
		h.recs = h.recs[k:]
		if h.pos == nil {
			h.keys = h.keys[k:]
		} else {
			h.works, h.offs = h.works[k:], h.offs[k:]
		}
	}
	return eof
}

// readBatch is how many records a reader moves into the shuffle buffer at
// once.
const readBatch = 128

// shuffled runs the readers into a RandomShuffle queue of serialized
// records (with their keys), and as many goroutines that take n records
// from it at a time, decode them as one batch and enqueue it: TensorFlow's
// shuffle_batch over serialized records followed by a batch parse, its
// fast form.
func (d *Dataset) shuffled(p *input.Pipeline, out queue.Queue, rd []*collector, dec []decoder, n int, bs batchSettings) error {
	s := d.settings
	// A record's components: its bytes, its file (or key) and offset to
	// name it in an error, and the place of its reader's batch in
	// batches.
	records, err := queue.NewRandomShuffle(s.shuffle+3*n+readBatch*len(rd), s.shuffle,
		[]tensor.DType{tensor.String, tensor.String, tensor.Int64, tensor.Int64},
		queue.Shapes(tensor.Shape{}, tensor.Shape{}, tensor.Shape{}, tensor.Shape{}), queue.Name("records"),
		queue.Seed(stagehook.Of(p).Seed(nil)))
	if err != nil {
		return fmt.Errorf("sluice: %s: %w", d.kind, err)
	}
	stagehook.Of(p).TrackQueue(records, s.shuffle)
	gate := newRecordGate(s.shuffle+3*n, len(rd))
	bufs := new(buffers)
	batches := new(readerBatches)
	read := make([]coord.Step, len(rd))
	for i, c := range rd {
		c.bufs, c.maxBytes = bufs, readBytes
		var work string
		var workBytes []byte
		read[i] = func(ctx context.Context) error {
			rb := batches.get()
			c.reset(false)
			c.recs = rb.recs[:0]
			err := c.read(ctx, readBatch)
			k := len(c.recs)
			if k == 0 {
				batches.put(rb)
				return err
			}
			rb.recs = c.recs
			// The keys, or the files and offsets to form them from when
			// a record fails to decode.
			names, offs := rb.names[:k], rb.offs[:k]
			for j := range c.recs {
				if c.pos == nil {
					names[j], offs[j] = []byte(c.keys[j]), -1
					continue
				}
				if c.works[j] != work {
					work, workBytes = c.works[j], []byte(c.works[j])
				}
				names[j], offs[j] = workBytes, c.offs[j]
			}
			e := rb.e
			if k != readBatch || &rb.recs[0] != &rb.full[0] {
				// The input's last records, or more than a batch's
				// list holds.
				e = queue.Element{tensor.New(c.recs, k), tensor.New(names, k), tensor.New(offs, k), tensor.New(rb.place[:k], k)}
			}
			rb.left = k
			if gerr := gate.enter(ctx, k, bytesOf(c.recs)); gerr != nil {
				return gerr
			}
			if qerr := records.EnqueueMany(ctx, e); qerr != nil {
				// Some of its records may be in the queue: rb is
				// not reused.
				return qerr
			}
			return err
		}
	}
	rq, err := coord.NewQueueRunner(records, read)
	if err != nil {
		return err
	}
	decode := make([]coord.Step, len(dec))
	last := &lastBatch{active: len(dec)}
	for i, dc := range dec {
		// The records of the goroutine's last batch, whose tensors take
		// the next: their bytes were handed back to bufs already.
		var taken queue.Element
		decode[i] = func(ctx context.Context) error {
			var e queue.Element
			var err error
			if bs.dropRemainder {
				e, err = records.DequeueManyInto(ctx, n, taken)
			} else {
				e, err = records.DequeueUpToInto(ctx, n, taken)
			}
			if errors.Is(err, io.EOF) {
				return last.finish(ctx, out, err)
			}
			if err != nil {
				return err
			}
			b, err := decodeNamed(dc, e[0].Strings(), func() []string {
				names, offs := e[1].Strings(), e[2].Int64s()
				keys := make([]string, len(names))
				for j, k := range names {
					keys[j] = string(k)
					if offs[j] >= 0 {
						keys[j] += ":" + strconv.FormatInt(offs[j], 10)
					}
				}
				return keys
			}, d.origin)
			// The decoder copied what it keeps: the records' buffers
			// can take other records, and the queue is done with the
			// lists of the readers' batches whose records all left it.
			recs := e[0].Strings()
			bufs.put(recs)
			batches.taken(e[3].Int64s())
			gate.leave(len(recs), bytesOf(recs))
			taken = e
			if err != nil {
				return err
			}
			if b := d.layout.batch(b); b.Len() < n {
				// The queue is closed and this is what was left: the
				// other goroutines may still hold full batches, so the
				// last of them to end delivers it.
				last.keep(b.e)
				return last.finish(ctx, out, io.EOF)
			}
			return out.Enqueue(ctx, b)
		}
	}
	dq, err := coord.NewQueueRunner(out, decode)
	if err != nil {
		return err
	}
	p.AddQueueRunner(rq)
	p.AddQueueRunner(dq)
	return nil
}

// A lastBatch holds the short batch of a shuffled data set until every
// decoding goroutine has delivered its full ones.
type lastBatch struct {
	mu     sync.Mutex
	active int
	e      queue.Element
}

func (l *lastBatch) keep(e queue.Element) {
	l.mu.Lock()
	l.e = e
	l.mu.Unlock()
}

func (l *lastBatch) finish(ctx context.Context, out queue.Queue, eof error) error {
	l.mu.Lock()
	l.active--
	e := l.e
	last := l.active == 0
	l.mu.Unlock()
	if last && e != nil {
		if err := out.Enqueue(ctx, e); err != nil {
			return err
		}
	}
	return eof
}

// readerBatches recycles the lists a reader enqueues a batch of records
// with (the records, their names and offsets, the tensors over them): the
// records queue's rows share them until the last of the batch's records
// has been dequeued and copied. Each record carries its batch's place,
// and the decoding goroutines count off the records they take, so that a
// reader's batch allocates nothing once there are enough lists in turn.
type readerBatches struct {
	mu   sync.Mutex
	all  []*readerBatch // by place
	free []*readerBatch
}

// A readerBatch is the lists of one of a reader's batches of records.
type readerBatch struct {
	left  int // records of the batch still in the queue (readerBatches.mu)
	full  [][]byte
	recs  [][]byte // full, or a longer list if the collector grew it
	names [][]byte
	offs  []int64
	place []int64 // the batch's place, for each record
	e     queue.Element
}

// get returns a free batch's lists, or new ones.
func (b *readerBatches) get() *readerBatch {
	b.mu.Lock()
	defer b.mu.Unlock()
	if n := len(b.free); n > 0 {
		rb := b.free[n-1]
		b.free[n-1] = nil
		b.free = b.free[:n-1]
		rb.recs = rb.full[:0]
		return rb
	}
	rb := &readerBatch{
		full: make([][]byte, readBatch), names: make([][]byte, readBatch),
		offs: make([]int64, readBatch), place: make([]int64, readBatch),
	}
	for i := range rb.place {
		rb.place[i] = int64(len(b.all))
	}
	rb.recs = rb.full[:0]
	rb.e = queue.Element{tensor.New(rb.full, readBatch), tensor.New(rb.names, readBatch),
		tensor.New(rb.offs, readBatch), tensor.New(rb.place, readBatch)}
	b.all = append(b.all, rb)
	return rb
}

// put returns rb, whose records were not enqueued.
func (b *readerBatches) put(rb *readerBatch) {
	b.mu.Lock()
	defer b.mu.Unlock()
	clear(rb.full)
	b.free = append(b.free, rb)
}

// taken counts off dequeued records, by their batches' places, and frees
// the batches none of whose records is left in the queue.
func (b *readerBatches) taken(places []int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, p := range places {
		rb := b.all[p]
		if rb.left--; rb.left == 0 {
			// The records' buffers are the decoders' to hand back:
			// not kept alive here.
			clear(rb.full)
			clear(rb.names)
			b.free = append(b.free, rb)
		}
	}
}

// buffers recycles the memory of the records in the shuffle queue: each
// record has a buffer of its own, which goes back to a free list as soon
// as the record is decoded, so the readers copy records into memory that
// is mapped and likely cached instead of allocating and clearing new
// memory for every record.
type buffers struct {
	mu   sync.Mutex
	free [][]byte // last freed first
	// longest is the longest record copied so far. A new buffer has
	// room for it when that is at most twice the record at hand: with
	// records of a few sizes (an Example with an optional feature), a
	// buffer made for a short record would otherwise be dropped by the
	// next long one and another made, record after record, for good.
	longest atomic.Int64
}

// take moves up to n free buffers onto local, for one reader to use
// without taking the lock for each record.
func (b *buffers) take(local [][]byte, n int) [][]byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	k := min(n, len(b.free))
	local = append(local, b.free[len(b.free)-k:]...)
	clear(b.free[len(b.free)-k:])
	b.free = b.free[:len(b.free)-k]
	return local
}

// own returns a copy of rec in a free buffer: one of local, which it
// refills from b readBatch at a time, so that a reader takes the lock
// once for many records, or a new one.
func (b *buffers) own(local *[][]byte, rec []byte) []byte {
	if len(*local) == 0 {
		*local = b.take(*local, readBatch)
	}
	for l := *local; len(l) > 0; {
		buf := l[len(l)-1]
		l[len(l)-1] = nil
		l = l[:len(l)-1]
		*local = l
		if cap(buf) >= len(rec) {
			return append(buf[:0], rec...)
		}
		// Too small for this record: let it go.
	}
	// Room to grow, so that records of varying size find buffers.
	size := len(rec) + len(rec)/8
	m := b.longest.Load()
	for m < int64(len(rec)) && !b.longest.CompareAndSwap(m, int64(len(rec))) {
		m = b.longest.Load()
	}
	if int(m) > size && int(m) <= 2*len(rec) {
		size = int(m)
	}
	return append(make([]byte, 0, size), rec...)
}

// put returns the buffers of decoded records.
func (b *buffers) put(recs [][]byte) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.free = append(b.free, recs...)
}
