package blobfs

import "sync"

// A blockPool recycles the buffers of blocks. Reading an object allocates
// nothing per block once the pool holds as many buffers as a file keeps
// cached and in flight: without it every 8 MiB block was a fresh
// allocation, the whole object's size in garbage per read.
type blockPool struct {
	size int
	pool sync.Pool // of *[]byte, each of cap size
}

// get returns a buffer of n bytes, n ≤ size.
func (p *blockPool) get(n int) *[]byte {
	if b, ok := p.pool.Get().(*[]byte); ok {
		*b = (*b)[:n]
		return b
	}
	b := make([]byte, n, p.size)
	return &b
}

// put returns a buffer that no one reads or writes any more.
func (p *blockPool) put(b *[]byte) {
	if cap(*b) == p.size {
		p.pool.Put(b)
	}
}
