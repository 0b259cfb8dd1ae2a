package blobfs

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"gocloud.dev/blob"

	"github.com/sluiceml/sluice/storage"
)

// A file reads an object in blocks of cfg.blockSize, each fetched with
// one ranged request. Blocks are cached (at most cacheCap of them), and a
// sequential reader has the next cfg.readahead blocks fetched before it
// asks, so a reader of small records waits on the network only when it
// outruns the readahead.
type file struct {
	cfg    *config
	b      *blob.Bucket
	name   string
	key    string
	size   int64
	ver    version             // what the object held when opened
	ropts  *blob.ReaderOptions // reads conditional on ver
	ctx    context.Context     // cancelled by Close
	cancel context.CancelFunc
	sem    chan struct{} // one token per request in flight
	wg     sync.WaitGroup

	mu       sync.Mutex
	blocks   map[int64]*block
	lru      []int64 // block indexes, least recently used first
	last     int64   // the block asked for last, to detect sequential reading
	cacheCap int
	closed   bool

	readMu sync.Mutex // serializes Read
	pos    int64
}

// A block is one ranged read, in flight until done is closed. Its buffer
// goes back to the pool when the last of its holders lets go: the cache,
// the fetch filling it, and each ReadAt copying from it (refs, under the
// file's mu).
type block struct {
	done chan struct{}
	buf  *[]byte
	data []byte
	err  error
	refs int
}

var _ storage.File = (*file)(nil)

func openFile(ctx context.Context, cfg *config, b *blob.Bucket, name, key string) (*file, error) {
	var ver version
	err := cfg.retry(ctx, func() (int, error) {
		w := cfg.watch(ctx)
		defer w.stop()
		a, err := b.Attributes(w.ctx, key)
		if err != nil {
			return 0, w.err(err)
		}
		ver = versionOf(a)
		return 0, nil
	})
	if err != nil {
		return nil, fmt.Errorf("blobfs: open %s: %w", name, notExist(err))
	}
	fctx, cancel := context.WithCancel(ctx)
	return &file{
		cfg: cfg, b: b, name: name, key: key, size: ver.size,
		ver: ver, ropts: ver.readerOptions(),
		ctx: fctx, cancel: cancel,
		sem:      make(chan struct{}, cfg.concurrency),
		blocks:   map[int64]*block{},
		last:     -1,
		cacheCap: cfg.readahead + 2,
	}, nil
}

func (f *file) Name() string { return f.name }
func (f *file) Size() int64  { return f.size }

// ModTime returns the object's modification time when it was opened, as
// its store reports it (the zero time if it does not).
func (f *file) ModTime() time.Time { return f.ver.modTime }

// Version returns what identifies the content the object held when it
// was opened: its ETag (S3, Azure, the in-memory store) or generation
// (GCS), which a rewrite changes even when it keeps the size and the
// second of the modification time; "" if the store reports neither.
func (f *file) Version() string { return f.ver.id() }

// Read reads from the current offset. It returns at most the rest of the
// current block, so it never waits for more than one fetch.
func (f *file) Read(p []byte) (int, error) {
	f.readMu.Lock()
	defer f.readMu.Unlock()
	if f.pos >= f.size {
		if err := f.checkOpen(); err != nil {
			return 0, err
		}
		return 0, io.EOF
	}
	bs := int64(f.cfg.blockSize)
	if rest := bs - f.pos%bs; int64(len(p)) > rest {
		p = p[:rest]
	}
	n, err := f.ReadAt(p, f.pos)
	f.pos += int64(n)
	if err == io.EOF && n > 0 {
		err = nil
	}
	return n, err
}

// ReadAt reads len(p) bytes at off, or up to the end of the object and
// io.EOF. The blocks it spans are fetched in parallel. It is safe to
// call from many goroutines at once.
func (f *file) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("blobfs: read %s at offset %d: negative offset", f.name, off)
	}
	if off >= f.size {
		if err := f.checkOpen(); err != nil {
			return 0, err
		}
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	want := p
	if rest := f.size - off; int64(len(want)) > rest {
		want = want[:rest]
	}
	bs := int64(f.cfg.blockSize)
	first, last := off/bs, (off+int64(len(want))-1)/bs
	if int64(len(want)) <= bs/smallRead && f.random(first, last) {
		// A small read away from the last one (a record at an index's
		// offset, say) fetches its own bytes: a block for it would cost
		// the store and the network the whole block.
		if err := f.readDirect(off, want); err != nil {
			return 0, err
		}
		if len(want) < len(p) {
			return len(want), io.EOF
		}
		return len(want), nil
	}
	// A read spans one block or two, almost always: their references fit
	// in this array, so a read allocates nothing.
	var refs [2]*block
	blocks, err := f.request(first, last, refs[:0])
	if err != nil {
		return 0, err
	}
	defer f.release(blocks)
	n := 0
	for i, blk := range blocks {
		if err := f.wait(first+int64(i), blk); err != nil {
			return n, err
		}
		start := int64(0)
		if i == 0 {
			start = off % bs
		}
		n += copy(want[n:], blk.data[start:])
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// smallRead: a read of at most BlockSize/smallRead bytes that is not
// sequential and not cached fetches only its bytes.
const smallRead = 16

// random reports whether a read of blocks first..last is away from the
// last read and not cached, and records it as the last read.
func (f *file) random(first, last int64) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	sequential := first == f.last || first == f.last+1
	f.last = last
	if sequential {
		return false
	}
	for i := first; i <= last; i++ {
		if _, ok := f.blocks[i]; !ok {
			return true
		}
	}
	return false
}

// readDirect fetches the bytes of p at off with one ranged request of
// their own, within the file's concurrency.
func (f *file) readDirect(off int64, p []byte) error {
	if err := f.checkOpen(); err != nil {
		return err
	}
	select {
	case f.sem <- struct{}{}:
		defer func() { <-f.sem }()
	case <-f.ctx.Done():
		return fmt.Errorf("blobfs: read %s at offset %d: %w", f.name, off, context.Cause(f.ctx))
	}
	return f.readRange(off, p)
}

func (f *file) checkOpen() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return fmt.Errorf("blobfs: read %s: %w", f.name, ErrClosed)
	}
	return nil
}

// request appends blocks first..last to blocks, starting the fetches not
// cached or in flight, and, when the reading is sequential, starts
// readahead.
func (f *file) request(first, last int64, blocks []*block) ([]*block, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return nil, fmt.Errorf("blobfs: read %s: %w", f.name, ErrClosed)
	}
	for i := first; i <= last; i++ {
		blk := f.get(i)
		blk.refs++ // the caller's, until it has copied from the block
		blocks = append(blocks, blk)
	}
	sequential := first == f.last || first == f.last+1
	f.last = last
	if sequential {
		nblocks := (f.size + int64(f.cfg.blockSize) - 1) / int64(f.cfg.blockSize)
		for i := last + 1; i <= last+int64(f.cfg.readahead) && i < nblocks; i++ {
			f.get(i)
		}
	}
	return blocks, nil
}

// get returns block i, starting its fetch if needed, and marks it most
// recently used. f.mu is held.
func (f *file) get(i int64) *block {
	if blk, ok := f.blocks[i]; ok {
		f.touch(i)
		return blk
	}
	off := i * int64(f.cfg.blockSize)
	n := min(int64(f.cfg.blockSize), f.size-off)
	blk := &block{done: make(chan struct{}), buf: f.cfg.blocks.get(int(n)), refs: 2} // the cache's and the fetch's
	f.blocks[i] = blk
	f.lru = append(f.lru, i)
	// Evict the least recently used blocks. A reader still copying from
	// an evicted block holds a reference, and an evicted fetch still in
	// flight finishes on its own, so eviction never breaks a read.
	for len(f.lru) > f.cacheCap {
		f.unref(f.blocks[f.lru[0]])
		delete(f.blocks, f.lru[0])
		f.lru = f.lru[1:]
	}
	f.wg.Add(1)
	go f.fetch(blk, off)
	return blk
}

func (f *file) touch(i int64) {
	for j, k := range f.lru {
		if k == i {
			copy(f.lru[j:], f.lru[j+1:])
			f.lru[len(f.lru)-1] = i
			return
		}
	}
}

// wait waits for block i. A failed block is dropped from the cache so
// that a later read tries again.
func (f *file) wait(i int64, blk *block) error {
	select {
	case <-blk.done:
	case <-f.ctx.Done():
		if err := f.checkOpen(); err != nil {
			return err
		}
		return fmt.Errorf("blobfs: read %s: %w", f.name, context.Cause(f.ctx))
	}
	if blk.err == nil {
		return nil
	}
	f.mu.Lock()
	if f.blocks[i] == blk {
		f.unref(blk)
		delete(f.blocks, i)
		for j, k := range f.lru {
			if k == i {
				f.lru = append(f.lru[:j], f.lru[j+1:]...)
				break
			}
		}
	}
	f.mu.Unlock()
	return blk.err
}

// fetch fills blk with the bytes at off, in its own goroutine.
func (f *file) fetch(blk *block, off int64) {
	defer f.wg.Done()
	defer func() {
		close(blk.done)
		f.mu.Lock()
		f.unref(blk)
		f.mu.Unlock()
	}()
	select {
	case f.sem <- struct{}{}:
		defer func() { <-f.sem }()
	case <-f.ctx.Done():
		blk.err = fmt.Errorf("blobfs: read %s at offset %d: %w", f.name, off, context.Cause(f.ctx))
		return
	}
	if blk.err = f.readRange(off, *blk.buf); blk.err == nil {
		blk.data = *blk.buf
	}
}

// release lets go of blocks request returned.
func (f *file) release(blocks []*block) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, blk := range blocks {
		f.unref(blk)
	}
}

// unref drops one reference to blk, and returns its buffer to the pool
// when it was the last. f.mu is held.
func (f *file) unref(blk *block) {
	blk.refs--
	if blk.refs == 0 {
		f.cfg.blocks.put(blk.buf)
		blk.buf, blk.data = nil, nil
	}
}

// Close stops the fetches in flight and waits for their goroutines.
func (f *file) Close() error {
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return fmt.Errorf("blobfs: close %s: %w", f.name, ErrClosed)
	}
	f.closed = true
	for _, blk := range f.blocks {
		f.unref(blk)
	}
	f.blocks, f.lru = nil, nil
	f.mu.Unlock()
	f.cancel()
	f.wg.Wait()
	return nil
}
