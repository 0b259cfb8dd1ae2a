package recordio

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/sluiceml/sluice/dataerr"
	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/storage"
	"github.com/sluiceml/sluice/tensor"
)

// A Reader reads records from the work units of a queue through a Format.
// Its methods are safe for concurrent use; calls are serialised, so
// parallel reading uses several Readers sharing one queue.
type Reader struct {
	kind, name string
	q          queue.Queue
	f          Format
	omitter    keyOmitter // f, if it can read without keys (ReadValue)

	mu       sync.Mutex
	work     string
	started  int64 // work units started
	finished int64 // work units finished
	produced int64 // records returned

	shard    shard
	shardErr error // an invalid Shard option, reported by every read
	position int64 // records met in the current unit, kept or not
	// unitDone, if set (recordhook.WatchUnits), hears of each unit read
	// to its end and its records.
	unitDone func(work string, records int64) error

	remote  bool   // the unit is on an object store (see readFormat)
	resume  []byte // the position to reopen the unit at, after a cut-off read
	pending string // a unit dequeued whose open the caller's context cut off
	hasPend bool
}

// NewReader returns a Reader of q's work units (a queue of scalar strings)
// through f. kind names the format in messages, e.g. "TFRecordReader";
// of the options only Name applies.
func NewReader(kind string, f Format, q queue.Queue, opts ...Option) *Reader {
	s := newSettings(opts)
	r := &Reader{kind: kind, name: s.name, q: q, f: f, shard: s.shard}
	r.omitter, _ = f.(keyOmitter)
	if r.name == "" {
		r.name = kind
	}
	if err := s.shard.check(); err != nil {
		r.shardErr = fmt.Errorf("%v: %w", r, err)
	}
	return r
}

// String returns the reader's name as messages print it.
func (r *Reader) String() string { return fmt.Sprintf("%s '%s'", r.kind, r.name) }

// Format returns the reader's format.
func (r *Reader) Format() Format { return r.f }

func (r *Reader) inProgress() bool { return r.finished < r.started }

// nextWork takes the next unit from the queue and opens it. A unit whose
// open fails is dropped (it does not count as started), unless the failure
// is the caller's context ending: that unit is opened again by the next
// call instead of a new one, so a cancelled or timed-out Read loses no
// unit. r.mu is held.
func (r *Reader) nextWork(ctx context.Context) error {
	work := r.pending
	if !r.hasPend {
		e, err := r.q.Dequeue(ctx)
		if err != nil {
			return err
		}
		if len(e) != 1 || e[0].DType() != tensor.String || e[0].Rank() != 0 {
			return fmt.Errorf("%v: work queue must hold scalar strings, got %v: %w", r, e, queue.ErrInvalidArgument)
		}
		work = string(e[0].Strings()[0])
	}
	if err := r.f.OnWorkStarted(ctx, work); err != nil {
		r.pending, r.hasPend = work, ctx.Err() != nil
		return err
	}
	r.pending, r.hasPend = "", false
	r.work = work
	r.started++
	r.position = 0
	r.setUnit(work)
	return nil
}

// setUnit notes whether work is on an object store and forgets any
// position to resume at. r.mu is held.
func (r *Reader) setUnit(work string) {
	s := storage.Scheme(work)
	r.remote = s != "" && s != "file"
	r.resume = nil
}

// readFormat calls the format's Read. r.mu is held.
func (r *Reader) readFormat(ctx context.Context) (key string, value []byte, produced, atEnd bool, err error) {
	if r.remote {
		key, value, produced, atEnd, err = r.readRemote(ctx)
	} else {
		key, value, produced, atEnd, err = r.f.Read(ctx)
	}
	if err != nil {
		err = r.origin(err)
	}
	return key, value, produced, atEnd, err
}

// readRemote reads from a unit on an object store. A read that failed —
// cut off by the end of ctx, which leaves the unit's file unusable (see
// unitFile), or failed by the store after its own retries — keeps the
// position before it, and the next call reopens the unit there and goes
// on as if the failed read had not happened: the record it was reading
// comes whole, under its own key. (A local file's format keeps its error
// instead.) r.mu is held.
func (r *Reader) readRemote(ctx context.Context) (key string, value []byte, produced, atEnd bool, err error) {
	p, ok := r.f.(Positioner)
	if !ok {
		return r.f.Read(ctx)
	}
	if r.resume != nil {
		r.f.OnWorkFinished() // closes the cut-off file
		if err := p.Seek(ctx, r.work, r.resume); err != nil {
			return "", nil, false, false, err // resume stays set: the next call tries again
		}
		r.resume = nil
	}
	pos, perr := p.Position()
	if w, ok := r.f.(unitWatcher); ok {
		defer w.unit().watch(ctx)()
	}
	key, value, produced, atEnd, err = r.f.Read(ctx)
	if err != nil && perr == nil {
		r.resume = pos
	}
	return key, value, produced, atEnd, err
}

// Read returns the next record, taking and opening work units as needed.
// At end of input it returns the queue's error, which wraps io.EOF. The
// value is valid until the next call on r.
func (r *Reader) Read(ctx context.Context) (key string, value []byte, err error) {
	return r.read(ctx, true)
}

// ReadValue is Read without the key, for a caller that does not name
// its records (as TensorFlow's parse_single_example given no names): the
// built-in formats then make no key, which saves an allocation per record.
func (r *Reader) ReadValue(ctx context.Context) (value []byte, err error) {
	_, value, err = r.read(ctx, false)
	return value, err
}

// A keyOmitter is a format that can read a record without making its key.
type keyOmitter interface{ omitKeys(omit bool) }

func (r *Reader) read(ctx context.Context, keys bool) (key string, value []byte, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	// Only ReadValue touches the format's flag: a type assertion and a
	// deferred call on every Read were a tenth of a text line's cost.
	if !keys && r.omitter != nil {
		r.omitter.omitKeys(true)
		defer r.omitter.omitKeys(false)
	}
	if r.shardErr != nil {
		return "", nil, r.shardErr
	}
	for {
		if !r.inProgress() {
			if err := r.nextWork(ctx); err != nil {
				return "", nil, err
			}
		}
		key, value, produced, atEnd, err := r.readFormat(ctx)
		if err != nil {
			return "", nil, err
		}
		if !produced && !atEnd {
			return "", nil, fmt.Errorf("%v: format read neither a record nor the end of %q", r, r.work)
		}
		if atEnd {
			if err := r.finishWork(ctx); err != nil {
				return "", nil, err
			}
		}
		if produced && r.keep() {
			r.produced++
			return key, value, nil
		}
	}
}

// origin completes a data error of the unit in progress with its file, for
// formats that do not know it.
func (r *Reader) origin(err error) error {
	if e, ok := errors.AsType[*dataerr.Error](err); ok {
		e.Fill(dataerr.Error{File: r.work, Offset: -1, Record: -1})
	}
	return err
}

// ReadUpTo returns up to n records, at least one. It never mixes two units:
// when a unit ends after at least one record, it returns early. At end of
// input, with nothing read, it returns the queue's error (wrapping io.EOF).
// The values are copies the caller owns.
//
// Unlike TensorFlow, which drops the records of a batch when a later read
// in it fails, ReadUpTo returns the records read before the error; the
// error, which formats keep until the unit changes, comes with the next
// call.
func (r *Reader) ReadUpTo(ctx context.Context, n int) (keys []string, values [][]byte, err error) {
	if n <= 0 {
		return nil, nil, fmt.Errorf("%v: ReadUpTo needs a positive count, not %d: %w", r, n, queue.ErrInvalidArgument)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.shardErr != nil {
		return nil, nil, r.shardErr
	}
	// The values share one allocation; ends[i] is where value i ends.
	var arena []byte
	c := min(n, 1024) // a caller's n may be far above what a unit holds
	ends := make([]int, 0, c)
	keys = make([]string, 0, c)
	done := func() ([]string, [][]byte, error) {
		values := make([][]byte, len(ends))
		start := 0
		for i, end := range ends {
			values[i] = arena[start:end:end]
			start = end
		}
		return keys, values, nil
	}
	for len(keys) < n {
		if !r.inProgress() {
			if len(keys) > 0 {
				return done()
			}
			if err := r.nextWork(ctx); err != nil {
				return nil, nil, err
			}
		}
		key, value, produced, atEnd, err := r.readFormat(ctx)
		if err != nil {
			if len(keys) > 0 {
				return done()
			}
			return nil, nil, err
		}
		if produced && r.keep() {
			r.produced++
			keys = append(keys, key)
			arena = append(arena, value...)
			ends = append(ends, len(arena))
		}
		if atEnd {
			if err := r.finishWork(ctx); err != nil {
				return nil, nil, err
			}
			if len(keys) > 0 {
				return done()
			}
		}
	}
	return done()
}

// NumRecordsProduced returns the number of records read so far.
func (r *Reader) NumRecordsProduced() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.produced
}

// NumWorkUnitsCompleted returns the number of work units read to their end.
func (r *Reader) NumWorkUnitsCompleted() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.finished
}

// NumRecordsSkipped returns the number of corrupt records skipped under a
// SkipCorrupt policy, or 0 for a format that never skips (one that does
// not implement SkipCounter).
func (r *Reader) NumRecordsSkipped() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	if c, ok := r.f.(SkipCounter); ok {
		return c.Skipped()
	}
	return 0
}

// Reset drops the unit in progress and every counter. It does not touch
// the queue.
func (r *Reader) Reset() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.resetLocked()
}

// keep counts a record the format produced and reports whether it is in
// the reader's shard. r.mu is held.
func (r *Reader) keep() bool {
	n := r.position
	r.position++
	return r.shard.keeps(n)
}

func (r *Reader) resetLocked() error {
	r.work, r.started, r.finished, r.produced, r.position = "", 0, 0, 0, 0
	r.pending, r.hasPend = "", false
	r.setUnit("")
	return r.f.Reset()
}
