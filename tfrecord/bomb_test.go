package tfrecord_test

import (
	"bytes"
	"errors"
	"hash/crc32"
	"io"
	"runtime"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zlib"
	"github.com/klauspost/compress/zstd"

	"github.com/sluiceml/sluice/dataerr"
	"github.com/sluiceml/sluice/tfrecord"
)

// bomb returns a stream of one record of zero bytes whose header claims
// length bytes, compressed with c: the whole record (data and CRC) if hold
// is negative, else only hold bytes of its data. Zeros compress about a
// thousandfold (gzip, zlib) or far more (zstd), so a large record costs
// little to store: tfrecord/testdata/mkbomb writes the same files to disk.
func bomb(tb testing.TB, c tfrecord.Compression, length, hold int64) []byte {
	tb.Helper()
	var buf bytes.Buffer
	var w io.Writer = &buf
	var closer io.Closer
	switch c {
	case tfrecord.Zlib:
		zw, _ := zlib.NewWriterLevel(&buf, zlib.BestSpeed)
		w, closer = zw, zw
	case tfrecord.Gzip:
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
		w, closer = zw, zw
	case tfrecord.Zstd:
		zw, _ := zstd.NewWriter(&buf, zstd.WithEncoderConcurrency(1))
		w, closer = zw, zw
	}
	w.Write(frameHeader(uint64(length)))
	whole := hold < 0
	if whole {
		hold = length
	}
	zeros := make([]byte, 1<<20)
	crc := uint32(0)
	for n := hold; n > 0; {
		m := min(n, int64(len(zeros)))
		crc = crc32.Update(crc, crc32.MakeTable(crc32.Castagnoli), zeros[:m])
		w.Write(zeros[:m])
		n -= m
	}
	if whole {
		m := tfrecord.Mask(crc)
		w.Write([]byte{byte(m), byte(m >> 8), byte(m >> 16), byte(m >> 24)})
	}
	if closer != nil {
		if err := closer.Close(); err != nil {
			tb.Fatal(err)
		}
	}
	return buf.Bytes()
}

// firstChunk is the reader's first step for a large record of unknown
// size (reader.go).
const firstChunk = 256 << 10

// onlyReader hides every method but Read (such as io.Seeker), so the
// Reader cannot know the input's size: a pipe.
type onlyReader struct{ io.Reader }

// decoderMemory bounds what c's decompressor allocates for itself: zstd
// its window, up to 8 MiB (the limit compress.go sets; bomb's encoder
// uses that much), the others a 32 KiB window and tables.
func decoderMemory(c tfrecord.Compression) uint64 {
	if c == tfrecord.Zstd {
		return 10 << 20
	}
	return 1 << 20
}

// allocated returns the bytes fn allocates.
func allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// A decompression bomb over MaxRecordSize fails at its header, with the
// file, offset, length and limit, before anything is inflated.
func TestBombOverMaxRecordSize(t *testing.T) {
	const length, limit = 64 << 20, 1 << 20
	for _, c := range compressions {
		data := bomb(t, c, length, -1)
		var err error
		alloc := allocated(func() {
			r := tfrecord.NewReader(onlyReader{bytes.NewReader(data)}, c, tfrecord.Name("bomb"), tfrecord.MaxRecordSize(limit))
			_, err = r.Next()
			r.Close()
		})
		re, _ := errors.AsType[*tfrecord.RecordError](err)
		de, _ := errors.AsType[*dataerr.Error](err)
		if !errors.Is(err, tfrecord.ErrTooLarge) || re == nil || de == nil || de.File != "bomb" || de.Offset != 0 || re.Length != length || re.Limit != limit {
			t.Fatalf("%v: %#v, want ErrTooLarge naming the file, offset, length and limit", c, err)
		}
		want := "bomb: record size too large (67108864 bytes, more than the limit of 1048576) at 0"
		if err.Error() != want {
			t.Errorf("%v: %q, want %q", c, err, want)
		}
		// The read buffer and the decompressor only.
		if alloc > 256<<10+decoderMemory(c) {
			t.Errorf("%v: allocated %d bytes to refuse the bomb", c, alloc)
		}
	}
}

// A record larger than the read buffer is read into storage of exactly
// its length, allocated at once when the input's size is known and once
// its first quarter has arrived when it is not; the old reader doubled to
// the length plus the CRC's 4 bytes and then once more, about three times
// the record.
func TestBigRecordAllocation(t *testing.T) {
	const length = 64 << 20
	for _, c := range compressions {
		for _, known := range []bool{true, false} {
			if c != tfrecord.None && known {
				continue // a compressed stream's size says nothing of the records
			}
			data := bomb(t, c, length, -1)
			var rec []byte
			var err error
			alloc := allocated(func() {
				var src io.Reader = bytes.NewReader(data)
				if !known {
					src = onlyReader{src}
				}
				r := tfrecord.NewReader(src, c)
				rec, err = r.Next()
			})
			if err != nil || len(rec) != length || cap(rec) != length {
				t.Fatalf("%v (size known: %v): record of %d bytes (capacity %d), %v; want %d bytes", c, known, len(rec), cap(rec), err, length)
			}
			limit := length + 256<<10 + decoderMemory(c) // the record, the buffer, the decompressor
			if !known {
				limit += length / 4 // the chunks holding the first quarter
			}
			if alloc > limit {
				t.Errorf("%v (size known: %v): allocated %d bytes for a %d-byte record, want ≤ %d", c, known, alloc, length, limit)
			}
		}
	}
}

// A header that claims more than the input holds costs memory in
// proportion to the bytes that are there, not to the claim; when the
// input's size is known (a file, a bytes.Reader, InputSize), it costs
// nothing at all.
func TestBombFalseClaim(t *testing.T) {
	const length, hold = 1 << 30, 3 << 20
	for _, c := range compressions {
		for _, known := range []bool{true, false} {
			if c != tfrecord.None && known {
				continue
			}
			data := bomb(t, c, length, hold)
			var err error
			alloc := allocated(func() {
				var src io.Reader = bytes.NewReader(data)
				if !known {
					src = onlyReader{src}
				}
				r := tfrecord.NewReader(src, c, tfrecord.Name("claim"))
				_, err = r.Next()
				r.Close()
			})
			de, _ := errors.AsType[*dataerr.Error](err)
			if !errors.Is(err, tfrecord.ErrTruncated) || de == nil || de.File != "claim" || de.Offset != 0 {
				t.Fatalf("%v (size known: %v): %v, want ErrTruncated at 0", c, known, err)
			}
			limit := uint64(256 << 10) // the read buffer
			if !known {
				limit = firstChunk + decoderMemory(c) + 4*hold
			}
			if alloc > limit {
				t.Errorf("%v (size known: %v): allocated %d bytes for a claim of %d with %d present, want ≤ %d", c, known, alloc, uint64(length), hold, limit)
			}
		}
	}
}

// InputSize tells a Reader of a non-seekable input its size, with the
// same effect as measuring a seekable one.
func TestInputSize(t *testing.T) {
	data := bomb(t, tfrecord.None, 1<<30, 1<<20)
	var err error
	alloc := allocated(func() {
		r := tfrecord.NewReader(onlyReader{bytes.NewReader(data)}, tfrecord.InputSize(int64(len(data))))
		_, err = r.Next()
	})
	if !errors.Is(err, tfrecord.ErrTruncated) || alloc > 256<<10 {
		t.Errorf("%v after allocating %d bytes, want ErrTruncated and nothing allocated for the claim", err, alloc)
	}

	// A seekable input is measured from where it stands, and left there.
	good := frame(make([]byte, 100_000), []byte("x"))
	src := bytes.NewReader(append([]byte("junk"), good...))
	src.Seek(4, io.SeekStart)
	r := tfrecord.NewReader(src)
	var n int
	for rec, err := range r.All() {
		if err != nil || n == 0 && len(rec) != 100_000 {
			t.Fatalf("seekable input past a prefix: record %d of %d bytes, %v", n, len(rec), err)
		}
		n++
	}
	if n != 2 {
		t.Errorf("seekable input past a prefix: %d records, want 2", n)
	}
}

// A zstd frame header may declare a single-segment frame whose content
// size is the window; the decoder must refuse a huge one, not allocate it.
func TestZstdHugeWindow(t *testing.T) {
	for _, fcs := range []uint64{1 << 40, 1 << 30, 100 << 20} {
		// Magic, then a frame header descriptor: single segment, 8-byte
		// content size; then the size and an empty raw last block.
		data := []byte{0x28, 0xb5, 0x2f, 0xfd, 0xe0}
		for i := range 8 {
			data = append(data, byte(fcs>>(8*i)))
		}
		data = append(data, 1, 0, 0)
		var err error
		alloc := allocated(func() {
			r := tfrecord.NewReader(bytes.NewReader(data), tfrecord.Zstd)
			_, err = r.Next()
			r.Close()
		})
		if !errors.Is(err, tfrecord.ErrCorrupt) {
			t.Errorf("content size %d: %v, want ErrCorrupt", fcs, err)
		}
		if alloc > 4<<20 {
			t.Errorf("content size %d: allocated %d bytes", fcs, alloc)
		}
	}
}
