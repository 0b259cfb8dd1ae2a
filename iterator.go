package sluice

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/sluiceml/sluice/coord"
	"github.com/sluiceml/sluice/queue"
)

// An Iterator delivers a data set's batches one call at a time, and, for
// a Deterministic data set, saves checkpoints between them. Its goroutines
// run from Dataset.Iterator until the end of the input, an error or Close;
// call Close when done with it, as with a file. Its methods are for one
// goroutine at a time: to stop a Next that waits, from another goroutine,
// end the context the Iterator was started with.
type Iterator struct {
	d   *Dataset
	ctx context.Context

	eng  engine
	pool *pool // nil with KeepBatches

	last      queue.Element
	batch     Batch // the one Next returns, without KeepBatches
	delivered int64
	err       error // the iteration's end: io.EOF or the error returned
	closed    bool  // the engine is stopped
	userClose bool  // by Close: Next returns ErrClosed
}

// ErrClosed is wrapped by the error of Next on an Iterator after its
// Close: the iteration was cut short, which io.EOF, its end, would hide.
var ErrClosed = errors.New("iterator closed")

// Iterator starts reading the data set in batches of n, as Batches does,
// and returns an Iterator over them. With Resume, a Deterministic data set
// goes on from a checkpoint.
func (d *Dataset) Iterator(ctx context.Context, n int, opts ...BatchOption) (*Iterator, error) {
	var bs batchSettings
	for _, o := range opts {
		o.applyBatch(&bs)
	}
	if err := d.check(n); err != nil {
		return nil, err
	}
	it := &Iterator{d: d, ctx: ctx}
	if !bs.keep {
		newDecoder := d.newDecoder
		if bs.alloc != nil && d.newDecoderInto != nil {
			newDecoder = func(reuse bool) (decoder, error) { return d.newDecoderInto(bs.alloc, reuse) }
		}
		it.pool = newPool(newDecoder)
		it.pool.check, it.pool.l = bs.check, d.layout
	}
	var ck *checkpoint
	if bs.resume != nil {
		if !d.settings.deterministic && !d.settings.globalShuffle {
			return nil, fmt.Errorf("sluice: %s: Resume: %w (read it with Deterministic())", d.kind, ErrNotDeterministic)
		}
		var err error
		if ck, err = parseCheckpoint(bs.resume); err != nil {
			return nil, fmt.Errorf("sluice: %s: %w", d.kind, err)
		}
		it.delivered = ck.Delivered
	}
	var err error
	switch {
	case d.settings.globalShuffle:
		it.eng, err = d.startGlobal(ctx, n, bs, it.pool, ck)
	case d.settings.deterministic:
		it.eng, err = d.startDeterministic(ctx, n, bs, it.pool, ck)
	default:
		it.eng, err = d.start(ctx, n, bs, it.pool)
	}
	if err != nil {
		return nil, err
	}
	return it, nil
}

// An engine runs an iteration's goroutines.
type engine interface {
	// next returns the next batch's components, or io.EOF after the last.
	next(ctx context.Context) (queue.Element, error)
	// stop ends every goroutine.
	stop()
	// checkpoint returns the position after delivered batches, less the
	// last back of them, which are to be delivered again; after next
	// failed or stop too: neither moves the position (a failing batch is
	// not delivered), and an engine that cannot tell where it is must
	// refuse.
	checkpoint(ctx context.Context, delivered int64, back int) ([]byte, error)
	// skipped returns the corrupt records skipped so far (SkipCorrupt).
	skipped() int64
}

// Next returns the next batch, or io.EOF after the last. The batch is
// valid until the next call of Next, unless the Iterator was started with
// KeepBatches. After an error, Next returns it again; after Close, an
// error wrapping ErrClosed, whatever the engine still held.
func (it *Iterator) Next() (*Batch, error) {
	if it.userClose {
		return nil, fmt.Errorf("sluice: %s: Next after Close: %w", it.d.kind, ErrClosed)
	}
	if it.err != nil {
		return nil, it.err
	}
	if it.pool != nil && it.last != nil {
		// The caller is done with the last batch: its memory can take
		// another.
		it.pool.release(it.last)
		it.last = nil
	}
	e, err := it.eng.next(it.ctx)
	if err != nil && err != io.EOF && it.ctx.Err() != nil {
		err = fmt.Errorf("sluice: %s: %w", it.d.kind, context.Cause(it.ctx))
	}
	if err != nil {
		it.err = err
		it.stop()
		return nil, err
	}
	it.last = e
	it.delivered++
	if it.pool == nil {
		return it.d.layout.batch(e), nil
	}
	// The last batch is not to be used any more: its Batch can take
	// this one.
	it.d.layout.fill(&it.batch, e)
	return &it.batch, nil
}

// Checkpoint returns the Iterator's position after the batches Next has
// returned: a small, self-describing value (JSON) that Resume turns back
// into an Iterator delivering exactly the batches this one would have
// delivered next. It holds no records, only their places in the files,
// so its size grows with the records held in memory (the shuffle buffer,
// batches being decoded), a few bytes each, and not with their size. The
// data set must be Deterministic.
//
// After Next has returned an error, Checkpoint is still the position
// after the batches Next returned before it, which the error does not
// move: the records of the failing batch and after it are read again on
// resume, so a job that failed on a corrupt record can be resumed with
// SkipCorrupt, and one stopped by its context (or Close) can save its
// position on the way out.
//
// Checkpoint takes no context, as it waits for no read: the run learns the
// sizes of its files, which a checkpoint saves so that a restore can tell
// a file changed, as it starts. A size it has not learnt yet (a
// checkpoint early in a run over many files of an object store, or of a
// file it cannot open) is read then, for at most 30 seconds, whether or
// not the iteration's context has ended.
func (it *Iterator) Checkpoint() ([]byte, error) {
	return it.eng.checkpoint(it.ctx, it.delivered, 0)
}

// MaxCheckpointBefore is the most batches CheckpointBefore can go back.
const MaxCheckpointBefore = 16

// CheckpointBefore is Checkpoint as if the last n batches Next returned
// had not been returned: resuming from it delivers them again first. It
// is for a caller that hands batches on ahead of their use (a server
// that prefetches them for another process, say) and checkpoints where
// the user is, not where it is; n is at most MaxCheckpointBefore and the
// batches returned since the iteration started or resumed. As
// Checkpoint, it works after Next has returned an error: such a caller
// meets the error ahead of its user, whose position, before it, is
// known.
func (it *Iterator) CheckpointBefore(n int) ([]byte, error) {
	if n < 0 || n > MaxCheckpointBefore || int64(n) > it.delivered {
		return nil, fmt.Errorf("sluice: CheckpointBefore(%d) after %d batches: %w (want 0 to %d)", n, it.delivered, ErrInvalid, min(int64(MaxCheckpointBefore), it.delivered))
	}
	return it.eng.checkpoint(it.ctx, it.delivered, n)
}

// Close stops the iteration and ends its goroutines; the batches Next
// returned stay valid only if the Iterator was started with KeepBatches.
// Next then fails with ErrClosed. The error is always nil: a reading
// error is returned by Next.
func (it *Iterator) Close() error {
	it.userClose = true
	it.stop()
	return nil
}

func (it *Iterator) stop() {
	if it.closed {
		return
	}
	it.closed = true
	it.eng.stop()
}

// stop stops and joins the pipeline even when the iteration's context has
// ended, so that no goroutine outlives it; the grace period bounds the
// wait.
func (r *run) stop() {
	if !r.done {
		r.joined(r.p.Stop(context.WithoutCancel(r.ctx)))
	}
}

// joined closes the readers' files once the pipeline's goroutines have
// ended (err, Join's or Stop's, does not say some still run): a reader
// stopped inside a file kept it open until a garbage collection found it,
// and a program of many short iterations ran out of descriptors (audit
// 52: 361 open after 200 loops left after a batch). It returns err.
func (r *run) joined(err error) error {
	if !errors.Is(err, coord.ErrStillRunning) {
		for _, rd := range r.readers {
			rd.Reset()
		}
	}
	return err
}

// checkpoint fails: the default engine's order depends on timing.
func (r *run) checkpoint(context.Context, int64, int) ([]byte, error) {
	return nil, fmt.Errorf("sluice: %s: Checkpoint: %w (read it with Deterministic())", r.kind, ErrNotDeterministic)
}

// next returns the next batch of the default engine, or io.EOF after the
// last.
func (r *run) next(ctx context.Context) (queue.Element, error) {
	kind := r.kind
	e, err := r.out.Dequeue(ctx)
	if err == nil {
		return e, nil
	}
	// The first error of any stage wins over what the consumer saw of
	// it (a closed queue).
	var jerr error
	joinCtx := context.WithoutCancel(ctx)
	r.done = true
	if errors.Is(err, io.EOF) && ctx.Err() == nil {
		jerr = r.joined(r.p.Join(joinCtx))
	} else {
		jerr = r.joined(r.p.Stop(joinCtx))
	}
	switch {
	case jerr != nil:
		return nil, jerr
	case ctx.Err() != nil:
		return nil, fmt.Errorf("sluice: %s: %w", kind, context.Cause(ctx))
	case !errors.Is(err, io.EOF):
		return nil, err
	}
	return nil, io.EOF
}
