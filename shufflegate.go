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
// shrinks to readBytes a reader, at the average size of the records read
// so far, and to one record a reader at the least.
type recordGate struct {
	base    int
	readers int

	mu      sync.Mutex
	queued  int   // records in the queue
	count   int64 // records read, and their bytes: their average size
	bytes   int64
	waiting int           // readers waiting for left
	left    chan struct{} // closed when records leave the queue
}

func newRecordGate(base, readers int) *recordGate {
	return &recordGate{base: base, readers: readers, left: make(chan struct{})}
}

// headroom returns how many records beyond base the queue may hold.
func (g *recordGate) headroom() int {
	most := readBatch * g.readers
	if g.bytes == 0 {
		return most
	}
	n := int64(g.readers) * readBytes * g.count / g.bytes
	return int(max(int64(g.readers), min(n, int64(most))))
}

// enter waits until k records of the given bytes may enter the queue, and
// counts them in. While the queue holds fewer than base records, any batch
// may enter (the queue's capacity takes a full one from each reader beyond
// base), so that the shuffle and the decoders are never starved, whatever
// the records' sizes.
func (g *recordGate) enter(ctx context.Context, k int, bytes int64) error {
	g.mu.Lock()
	g.count += int64(k)
	g.bytes += bytes
	for g.queued >= g.base && g.queued+k > g.base+g.headroom() {
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
	g.mu.Unlock()
	return nil
}

// leave counts k records out of the queue and wakes the readers waiting.
func (g *recordGate) leave(k int) {
	g.mu.Lock()
	g.queued -= k
	if g.waiting > 0 {
		close(g.left)
		g.left = make(chan struct{})
	}
	g.mu.Unlock()
}
