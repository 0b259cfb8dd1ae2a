package blobfs_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"gocloud.dev/blob"
	"gocloud.dev/blob/driver"
	"gocloud.dev/blob/memblob"
	"gocloud.dev/gcerrors"

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
// With faults, the store misbehaves as they say, one byte per request
// (see flakyBucket): bodies that end early, run long, or break, and
// requests that fail. The reads may then also fail — with
// io.ErrUnexpectedEOF or the injected error after the retries, or at once
// with ErrLongBody — but
// still never return a wrong byte.
//
//	go test -run '^$' -fuzz '^FuzzReadAt$' -fuzztime 30s -parallel 1 ./storage/blobfs
func FuzzReadAt(f *testing.F) {
	op := func(kind byte, off int16, n uint16) []byte {
		return []byte{kind, byte(off), byte(uint16(off) >> 8), byte(n), byte(n >> 8)}
	}
	script := func(ops ...[]byte) []byte { return bytes.Join(ops, nil) }
	f.Add(uint32(0), uint16(1), uint8(0), script(op(0, 0, 1), op(1, 0, 0), op(2, 0, 10)), []byte(nil))
	f.Add(uint32(1000), uint16(99), uint8(2), script(op(0, 0, 1000), op(0, 495, 10), op(2, 0, 7), op(2, 0, 500), op(0, 500, 1), op(0, -1, 1)), []byte(nil))
	f.Add(uint32(4096), uint16(1023), uint8(3), script(op(2, 0, 100), op(3, 0, 0), op(0, 1000, 200), op(2, 0, 4096)), []byte(nil))
	f.Add(uint32(4096), uint16(511), uint8(1), script(op(2, 0, 600), op(3, 1, 0), op(2, 0, 4096), op(0, 2000, 100)), []byte(nil))
	f.Add(uint32(16384), uint16(1023), uint8(4), script(op(0, 8190, 65535), op(1, 4000, 300), op(2, 0, 1), op(0, 32767, 10)), []byte(nil))
	f.Add(uint32(5000), uint16(700), uint8(2), script(op(0, 0, 5000), op(2, 0, 900), op(0, 1200, 3000)), []byte{0, 0x13, 0x24, 0x35, 0x26, 0x07, 0x38, 0x09, 0x1a})
	f.Add(uint32(3000), uint16(255), uint8(0), script(op(2, 0, 3000), op(3, 0, 0), op(0, 100, 2000)), []byte{0x23, 0x23, 0x23, 0x23})
	f.Fuzz(func(t *testing.T, size uint32, blockSize uint16, readahead uint8, ops, faults []byte) {
		n := int(size % (16<<10 + 1))
		bs := int(blockSize%1024) + 1
		if n/bs > 256 { // keep a read to a few hundred requests
			bs = n/256 + 1
		}
		opts := []blobfs.Option{blobfs.BlockSize(bs), blobfs.Readahead(int(readahead % 5)), blobfs.Concurrency(2)}
		const name = "mem://fuzz/obj"
		mem := memblob.OpenBucket(nil)
		defer mem.Close()
		if len(faults) > 0 {
			flaky := &flakyBucket{under: mem, faults: faults}
			opts = append(opts, blobfs.Retries(2), blobfs.Backoff(time.Nanosecond, time.Nanosecond),
				blobfs.Opener(func(context.Context, string) (*blob.Bucket, error) { return blob.NewBucket(flaky), nil }))
		} else {
			opts = append(opts, blobfs.Opener(func(context.Context, string) (*blob.Bucket, error) { return mem, nil }))
		}
		fsys := blobfs.New(opts...)
		defer fsys.Close()
		put := func(p []byte) {
			if err := mem.WriteAll(context.Background(), "obj", p, nil); err != nil {
				t.Fatal(err)
			}
		}
		// allowed reports whether err is one a read may fail with: the
		// object replaced, or, with faults, the retries exhausted. Every
		// one names the object.
		allowed := func(err error, replaced bool) bool {
			if !strings.Contains(err.Error(), name) {
				return false
			}
			return replaced && errors.Is(err, blobfs.ErrObjectChanged) ||
				len(faults) > 0 && (errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, errInjected) || errors.Is(err, blobfs.ErrLongBody))
		}
		data := randomBytes(n, uint64(size))
		put(data)
		file, err := fsys.Open(context.Background(), name)
		if err != nil {
			if len(faults) > 0 && allowed(err, false) {
				return
			}
			t.Fatal(err)
		}
		defer file.Close()
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
				case err != nil && err != io.EOF && allowed(err, replaced):
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
				case err != nil && err != io.EOF && allowed(err, replaced):
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
				put(randomBytes(m, uint64(size)+1))
				replaced = true
			}
		}
	})
}

// errInjected is the failure flakyBucket injects.
var errInjected = errors.New("injected failure")

// flakyBucket is a gocloud driver serving the objects of under, with a
// fault for each ranged read taken in turn from faults: the low nibble
// picks the fault, the high one its size k.
//
//	0–5: none
//	6:   the body ends k+1 bytes early
//	7:   the body runs k+1 bytes past the range
//	8:   the body breaks after k*97 bytes
//	9:   the request fails
//	10:  the last bytes come with io.EOF
//
// Only the methods blobfs reads with are implemented.
type flakyBucket struct {
	driver.Bucket
	under *blob.Bucket

	mu     sync.Mutex
	faults []byte
	next   int
}

func (b *flakyBucket) fault() (kind, k int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	f := b.faults[b.next%len(b.faults)]
	b.next++
	return int(f&0xf) % 11, int(f >> 4)
}

func (b *flakyBucket) ErrorCode(err error) gcerrors.ErrorCode { return gcerrors.Code(err) }
func (b *flakyBucket) As(any) bool                            { return false }
func (b *flakyBucket) ErrorAs(error, any) bool                { return false }
func (b *flakyBucket) Close() error                           { return nil }

func (b *flakyBucket) Attributes(ctx context.Context, key string) (*driver.Attributes, error) {
	a, err := b.under.Attributes(ctx, key)
	if err != nil {
		return nil, err
	}
	return &driver.Attributes{Size: a.Size, ModTime: a.ModTime, ETag: a.ETag, ContentType: a.ContentType}, nil
}

func (b *flakyBucket) NewRangeReader(ctx context.Context, key string, off, length int64, _ *driver.ReaderOptions) (driver.Reader, error) {
	kind, k := b.fault()
	if kind == 9 {
		return nil, errInjected
	}
	r, err := b.under.NewRangeReader(ctx, key, off, length, nil)
	if err != nil {
		return nil, err
	}
	fr := &flakyReader{r: r, attrs: driver.ReaderAttributes{Size: r.Size(), ModTime: r.ModTime(), ContentType: r.ContentType()}, kind: kind}
	switch kind {
	case 6:
		fr.left = max(0, length-int64(k)-1)
	case 7:
		fr.extra = k + 1
	case 8:
		fr.left = int64(k * 97)
	}
	if kind != 6 && kind != 8 {
		fr.left = -1
	}
	return fr, nil
}

type flakyReader struct {
	r     *blob.Reader
	attrs driver.ReaderAttributes
	kind  int
	left  int64 // bytes before the fault, -1 for no limit
	extra int   // junk bytes after the body
}

func (r *flakyReader) Read(p []byte) (int, error) {
	if r.left == 0 {
		if r.kind == 8 {
			return 0, errInjected
		}
		return 0, io.EOF
	}
	if r.left > 0 && int64(len(p)) > r.left {
		p = p[:r.left]
	}
	n, err := r.r.Read(p)
	if r.left > 0 {
		r.left -= int64(n)
	}
	if err == io.EOF && r.extra > 0 {
		m := min(r.extra, len(p)-n)
		for i := range m {
			p[n+i] = 0xa5
		}
		r.extra -= m
		n += m
		err = nil
	}
	if r.kind == 10 && err == nil && n > 0 {
		if _, err2 := r.r.Read(nil); err2 == io.EOF { // nothing left
			err = io.EOF
		}
	}
	return n, err
}

func (r *flakyReader) Close() error                         { return r.r.Close() }
func (r *flakyReader) Attributes() *driver.ReaderAttributes { return &r.attrs }
func (r *flakyReader) As(any) bool                          { return false }
func (r *flakyReader) Download(w io.Writer) error {
	_, err := io.Copy(w, r)
	return err
}
