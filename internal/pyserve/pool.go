package pyserve

import (
	"sync"
	"sync/atomic"
)

// A pool is one iteration's slots: the ring's free slots (each batch sent
// takes one, as a token where its batch is in a lent slot), the free lent
// slots, and the batches sent and not yet given back. A batch comes back
// when a next's keep says the client no longer holds it, or, sooner, when
// the control page says the client is done with it; the reading
// goroutines ask for the second (through slotAlloc) as well as the server.
type pool struct {
	ctl    *control // nil: batches come back through keep alone
	tokens slotStack
	lent   slotStack

	// freed is the client's count of batches released when last read:
	// below it, a read of the control page has nothing to give back.
	freed atomic.Uint64
	mu    sync.Mutex
	held  []result // sent, oldest first
}

func newPool(slots, lent int, ctl *control) *pool {
	p := &pool{ctl: ctl}
	// Slot 0 and the first lent slot on top.
	for k := range slots {
		p.tokens.put(slots - 1 - k)
	}
	for k := range lent {
		p.lent.put(slots + lent - 1 - k)
	}
	return p
}

// sent records a batch sent to the client.
func (p *pool) sent(r result) {
	p.mu.Lock()
	p.held = append(p.held, r)
	p.mu.Unlock()
}

// keep gives back the batches sent before the last n.
func (p *pool) keep(n int) {
	p.mu.Lock()
	for len(p.held) > n {
		p.giveBackLocked()
	}
	p.mu.Unlock()
}

// reclaim gives back the batches the control page says the client is
// done with.
func (p *pool) reclaim() {
	if p.ctl == nil {
		return
	}
	done := p.ctl.released()
	if done <= p.freed.Load() {
		return
	}
	p.mu.Lock()
	for len(p.held) > 0 && p.held[0].seq < done {
		p.giveBackLocked()
	}
	if done > p.freed.Load() {
		p.freed.Store(done)
	}
	p.mu.Unlock()
}

func (p *pool) giveBackLocked() {
	h := p.held[0]
	p.tokens.put(h.token)
	if h.batch.Slot != h.token {
		p.lent.put(h.batch.Slot)
	}
	// Shifted down rather than resliced, so that appends reuse the array.
	n := copy(p.held, p.held[1:])
	p.held[n] = result{}
	p.held = p.held[:n]
}
