package machine

import (
	"hash/crc32"
	"math/rand/v2"
	"runtime"
	"testing"
)

// rowSize is an MNIST-size element (784 float32 and an int64 label), and
// bufferRows the seed pipeline's shuffle buffer.
const (
	rowSize    = 784*4 + 8
	bufferRows = 10000
	batchRows  = 128
)

// BenchmarkCompute checksums a buffer that stays in the core's cache: the
// scaling of work that touches no memory.
func BenchmarkCompute(b *testing.B) {
	table := crc32.MakeTable(crc32.Castagnoli)
	b.SetBytes(4096)
	b.RunParallel(func(pb *testing.PB) {
		buf := make([]byte, 4096)
		var sum uint32
		for pb.Next() {
			sum += crc32.Checksum(buf, table)
		}
		_ = sum
	})
}

// BenchmarkStream copies 64 KiB at a time out of a 64 MiB buffer per
// goroutine into one that stays in cache, as the kernel copies a file's
// pages from the page cache into a reader's buffer.
func BenchmarkStream(b *testing.B) {
	const chunk, size = 64 << 10, 64 << 20
	// One source a goroutine, filled before the timer starts; RunParallel
	// starts GOMAXPROCS goroutines.
	sources := make(chan []byte, runtime.GOMAXPROCS(0))
	for range cap(sources) {
		sources <- filled(size)
	}
	b.SetBytes(chunk)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		src := <-sources
		dst := make([]byte, chunk)
		off := 0
		for pb.Next() {
			copy(dst, src[off:off+chunk])
			off = (off + chunk) % size
		}
	})
}

// BenchmarkShuffleRows copies random rows of one shuffle buffer, shared by
// all goroutines, into a batch per goroutine, as a shuffle queue's dequeue
// does.
func BenchmarkShuffleRows(b *testing.B) {
	buffer := filled(bufferRows * rowSize)
	b.SetBytes(rowSize)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		batch := make([]byte, batchRows*rowSize)
		r := rand.New(rand.NewPCG(rand.Uint64(), 0))
		i := 0
		for pb.Next() {
			k := r.IntN(bufferRows)
			copy(batch[i*rowSize:(i+1)*rowSize], buffer[k*rowSize:(k+1)*rowSize])
			i = (i + 1) % batchRows
		}
	})
}

// filled returns n bytes written once, so that every page is mapped before
// the timer runs.
func filled(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i)
	}
	return b
}
