package blobfs_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"testing"

	"github.com/sluiceml/sluice/storage/blobfs"
)

// FuzzReadAt drives a File's block arithmetic — blocks, readahead,
// eviction, the length checks, the end of the object — with random
// object sizes, block sizes, readahead and a script of reads, against a
// mem:// bucket. Every read must return exactly the object's bytes at
// its offset, with io.ReaderAt's and io.Reader's rules for the end, or
// an error it is entitled to; never a wrong byte, never a panic. A
// script may replace the object (by one of the same size or not) part
// way: from then on a read may fail with ErrObjectChanged, but any byte
// it returns is still the opened version's.
//
// The script is a sequence of 5-byte operations: a kind, a signed 16-bit
// offset (doubled, so it reaches past either end) and a 16-bit length.
//
//	go test -run '^$' -fuzz '^FuzzReadAt$' -fuzztime 30s -parallel 1 ./storage/blobfs
func FuzzReadAt(f *testing.F) {
	op := func(kind byte, off int16, n uint16) []byte {
		return []byte{kind, byte(off), byte(uint16(off) >> 8), byte(n), byte(n >> 8)}
	}
	script := func(ops ...[]byte) []byte { return bytes.Join(ops, nil) }
	f.Add(uint32(0), uint16(1), uint8(0), script(op(0, 0, 1), op(1, 0, 0), op(2, 0, 10)))
	f.Add(uint32(1000), uint16(99), uint8(2), script(op(0, 0, 1000), op(0, 495, 10), op(2, 0, 7), op(2, 0, 500), op(0, 500, 1), op(0, -1, 1)))
	f.Add(uint32(4096), uint16(1023), uint8(3), script(op(2, 0, 100), op(3, 0, 0), op(0, 1000, 200), op(2, 0, 4096)))
	f.Add(uint32(4096), uint16(511), uint8(1), script(op(2, 0, 600), op(3, 1, 0), op(2, 0, 4096), op(0, 2000, 100)))
	f.Add(uint32(16384), uint16(1023), uint8(4), script(op(0, 8190, 65535), op(1, 4000, 300), op(2, 0, 1), op(0, 32767, 10)))
	f.Fuzz(func(t *testing.T, size uint32, blockSize uint16, readahead uint8, ops []byte) {
		n := int(size % (16<<10 + 1))
		bs := int(blockSize%1024) + 1
		if n/bs > 256 { // keep a read to a few hundred requests
			bs = n/256 + 1
		}
		fsys := blobfs.New(blobfs.BlockSize(bs), blobfs.Readahead(int(readahead%5)), blobfs.Concurrency(2))
		defer fsys.Close()
		const name = "mem://fuzz/obj"
		data := randomBytes(n, uint64(size))
		put(t, fsys, name, data)
		file := open(t, fsys, name)
		if file.Size() != int64(n) {
			t.Fatalf("Size = %d, want %d", file.Size(), n)
		}

		replaced := false
		pos := 0 // the sequential reader's offset
		for i := 0; len(ops) >= 5 && i < 64; i++ {
			kind := ops[0] % 4
			off := 2 * int64(int16(binary.LittleEndian.Uint16(ops[1:])))
			l := int(binary.LittleEndian.Uint16(ops[3:]))
			ops = ops[5:]
			switch kind {
			case 0, 1: // ReadAt
				p := make([]byte, l)
				got, err := file.ReadAt(p, off)
				if got < 0 || got > l {
					t.Fatalf("ReadAt(%d bytes at %d) = %d", l, off, got)
				}
				if off < 0 {
					if got != 0 || err == nil || errors.Is(err, io.EOF) {
						t.Fatalf("ReadAt at %d = %d, %v; want an error", off, got, err)
					}
					continue
				}
				if got > 0 && !bytes.Equal(p[:got], data[off:off+int64(got)]) {
					t.Fatalf("ReadAt(%d bytes at %d): wrong bytes", l, off)
				}
				want := max(0, min(l, n-int(off)))
				switch {
				case replaced && errors.Is(err, blobfs.ErrObjectChanged):
				case err == nil && got == l && (l == 0 || int(off)+l <= n):
				// At the end, io.ReaderAt allows io.EOF with all the bytes.
				case err == io.EOF && got == want && int(off)+l >= n:
				default:
					t.Fatalf("ReadAt(%d bytes at %d) of %d = %d, %v", l, off, n, got, err)
				}
			case 2: // Read
				p := make([]byte, l)
				got, err := file.Read(p)
				if got < 0 || got > l || got > n-pos {
					t.Fatalf("Read(%d bytes at %d) of %d = %d", l, pos, n, got)
				}
				if !bytes.Equal(p[:got], data[pos:pos+got]) {
					t.Fatalf("Read(%d bytes at %d): wrong bytes", l, pos)
				}
				switch {
				case replaced && errors.Is(err, blobfs.ErrObjectChanged):
				case err == nil && (got > 0 || l == 0) && pos < n:
				case err == io.EOF && got == 0 && pos == n:
				default:
					t.Fatalf("Read(%d bytes at %d) of %d = %d, %v", l, pos, n, got, err)
				}
				pos += got
			case 3: // replace the object, by one of the same size when off is even
				m := n
				if off%4 != 0 {
					m = int(l) % (16<<10 + 1)
				}
				put(t, fsys, name, randomBytes(m, uint64(size)+1))
				replaced = true
			}
		}
	})
}
