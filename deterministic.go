package sluice

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"sync"

	"github.com/sluiceml/sluice/internal/recordhook"
	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/recordio"
)

// Deterministic makes the order of a data set's records, and so its
// batches, a function of the files' contents, the seed and the options
// alone: not of goroutine timing, GOMAXPROCS or machine load. Two runs
// with the same options give the same batches, bit for bit, and an
// Iterator can save a Checkpoint between two batches that a later run
// resumes from exactly.
//
// The readers still read in parallel, but each takes a fixed share of the
// files: in each epoch's order (shuffled by the seed), file k goes to
// reader k mod Readers, and the records are merged in turn, 128 from each
// reader. One goroutine runs the shuffle buffer, seeded; the batches are
// decoded in parallel and delivered in order. Without Seed, the seed is 0.
// The buffer is tf.data's shuffle(n) rather than a shuffle queue's: it
// holds Shuffle's n records and draws among them, so n-1 are kept back,
// and Shuffle(1) shuffles the files' order alone.
//
// With Forever and without file shuffling, a reader whose files hold no
// record (it read as many files in a row as the data set has, all empty)
// is done, and the merge goes on with the others' records. Blocks may
// hold records of many epochs of a reader's files: the merge takes 128
// records of a reader whatever their epochs, so with small files and
// Forever one reader's files can come round many times before the next
// reader's block.
func Deterministic() Option {
	return option(func(s *settings) { s.deterministic = true })
}

// deterministicReaders is the number of readers of a deterministic run
// without Readers.
const deterministicReaders = 4

// blockSize is how many records the merge takes from each reader in turn.
const blockSize = 128

// A recID names a record by its place in a deterministic run: the index
// of its file in the run's sequence of files (every epoch's files, one
// epoch after the other) and its offset there (the format's Offset: a
// TFRecord's byte offset, a line's number, a fixed-length record's index).
type recID struct {
	file int64
	off  int64
}

// A fileSeq is the sequence of files a deterministic run reads: epoch e's
// files in a permutation drawn from the seed and e, epoch after epoch.
type fileSeq struct {
	files   []string
	shuffle bool
	seed    uint64
	total   int64 // files in all epochs; -1: without end

	mu    sync.Mutex
	epoch int64
	perm  []int // of epoch
}

func (q *fileSeq) name(k int64) string {
	n := int64(len(q.files))
	e, j := k/n, int(k%n)
	if !q.shuffle {
		return q.files[j]
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.perm == nil || q.epoch != e {
		q.epoch, q.perm = e, permutation(len(q.files), q.seed, uint64(e))
	}
	return q.files[q.perm[j]]
}

// permutation returns a permutation of [0, n) drawn from seed and stream
// by a Fisher–Yates shuffle over PCG, whose every step is specified here,
// so that a checkpoint means the same order in every version of Go.
func permutation(n int, seed, stream uint64) []int {
	r := rand.NewPCG(seed, stream^0x5eed_f11e5)
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	for i := n - 1; i > 0; i-- {
		j := int(below(r, uint64(i+1)))
		p[i], p[j] = p[j], p[i]
	}
	return p
}

// below returns a uniform random number in [0, n), n > 0, by Lemire's
// multiply-and-reject method.
func below(r *rand.PCG, n uint64) uint64 {
	hi, lo := bits.Mul64(r.Uint64(), n)
	if lo < n {
		threshold := -n % n // 2^64 mod n: draws below it are biased
		for lo < threshold {
			hi, lo = bits.Mul64(r.Uint64(), n)
		}
	}
	return hi
}

// A slotPos is where a reader's share of the files goes on: the record at
// pos (a Position of the format) in file k, or file k's start if pos is
// nil, less the first skip records from there, which were taken already.
// A k at or past the run's total is the end of the share.
//
// skip is for a block that ended in an error (a corrupt record, say): the
// planner holds its records, but the reader's position after them is no
// place to go on from — a TFRecord reader that met a bad data CRC is past
// that record already — so the block's start stands, with its records
// counted.
type slotPos struct {
	k    int64
	pos  []byte
	skip int64
}

// A block is up to blockSize records a reader read, in one buffer.
type block struct {
	arena []byte
	recs  [][]byte
	ids   []recID
	next  slotPos // where the reader goes on after this block
	done  bool    // the reader's share ends with this block
	err   error   // the reader's error after recs
}

// A slot is one reader of a deterministic run: it reads files k, k+R,
// k+2R, ... of the run's sequence, from start, into blocks.
type slot struct {
	seq    *fileSeq
	stride int64
	f      recordhook.Format
	out    chan *block
	free   chan *block
	// empty, in an endless run, hears of the files read whole without a
	// record (emptyFiles).
	empty *emptyFiles
	// skips is the iteration's count of corrupt records skipped, and
	// seen f's count last added to it.
	skips *skipCount
	seen  int64
}

func (s *slot) run(ctx context.Context, start slotPos) {
	defer close(s.out)
	k, pos, skip, open := start.k, start.pos, start.skip, false
	// Of the open file: its name, whether it was opened at its start,
	// and the records read of it, skipped ones too; and the files read
	// whole without a record in a row.
	var name string
	var fromStart bool
	var got int64
	emptyRun := 0
	defer func() {
		if open {
			s.f.OnWorkFinished()
		}
	}()
	for {
		var b *block
		select {
		case b = <-s.free:
			b.arena, b.recs, b.ids, b.done, b.err = b.arena[:0], b.recs[:0], b.ids[:0], false, nil
		default:
			b = new(block)
		}
		// The records a resumed reader passes over (skip, those its
		// block gave before an error) were its block's first: the block
		// ends where that one would have, so that the readers' turns in
		// the merge fall as in a run that never failed (audit 89).
		passed := 0
		for len(b.recs)+passed < blockSize {
			if !open {
				if s.seq.total >= 0 && k >= s.seq.total {
					b.done = true
					break
				}
				name = s.seq.name(k)
				var err error
				if pos != nil {
					// A position the file has no record at is the
					// checkpoint's fault, not the file's (which may have
					// changed since, keeping its size).
					if err = s.f.Seek(ctx, name, pos); errors.Is(err, recordio.ErrState) {
						err = fmt.Errorf("%w: %w", ErrCheckpoint, err)
					}
				} else {
					err = s.f.OnWorkStarted(ctx, name)
				}
				if err != nil {
					b.err = err
					break
				}
				open, fromStart, got, pos = true, pos == nil, 0, nil
			}
			stop := s.f.Watch(ctx)
			_, rec, produced, atEnd, err := s.f.Read(ctx)
			stop()
			if err != nil {
				b.err = err
				break
			}
			if produced {
				got++
			}
			if produced && skip > 0 {
				skip--
				passed++
			} else if produced {
				if len(b.arena)+len(rec) > cap(b.arena) {
					// Room for a block of records like this one, so
					// that the arena grows once, not by append's steps.
					b.arena = slices.Grow(b.arena, max(len(rec), 64)*(blockSize-len(b.recs))*9/8)
				}
				start := len(b.arena)
				b.arena = append(b.arena, rec...)
				b.recs = append(b.recs, b.arena[start:len(b.arena):len(b.arena)])
				b.ids = append(b.ids, recID{k, s.f.Offset()})
			}
			if atEnd {
				open = false
				if err := s.f.OnWorkFinished(); err != nil {
					b.err = err
					break
				}
				k += s.stride
				if s.empty == nil {
					continue
				}
				if !fromStart || got > 0 {
					emptyRun = 0
					continue
				}
				if err := s.empty.done(name, 0); err != nil {
					b.err = err
					break
				}
				// Without shuffling, a reader's files come round in a
				// cycle whose length divides the number of files: after
				// that many without a record, its share holds none and
				// it is done, rather than reading them for ever while
				// the merge waits for its block.
				if emptyRun++; !s.seq.shuffle && emptyRun >= len(s.seq.files) {
					b.done = true
					break
				}
			}
		}
		if c, ok := s.f.(recordio.SkipCounter); ok {
			s.skips.add(c.Skipped(), &s.seen)
		}
		// The arena may have moved as it grew: point the records at
		// where their bytes are now.
		rebase(b)
		b.next = slotPos{k: k}
		if open && b.err == nil {
			p, err := s.f.Position()
			if err != nil {
				b.err = err
			}
			b.next.pos = p
		}
		select {
		case s.out <- b:
		case <-ctx.Done():
			return
		}
		if b.done || b.err != nil {
			return
		}
	}
}

// rebase points b's records into b's arena as it is, for records appended
// before the arena last grew.
func rebase(b *block) {
	off := 0
	for i, r := range b.recs {
		n := len(r)
		b.recs[i] = b.arena[off : off+n : off+n]
		off += n
	}
}

// A rec is a record the planner holds: its name and its bytes.
type rec struct {
	id recID
	b  []byte
}

// A job is one batch's records, decoded by a worker and delivered in the
// order the planner made them.
type job struct {
	recs []rec
	e    queue.Element
	err  error
	done chan struct{}
}

// A planner merges the readers' blocks in turn, runs the shuffle buffer
// and cuts batches, in one goroutine, so that the order depends on nothing
// but the data and the seed. Its state, read under mu between batches, is
// what a Checkpoint saves.
type planner struct {
	mu sync.Mutex

	slots  []*slot
	pos    []slotPos // where each reader goes on after the blocks taken
	done   []bool
	cursor int // the reader whose block is taken next

	cur     *block // the block being taken apart, from reader curSlot
	curSlot int
	curNext int // cur's next record
	// curErr is the error the reader met after cur's records: next
	// returns it once they are taken, as a reader of the files in
	// order meets it.
	curErr  error
	pending []rec // restored records ahead of the blocks: a checkpointed block's rest

	// empty is the files of an endless run: its readers end only if
	// their shares hold no record.
	empty *emptyFiles

	shuffle int
	buf     []rec
	rng     *rand.PCG
	// partial is the batch being made: the records picked for it so far.
	// The planner lets go of mu while it waits for a reader's block, and
	// on an error or a stop, so a checkpoint can come in the middle of a
	// batch: it saves them, and a restored run goes on with that batch.
	partial []rec

	emitted [][]recID // batches made and not yet delivered
	recent  [][]recID // the last batches delivered, MaxCheckpointBefore at most
	// spareIDs are the lists of batches that left recent, for the next
	// batches': a checkpoint copies the lists it saves. A few, as the
	// planner runs ahead of the deliveries and then behind.
	spareIDs [][]recID
	restore  [][]rec // restored batches, delivered before any other

	n     int
	drop  bool
	bufs  *buffers
	spare chan []rec // the record lists of batches decoded, empty
	local [][]byte   // free record buffers taken from bufs
}

// next returns the next record of the merged stream, in memory of its own.
func (p *planner) next(ctx context.Context) (rec, bool, error) {
	if len(p.pending) > 0 {
		r := p.pending[0]
		p.pending = p.pending[1:]
		return r, true, nil
	}
	for p.cur == nil || p.curNext == len(p.cur.recs) {
		if p.cur != nil {
			select {
			case p.slots[p.curSlot].free <- p.cur:
			default:
			}
			p.cur = nil
		}
		if p.curErr != nil {
			return rec{}, false, p.curErr
		}
		if !slices.Contains(p.done, false) {
			if p.empty != nil {
				// Endless, and every reader's share holds no record.
				return rec{}, false, p.empty.err()
			}
			return rec{}, false, nil
		}
		i := p.cursor
		if p.done[i] {
			p.cursor = (i + 1) % len(p.slots)
			continue
		}
		b, err := p.receive(ctx, i)
		if err != nil {
			return rec{}, false, err
		}
		// Moved on only now: a checkpoint taken while the planner
		// waited has reader i's block come next.
		p.cursor = (i + 1) % len(p.slots)
		if b.err != nil {
			// The records read before the error come first. The
			// reader's position stays the block's start, with the
			// block's records to skip.
			p.pos[i].skip += int64(len(b.recs))
			p.cur, p.curSlot, p.curNext, p.curErr = b, i, 0, b.err
			continue
		}
		p.pos[i], p.done[i] = b.next, b.done
		p.cur, p.curSlot, p.curNext = b, i, 0
	}
	r := rec{id: p.cur.ids[p.curNext], b: p.own(p.cur.recs[p.curNext])}
	p.curNext++
	return r, true, nil
}

// receive waits for reader i's next block. It lets go of mu meanwhile, so
// that delivering the batches made already and checkpointing do not wait
// for reads: the planner's state is whole here (the batch being made is
// partial's, the block awaited the reader's position's).
func (p *planner) receive(ctx context.Context, i int) (*block, error) {
	p.mu.Unlock()
	defer p.mu.Lock()
	select {
	case b, ok := <-p.slots[i].out:
		if !ok {
			return nil, fmt.Errorf("sluice: reader %d stopped", i)
		}
		return b, nil
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
}

// own copies b into a record buffer of the planner's.
func (p *planner) own(b []byte) []byte { return p.bufs.own(&p.local, b) }

// pick returns the next record out of the shuffle buffer: a record drawn
// at random from a buffer kept full (tf.data's shuffle), whose place the
// next record of the stream takes; the stream as it comes without Shuffle.
func (p *planner) pick(ctx context.Context) (rec, bool, error) {
	if p.shuffle == 0 {
		return p.next(ctx)
	}
	for len(p.buf) < p.shuffle {
		r, ok, err := p.next(ctx)
		if err != nil {
			return rec{}, false, err
		}
		if !ok {
			break
		}
		p.buf = append(p.buf, r)
	}
	if len(p.buf) == 0 {
		return rec{}, false, nil
	}
	// The record that takes the drawn one's place is read before the
	// draw: a read that fails or waits leaves the generator as it was.
	r, ok, err := p.next(ctx)
	if err != nil {
		return rec{}, false, err
	}
	j := below(p.rng, uint64(len(p.buf)))
	out := p.buf[j]
	if ok {
		p.buf[j] = r
	} else {
		last := len(p.buf) - 1
		p.buf[j], p.buf[last] = p.buf[last], rec{}
		p.buf = p.buf[:last]
	}
	return out, true, nil
}

// batch makes the next batch: its records, or none at the end of input.
// It holds mu but while it waits for a reader (receive), building the
// batch in partial, so that a Checkpoint sees a whole state, and records
// the batch as emitted. After an error partial keeps the batch begun.
func (p *planner) batch(ctx context.Context) ([]rec, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.restore) > 0 {
		recs := p.restore[0]
		p.restore = p.restore[1:]
		p.emit(recs)
		return recs, nil
	}
	if p.partial == nil {
		select {
		case p.partial = <-p.spare:
		default:
			p.partial = make([]rec, 0, min(p.n, maxReserved)) // grown as records come
		}
	}
	for len(p.partial) < p.n {
		r, ok, err := p.pick(ctx)
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		p.partial = append(p.partial, r)
	}
	recs := p.partial
	p.partial = nil
	if len(recs) == 0 || len(recs) < p.n && p.drop {
		return nil, nil
	}
	p.emit(recs)
	return recs, nil
}

// emit records a batch made as not yet delivered.
func (p *planner) emit(recs []rec) {
	var ids []recID
	if n := len(p.spareIDs); n > 0 {
		ids = p.spareIDs[n-1][:0]
		p.spareIDs[n-1] = nil
		p.spareIDs = p.spareIDs[:n-1]
	}
	if cap(ids) < len(recs) {
		ids = make([]recID, 0, len(recs))
	}
	for _, r := range recs {
		ids = append(ids, r.id)
	}
	p.emitted = append(p.emitted, ids)
}

// A detRun is one deterministic iteration: readers, planner, decoders.
type detRun struct {
	ordered
	id    identity
	sizes *fileSizes // of id.Files
	p     *planner
	seq   *fileSeq
}

// startDeterministic starts a deterministic iteration of d in batches of
// n, from the beginning or from the checkpoint ck.
func (d *Dataset) startDeterministic(ctx context.Context, n int, bs batchSettings, pl *pool, ck *checkpoint) (*detRun, error) {
	s := d.settings
	files, err := d.match(ctx)
	if err != nil {
		return nil, err
	}
	if files, err = d.shardFiles(files); err != nil {
		return nil, err
	}
	seq := &fileSeq{files: files, shuffle: s.shuffle > 0 || s.shuffleFiles, seed: s.seed, total: int64(len(files) * max(s.epochs, 1))}
	var empty *emptyFiles
	if s.forever {
		seq.total = -1
		empty = newEmptyFiles(d.kind, files)
	}
	// The number of readers shapes the order, so its default is a
	// constant, not GOMAXPROCS.
	readers := s.readers
	if readers == 0 {
		readers = deterministicReaders
	}
	if seq.total >= 0 {
		readers = int(min(int64(readers), seq.total))
	}
	id := d.identity(files, n, readers, bs)
	p := &planner{empty: empty, shuffle: s.shuffle, n: n, drop: bs.dropRemainder, bufs: new(buffers),
		rng: rand.NewPCG(s.seed, 0x5eed_b0ff), pos: make([]slotPos, readers), done: make([]bool, readers),
		// Room for the lists of every batch in flight: made, waiting
		// for a worker, decoding, waiting for the loop.
		spare: make(chan []rec, 2*readers+runtime.GOMAXPROCS(0)+2)}
	for i := range readers {
		p.pos[i] = slotPos{k: int64(i)}
		if seq.total >= 0 && int64(i) >= seq.total {
			p.done[i] = true
		}
	}
	rctx, cancel := context.WithCancelCause(ctx)
	r := &detRun{p: p, seq: seq, sizes: newFileSizes(files), ordered: ordered{order: make(chan *job, readers+1), cancel: cancel,
		free: make(chan *job, 2*readers+2)}}
	if ck != nil {
		if err := ck.check(ctx, id, r.sizes); err != nil {
			cancel(nil)
			return nil, fmt.Errorf("sluice: %s: %w", d.kind, err)
		}
		if err := ck.restoreInto(rctx, d, p, seq); err != nil {
			cancel(nil)
			return nil, fmt.Errorf("sluice: %s: restoring a checkpoint: %w", d.kind, err)
		}
	}
	r.id = id
	workers := max(1, runtime.GOMAXPROCS(0))
	decs := make([]decoder, workers)
	for i := range decs {
		if pl != nil {
			decs[i] = pl.decode
		} else if decs[i], err = d.newDecoder(false); err != nil {
			cancel(nil)
			return nil, fmt.Errorf("sluice: %s: %w", d.kind, err)
		}
	}
	for i := range readers {
		f, err := d.newFormat()
		if err != nil {
			cancel(nil)
			r.wg.Wait()
			return nil, fmt.Errorf("sluice: %s: %w", d.kind, err)
		}
		// free has room for four blocks: with three, one came back to a
		// full channel every dozen blocks or so and was dropped, to be
		// made anew (128 CIFAR-10 records are 442 KB: 230 bytes an
		// example, measured); with four none was.
		sl := &slot{seq: seq, stride: int64(readers), f: f, out: make(chan *block, 2), free: make(chan *block, 4), empty: empty, skips: &r.skipCount}
		p.slots = append(p.slots, sl)
		if p.done[i] {
			close(sl.out)
			continue
		}
		start := p.pos[i]
		r.wg.Go(func() { sl.run(rctx, start) })
	}

	// Workers decode the batches the planner makes, in parallel; the
	// order channel delivers them as they were made.
	jobs := make(chan *job, readers)
	for _, dec := range decs {
		r.wg.Go(func() {
			var recs [][]byte
			for j := range jobs {
				recs = recs[:0]
				for _, x := range j.recs {
					recs = append(recs, x.b)
				}
				j.e, j.err = decodeNamed(dec, recs, func() []string {
					keys := make([]string, len(j.recs))
					for i, x := range j.recs {
						keys[i] = seq.name(x.id.file) + ":" + strconv.FormatInt(x.id.off, 10)
					}
					return keys
				}, d.origin)
				// The decoder copied what it keeps.
				p.bufs.put(recs)
				select {
				case p.spare <- j.recs[:0]:
				default:
				}
				j.done <- struct{}{}
			}
		})
	}
	// The sizes a checkpoint saves, learnt now rather than by each
	// checkpoint (a resumed run knows them already).
	r.wg.Go(func() { r.sizes.learn(rctx) })
	r.wg.Go(func() {
		defer close(r.order)
		defer close(jobs)
		for {
			recs, err := p.batch(rctx)
			if err == nil && recs == nil {
				return
			}
			var j *job
			select {
			case j = <-r.free:
			default:
				// Done is signalled by a send, not closed, so that the
				// job can go round again.
				j = &job{done: make(chan struct{}, 1)}
			}
			j.recs, j.e, j.err = recs, nil, err
			if err != nil {
				j.done <- struct{}{}
			}
			select {
			case r.order <- j:
			case <-rctx.Done():
				return
			}
			if err != nil {
				return
			}
			select {
			case jobs <- j:
			case <-rctx.Done():
				return
			}
		}
	})
	return r, nil
}

// next returns the next batch's components, io.EOF at the end.
func (r *detRun) next(ctx context.Context) (queue.Element, error) {
	e, err := r.ordered.next(ctx)
	if err != nil {
		return nil, err
	}
	r.p.mu.Lock()
	if len(r.p.emitted) > 0 {
		if len(r.p.recent) == MaxCheckpointBefore {
			// Slid down in place rather than resliced, so that the
			// list's array is reused rather than regrown.
			if len(r.p.spareIDs) < 8 {
				r.p.spareIDs = append(r.p.spareIDs, r.p.recent[0])
			}
			r.p.recent = append(r.p.recent[:0], r.p.recent[1:]...)
		}
		r.p.recent = append(r.p.recent, r.p.emitted[0])
		r.p.emitted = r.p.emitted[1:]
	}
	r.p.mu.Unlock()
	return e, nil
}

// ordered delivers the batches of an engine whose workers decode them in
// parallel in the order they were made: order holds each job as it is
// made, done once decoded.
type ordered struct {
	skipCount
	order  chan *job
	cancel context.CancelCauseFunc
	wg     sync.WaitGroup // every goroutine of the engine
	// free, if not nil, takes back the jobs delivered, for an engine
	// whose jobs' done channels are signalled by a send.
	free chan *job
}

// next returns the next job's batch when it is decoded, io.EOF after the
// last.
func (o *ordered) next(ctx context.Context) (queue.Element, error) {
	var j *job
	var ok bool
	select {
	case j, ok = <-o.order:
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
	if !ok {
		return nil, io.EOF
	}
	select {
	case <-j.done:
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
	e, err := j.e, j.err
	if o.free != nil {
		j.recs, j.e, j.err = nil, nil, nil
		select {
		case o.free <- j:
		default:
		}
	}
	return e, err
}

// stop ends every goroutine of the engine: it cancels them, takes what
// they still deliver so that none is blocked, and waits.
func (o *ordered) stop() {
	o.cancel(errStopped)
	for range o.order {
	}
	o.wg.Wait()
}

var errStopped = errors.New("sluice: iteration stopped")
