package blobfs_test

import (
	"bytes"
	"context"
	"io"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"

	"github.com/sluiceml/sluice/storage/blobfs"
)

// Reading an object again allocates far less than its size: the blocks'
// buffers come back to the FS's pool once nothing reads them. (Each block
// was a fresh allocation: a read of N bytes left N bytes of garbage.)
func TestBlockBuffersRecycled(t *testing.T) {
	fsys := blobfs.New(blobfs.BlockSize(256*kib), blobfs.Readahead(2))
	defer fsys.Close()
	const name = "mem://pool/obj.bin"
	data := randomBytes(16*mib, 7)
	put(t, fsys, name, data)

	read := func() {
		f := open(t, fsys, name)
		defer f.Close()
		got, err := io.ReadAll(io.LimitReader(f, int64(len(data))))
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("read %d bytes, %v; equal %v", len(got), err, bytes.Equal(got, data))
		}
	}
	read() // fills the pool
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f := open(t, fsys, name)
	buf := make([]byte, 64*kib)
	for {
		if _, err := f.Read(buf); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
	}
	f.Close()
	runtime.ReadMemStats(&after)
	// The pool may lose buffers to a collection, and under the race
	// detector sync.Pool drops a quarter of what it is given on purpose:
	// some blocks' worth of fresh buffers is allowed, the object's size
	// is not.
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > uint64(len(data))/2 {
		t.Errorf("reading %d bytes allocated %d bytes: block buffers are not reused", len(data), alloc)
	}
}

// Many goroutines reading at random offsets through a cache of a few
// small blocks see the object's bytes, while blocks are evicted and their
// buffers reused under them (run with -race).
func TestConcurrentReadsWithRecycledBlocks(t *testing.T) {
	fsys := blobfs.New(blobfs.BlockSize(4*kib), blobfs.Readahead(1), blobfs.Concurrency(3))
	defer fsys.Close()
	const name = "mem://pool/conc.bin"
	data := randomBytes(256*kib+3, 8)
	put(t, fsys, name, data)
	f, err := fsys.Open(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(g), 1))
			p := make([]byte, 10*kib)
			for range 300 {
				off := rng.Int64N(int64(len(data)))
				n := rng.IntN(len(p)) + 1
				m, err := f.ReadAt(p[:n], off)
				if err != nil && err != io.EOF {
					t.Errorf("ReadAt(%d at %d): %v", n, off, err)
					return
				}
				if !bytes.Equal(p[:m], data[off:off+int64(m)]) {
					t.Errorf("ReadAt(%d at %d): wrong bytes", n, off)
					return
				}
			}
		})
	}
	wg.Wait()
}
