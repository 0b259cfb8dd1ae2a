package pyserve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"sync"

	"github.com/sluiceml/sluice"
	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/queue/natsqueue"
	"github.com/sluiceml/sluice/storage"
	"github.com/sluiceml/sluice/tensor"
)

// natsFiles is the filename queue of a data set read by workers on several
// hosts: the epochs of a natsqueue queue one after the other, each a
// natsqueue.Queue of its own (natsqueue.Epoch), as the Go workers of
// cmd/sluice-demo-distributed use them. Every worker produces each epoch
// it reaches: it lists the files and enqueues them, and natsqueue stores
// each file of an epoch once however many workers enqueue it; then it
// closes the epoch. A worker that finds an epoch closed (the others have
// produced it) reads what is left of it, and skips the epochs that are
// over (no file left to hand out). So the workers share each epoch's
// files, each read by one of them, whatever the hosts and however late one
// joins.
//
// A pass over the data set (an open: the trainer's loop over it) reads
// Epochs epochs, and the passes of all workers are aligned: pass k is
// epochs QueueEpoch+k*Epochs on. A pass reads the rest of the first pass
// not over, so a worker that joins late, or a DataLoader worker started
// anew for each of the trainer's epochs, reads with the others rather than
// an epoch of its own.
//
// It is a queue.Queue for sluice.FilenameQueue, which dequeues and
// acknowledges (recordio.WorkAcker) and does nothing else.
type natsFiles struct {
	url, name string
	files     []string // names and patterns
	base      int      // the number of the job's first epoch
	first     int      // where this pass starts looking for an epoch not over
	epochs    int      // per pass; 0: no end
	shuffle   bool     // each epoch's files in a random order
	seed      uint64

	mu      sync.Mutex
	cur     *natsqueue.Queue // the epoch being read; nil before the first
	epoch   int              // cur's number
	read    int              // epochs read, cur's included
	last    int              // the pass's last epoch, once the first is known
	done    bool             // past the last epoch
	handles []*natsqueue.Queue
	holders map[string][]*natsqueue.Queue // by unit: the handles that gave it out, oldest first
	taking  map[*natsqueue.Queue]int      // the readers in a take of each handle

	// stopping, if set, counts the handles being stopped in the
	// background, for the server to wait for before it exits.
	stopping *sync.WaitGroup
}

func newNATSFiles(o *Open) (*natsFiles, error) {
	if o.QueueName == "" {
		return nil, fmt.Errorf("open: queue_url without queue_name: %w", sluice.ErrInvalid)
	}
	if o.QueueEpoch < 0 {
		return nil, fmt.Errorf("open: queue_epoch %d: %w (want at least 0)", o.QueueEpoch, sluice.ErrInvalid)
	}
	for _, c := range []struct {
		set  bool
		name string
	}{{o.Shard != nil, "shard"}, {o.Deterministic, "deterministic"}, {o.GlobalShuffle, "global_shuffle"}} {
		if c.set {
			// The queue decides who reads which file.
			return nil, fmt.Errorf("open: %s with queue_url: %w", c.name, sluice.ErrInvalid)
		}
	}
	q := &natsFiles{url: o.QueueURL, name: o.QueueName, files: o.Files, base: o.QueueEpoch, first: o.QueueEpoch,
		shuffle: o.Shuffle != 0 || o.ShuffleFiles, holders: map[string][]*natsqueue.Queue{},
		taking: map[*natsqueue.Queue]int{}}
	switch {
	case o.Forever:
	case o.Epochs != 0:
		q.epochs = o.Epochs
	default:
		q.epochs = 1
	}
	if o.Seed != nil {
		q.seed = *o.Seed
	} else {
		q.seed = rand.Uint64()
	}
	return q, nil
}

func (q *natsFiles) Name() string                   { return "natsqueue " + q.name }
func (q *natsFiles) DTypes() []tensor.DType         { return []tensor.DType{tensor.String} }
func (q *natsFiles) Shapes() []tensor.Shape         { return []tensor.Shape{{}} }
func (q *natsFiles) Names() []string                { return nil }
func (q *natsFiles) Close(context.Context) error    { return nil }
func (q *natsFiles) CloseNow(context.Context) error { return nil }

var errReadOnly = errors.New("pyserve: the shared filename queue is read by the data set only")

func (q *natsFiles) Enqueue(context.Context, queue.Element) error     { return errReadOnly }
func (q *natsFiles) EnqueueMany(context.Context, queue.Element) error { return errReadOnly }
func (q *natsFiles) DequeueMany(context.Context, int) (queue.Element, error) {
	return nil, errReadOnly
}
func (q *natsFiles) DequeueUpTo(context.Context, int) (queue.Element, error) {
	return nil, errReadOnly
}

// Dequeue takes a file of the current epoch, and goes on to the next
// epoch when this one has no file left to hand out.
func (q *natsFiles) Dequeue(ctx context.Context) (queue.Element, error) {
	var ended *natsqueue.Queue
	for {
		h, e, err := q.current(ctx, ended)
		if err != nil {
			return nil, err
		}
		if e == nil {
			q.mu.Lock()
			q.taking[h]++
			q.mu.Unlock()
			e, err = q.take(ctx, h)
			q.mu.Lock()
			if q.taking[h]--; q.taking[h] == 0 {
				delete(q.taking, h)
			}
			retired := q.retireLocked(h)
			q.mu.Unlock()
			q.stopInBackground(retired)
			if errors.Is(err, io.EOF) {
				ended = h
				continue
			}
			if err != nil {
				return nil, err
			}
		}
		unit := string(e[0].Strings()[0])
		q.mu.Lock()
		q.holders[unit] = append(q.holders[unit], h)
		q.mu.Unlock()
		return e, nil
	}
}

// take dequeues a file of epoch h, and reports the end of the epoch
// (io.EOF) when no file is left to hand out, without waiting, as
// natsqueue's Dequeue does by default, for the files that other workers
// hold (natsqueue.EndWhenDelivered): workers of synchronous training wait
// for each other between steps, so one that waits for another's file
// while the other waits for it at the next step would never go on. A
// file of a worker that dies is handed out again after natsqueue's
// AckWait, to the next worker to open its epoch (the epoch is not over
// while it has a file to hand out).
//
// Until 2026-11-27 a dequeue waited 250 ms and then asked the queue's
// State whether any file was pending: over a link slower than that, each
// file came after its dequeue had given up, went back to the queue, and
// counted as held by a worker meanwhile, so the epoch ended with files
// unread (audit 55).
func (q *natsFiles) take(ctx context.Context, h *natsqueue.Queue) (queue.Element, error) {
	e, err := h.Dequeue(ctx)
	if errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: epoch %d: no file left to hand out: %w", q.Name(), h.Epoch(), io.EOF)
	}
	return e, err
}

// current returns the epoch to read, and its first file when it has just
// been opened; ended is one that reported its end, after which the next
// epoch is opened (once, whichever reader sees the end first).
func (q *natsFiles) current(ctx context.Context, ended *natsqueue.Queue) (*natsqueue.Queue, queue.Element, error) {
	var retired []*natsqueue.Queue
	defer func() { q.stopInBackground(retired) }() // after the unlock
	q.mu.Lock()
	defer q.mu.Unlock()
	if ended != nil && ended == q.cur {
		q.cur = nil
		if q.epochs != 0 && q.epoch >= q.last {
			q.done = true
		}
		retired = q.retireLocked(ended)
	}
	if q.done {
		return nil, nil, fmt.Errorf("%s: %w", q.Name(), io.EOF)
	}
	if q.cur != nil {
		return q.cur, nil, nil
	}
	e, limit := q.first, -1
	if q.read > 0 {
		e = q.epoch + 1
		if q.epochs != 0 {
			limit = q.last
		}
	}
	h, e, first, err := q.open(ctx, e, limit)
	if err != nil {
		return nil, nil, err
	}
	if h == nil {
		// The others have taken the rest of the pass meanwhile.
		q.done = true
		return nil, nil, fmt.Errorf("%s: %w", q.Name(), io.EOF)
	}
	if q.read == 0 && q.epochs != 0 {
		// Passes are aligned: pass k of every worker is epochs
		// base+k*epochs on, and one that joins late reads what is
		// left of the pass the others are in.
		q.last = q.base + ((e-q.base)/q.epochs+1)*q.epochs - 1
	}
	q.cur, q.epoch = h, e
	q.read++
	q.handles = append(q.handles, h)
	return h, first, nil
}

// reached returns the number of the last epoch this worker read, or the
// first it would read: where its next pass over the data starts looking.
func (q *natsFiles) reached() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.read == 0 {
		return q.first
	}
	return q.epoch
}

// open joins the first epoch from epoch on that is not over, produces it
// (the files, then the closed flag: nothing, if another worker has closed
// it) and takes its first file. An epoch is over when it has no file left
// to hand out: the other workers have taken its files while this one was
// away (between two passes of the trainer's, or before it started). It
// returns no queue when every epoch up to limit (-1: no limit) is over.
func (q *natsFiles) open(ctx context.Context, epoch, limit int) (*natsqueue.Queue, int, queue.Element, error) {
	files, err := q.list(ctx)
	if err != nil {
		return nil, 0, nil, err
	}
	for ; limit < 0 || epoch <= limit; epoch++ {
		// The queue holds the whole epoch twice over: every worker
		// enqueues it before it takes a file, so a queue of fewer
		// (natsqueue's default, 32) never took a file of more (audit 48);
		// and a worker's enqueue, stored once, must find room beside
		// another's whole epoch, or it waits until the other has read it
		// and begins with the next epoch, a pass out of step.
		h, err := natsqueue.Dial(ctx, q.url, q.name, natsqueue.Epoch(epoch), natsqueue.Capacity(max(32, 2*len(files))),
			natsqueue.EndWhenDelivered())
		if err != nil {
			return nil, 0, nil, err
		}
		// Each epoch's order follows from the seed and the epoch alone,
		// whichever epochs this worker found over before it: the sorted
		// list shuffled, not the order of the epoch before (audit 55).
		order := files
		if q.shuffle {
			order = slices.Clone(files)
			r := rand.New(rand.NewPCG(q.seed, uint64(epoch)))
			r.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		}
		err = h.EnqueueStrings(ctx, order...)
		if err == nil {
			err = h.Close(ctx)
		}
		if err != nil && !errors.Is(err, queue.ErrClosed) {
			// Closed: another worker has produced the epoch already.
			h.Stop(ctx)
			return nil, 0, nil, fmt.Errorf("producing epoch %d of %s: %w", epoch, q.Name(), err)
		}
		e, err := q.take(ctx, h)
		if errors.Is(err, io.EOF) {
			h.Stop(ctx)
			continue
		}
		if err != nil {
			h.Stop(ctx)
			return nil, 0, nil, err
		}
		return h, epoch, e, nil
	}
	return nil, epoch, nil, nil
}

// list expands the names and patterns, sorted, as every worker lists them.
func (q *natsFiles) list(ctx context.Context) ([]string, error) {
	var files []string
	for _, pat := range q.files {
		m, err := storage.Match(ctx, pat)
		if err != nil {
			return nil, err
		}
		if len(m) == 0 {
			return nil, fmt.Errorf("%w %q", sluice.ErrNoFiles, pat)
		}
		files = append(files, m...)
	}
	slices.Sort(files)
	return files, nil
}

// WorkDone acknowledges unit to the epoch that gave it out: a reader may
// finish a file of an epoch after another reader went on to the next.
func (q *natsFiles) WorkDone(ctx context.Context, unit string) error {
	q.mu.Lock()
	hs := q.holders[unit]
	if len(hs) == 0 {
		q.mu.Unlock()
		return fmt.Errorf("%s: WorkDone(%q): not a unit this worker holds: %w", q.Name(), unit, sluice.ErrInvalid)
	}
	h := hs[0]
	if len(hs) == 1 {
		delete(q.holders, unit)
	} else {
		q.holders[unit] = hs[1:]
	}
	q.mu.Unlock()
	err := h.WorkDone(ctx, unit)
	q.mu.Lock()
	retired := q.retireLocked(h)
	q.mu.Unlock()
	q.stopInBackground(retired)
	return err
}

// retireLocked takes h, an epoch's handle, from the handles, and returns
// it for the caller to stop once q.mu is released, when its epoch is no
// longer the one read, no reader is taking a file from it and it holds
// none: each handle has a connection of its own, and an endless iteration
// kept one for every epoch it had read until it ended (audit 46: 400
// sockets after 400 epochs). q.mu is held.
func (q *natsFiles) retireLocked(h *natsqueue.Queue) []*natsqueue.Queue {
	i := slices.Index(q.handles, h)
	if h == q.cur || i < 0 || q.taking[h] > 0 || h.Held() > 0 {
		return nil
	}
	q.handles = slices.Delete(q.handles, i, i+1)
	return []*natsqueue.Queue{h}
}

// stop hands back the files this worker holds unfinished, for the others
// to read at once, and ends the connections.
func (q *natsFiles) stop() {
	q.mu.Lock()
	hs := q.handles
	q.handles, q.cur, q.done = nil, nil, true
	q.mu.Unlock()
	for _, h := range hs {
		h.ReleaseAll()
	}
	q.stopInBackground(hs)
}

// stopInBackground stops the handles hs. Stop waits for the pull requests
// of cancelled dequeues to end, up to a second or two: the next pass, or
// the next file, need not wait for that. Without a server's stopping to
// count them on, they are stopped before it returns.
func (q *natsFiles) stopInBackground(hs []*natsqueue.Queue) {
	if len(hs) == 0 {
		return
	}
	if q.stopping == nil {
		for _, h := range hs {
			h.Stop(context.Background())
		}
		return
	}
	q.stopping.Go(func() {
		for _, h := range hs {
			h.Stop(context.Background())
		}
	})
}
