package sluice

import (
	"context"
	"fmt"
	"sync"
)

// readBytes is how many bytes of records a reader of a shuffled data set
// collects before it moves them into the shuffle buffer, if it has not
// collected readBatch records by then.
const readBytes = 8 << 20

// A recordGate holds the readers of a shuffled data set back while the
// records queue holds what the shuffle and the decoders need (base
// records: the buffer and three batches) and a headroom beyond it. The
// queue's capacity allows a batch of readBatch records from each reader
// beyond base, which costs nothing for records of a few KB; for records of
// megabytes it would be gigabytes held for no purpose (16 MiB records took
// 3.85 GB where Shuffle(100) asked for 1.6, audit 108), so the headroom
// shrinks to readBytes a reader, at the size of the records in the queue
// or of the batch entering, whichever is larger on average, and to one
// record a reader at the least. The sizes are those of the records there
// now, not of all read so far, whose average small records read first
// kept small when large ones followed (audit 111).
type recordGate struct {
	base    int
	readers int

	mu      sync.Mutex
	queued  int           // records in the queue
	bytes   int64         // their bytes
	waiting int           // readers waiting for left
	left    chan struct{} // closed when records leave the queue
}

func newRecordGate(base, readers int) *recordGate {
	return &recordGate{base: base, readers: readers, left: make(chan struct{})}
}

// headroom returns how many records beyond base the queue may hold while
// a batch of k records of the given bytes waits to enter.
func (g *recordGate) headroom(k int, bytes int64) int {
	most := int64(readBatch * g.readers)
	size := bytes / int64(max(k, 1))
	if g.queued > 0 {
		size = max(size, g.bytes/int64(g.queued))
	}
	if size == 0 {
		return int(most)
	}
	n := int64(g.readers) * readBytes / size
	return int(max(int64(g.readers), min(n, most)))
}

// enter waits until k records of the given bytes may enter the queue, and
// counts them in. While the queue holds fewer than base records, any batch
// may enter (the queue's capacity takes a full one from each reader beyond
// base), so that the shuffle and the decoders are never starved, whatever
// the records' sizes.
func (g *recordGate) enter(ctx context.Context, k int, bytes int64) error {
	g.mu.Lock()
	for g.queued >= g.base && g.queued+k > g.base+g.headroom(k, bytes) {
		left := g.left
		g.waiting++
		g.mu.Unlock()
		var err error
		select {
		case <-left:
		case <-ctx.Done():
			err = fmt.Errorf("sluice: waiting for room in the shuffle buffer: %w", ctx.Err())
		}
		g.mu.Lock()
		g.waiting--
		if err != nil {
			g.mu.Unlock()
			return err
		}
	}
	g.queued += k
	g.bytes += bytes
	g.mu.Unlock()
	return nil
}

// leave counts k records of the given bytes out of the queue and wakes
// the readers waiting.
func (g *recordGate) leave(k int, bytes int64) {
	g.mu.Lock()
	g.queued -= k
	g.bytes -= bytes
	if g.waiting > 0 {
		close(g.left)
		g.left = make(chan struct{})
	}
	g.mu.Unlock()
}

// bytesOf returns the bytes of recs, for the gate.
func bytesOf(recs [][]byte) int64 {
	n := 0
	for _, rec := range recs {
		n += len(rec)
	}
	return int64(n)
}
