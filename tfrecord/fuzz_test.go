package tfrecord_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/sluiceml/sluice/dataerr"
	"github.com/sluiceml/sluice/tfrecord"
)

const (
	fuzzSkip = 1 << iota
	fuzzSkipDataCRC
	fuzzSmallBuffer
	fuzzPipe // the input's size is unknown
)

func fuzzSeeds(f *testing.F) {
	recs := [][]byte{[]byte("hello"), nil, bytes.Repeat([]byte("ab"), 100), []byte("x")}
	for _, c := range compressions {
		data := write(f, c, recs...)
		f.Add(data, uint8(c), uint8(0))
		f.Add(data[:len(data)-3], uint8(c), uint8(fuzzSkip))
		f.Add(corrupt(data, len(data)/2), uint8(c), uint8(fuzzSkip|fuzzSmallBuffer))
	}
	plain := frame(recs...)
	f.Add(corrupt(plain, 9), uint8(0), uint8(fuzzSkip))
	f.Add(corrupt(plain, 20), uint8(0), uint8(fuzzSkip))
	f.Add(append(frameHeader(1<<40), 1, 2, 3), uint8(0), uint8(0))
	f.Add(append(frameHeader(100), 1, 2, 3), uint8(0), uint8(fuzzSmallBuffer))
	f.Add([]byte{1, 2, 3}, uint8(0), uint8(0))
	// Bombs: whole records of zeros, and headers claiming more than follows.
	f.Add(bomb(f, tfrecord.Zstd, 1<<20, -1), uint8(tfrecord.Zstd), uint8(0))
	f.Add(bomb(f, tfrecord.Gzip, 1<<30, 1<<20), uint8(tfrecord.Gzip), uint8(fuzzSmallBuffer))
	f.Add(bomb(f, tfrecord.None, 1<<30, 100_000), uint8(0), uint8(0))
	f.Add(bomb(f, tfrecord.None, 1<<30, 100_000), uint8(0), uint8(fuzzPipe))
	f.Add(append(frameHeader(70_000), make([]byte, 70_003)...), uint8(0), uint8(fuzzPipe))
	// A zstd frame declaring a 1 TiB single-segment window.
	f.Add([]byte{0x28, 0xb5, 0x2f, 0xfd, 0xe0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0}, uint8(tfrecord.Zstd), uint8(0))
	for _, name := range []string{"tf_gzip.tfrecord", "tf_zlib.tfrecord", "zlib_full_flush.tfrecord.z", "corrupt_gzip_truncated.tfrecord"} {
		if b, err := os.ReadFile(filepath.Join("testdata", name)); err == nil {
			f.Add(b, uint8(tfrecord.DetectCompression(b)), uint8(0))
		}
	}
}

// FuzzReader: on any input, with any compression and policy, the reader
// never panics, ends with io.EOF or a *RecordError, and allocates in
// proportion to the data (compressed: the decompressed data) it saw.
func FuzzReader(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte, comp, flags uint8) {
		c := tfrecord.Compression(comp % 4)
		opts := []tfrecord.Option{c, tfrecord.Name("fuzz"), tfrecord.MaxRecordSize(1 << 40)}
		if flags&fuzzSkip != 0 {
			opts = append(opts, tfrecord.SkipCorrupt())
		}
		if flags&fuzzSkipDataCRC != 0 {
			opts = append(opts, tfrecord.SkipDataCRC())
		}
		if flags&fuzzSmallBuffer != 0 {
			opts = append(opts, tfrecord.BufferSize(64))
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		var src io.Reader = bytes.NewReader(data)
		if flags&fuzzPipe != 0 {
			src = onlyReader{src}
		}
		r := tfrecord.NewReader(src, opts...)
		var err error
		var total int64
		for {
			var rec []byte
			rec, err = r.Next()
			if err != nil {
				break
			}
			total += int64(len(rec))
			if r.Offset() < 0 || r.NextOffset() < r.Offset()+int64(len(rec))+tfrecord.Overhead {
				t.Fatalf("offsets %d, %d for a %d-byte record", r.Offset(), r.NextOffset(), len(rec))
			}
		}
		r.Close()
		runtime.ReadMemStats(&after)
		var re *tfrecord.RecordError
		if err != io.EOF && !errors.As(err, &re) {
			t.Fatalf("error %v (%T), want io.EOF or *RecordError", err, err)
		}
		if de, _ := errors.AsType[*dataerr.Error](err); re != nil && (!errors.Is(err, tfrecord.ErrDataLoss) || de == nil || de.File != "fuzz") {
			t.Fatalf("error %v does not match ErrDataLoss or lacks the name", err)
		}
		if errors.Is(err, tfrecord.ErrTooLarge) {
			t.Fatalf("length over 1<<40 in a fuzz input: %v", err)
		}
		alloc := after.TotalAlloc - before.TotalAlloc
		seen := uint64(len(data))
		if c != tfrecord.None {
			// Decompressors keep windows and tables; bound by what came out.
			// A zstd frame header alone makes the decoder allocate its
			// window, capped at 8 MiB (compress.go), twice over.
			seen = 5<<20 + uint64(r.NextOffset()) + uint64(total)
			if re != nil && re.Length > 0 {
				seen += min(re.Length, uint64(1032*len(data)))
			}
		}
		limit := 512<<10 + 4*seen
		if flags&fuzzPipe != 0 || c != tfrecord.None {
			// Of unknown size, a record claiming up to 1 MiB is allocated
			// at once, before its data has shown up (reader.go, readBig).
			limit += 1 << 20
		}
		if alloc > limit {
			t.Fatalf("%v: allocated %d bytes for %d input bytes (limit %d)", c, alloc, len(data), limit)
		}
		// Reading the stream from memory (ResetBytes, as recordio does
		// through a mapping) sees exactly what reading it does.
		want := trace(tfrecord.NewReader(bytes.NewReader(data), opts...))
		view := tfrecord.NewReader(nil)
		view.ResetBytes(data, opts...)
		if got := trace(view); got != want {
			t.Fatalf("ResetBytes read\n%s\nwant\n%s", got, want)
		}
	})
}

// FuzzRoundTrip: whatever records are written, in any compression, they
// read back identical at the offsets the writer reports.
func FuzzRoundTrip(f *testing.F) {
	f.Add([]byte(",a,bb,,ccc"), uint8(0), uint8(0))
	f.Add([]byte("\x00"), uint8(1), uint8(fuzzSmallBuffer))
	f.Add(append([]byte{0xff}, bytes.Repeat([]byte{1, 2, 3, 0xff}, 500)...), uint8(2), uint8(0))
	f.Add([]byte(";x;y;z"), uint8(3), uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, comp, flags uint8) {
		if len(data) == 0 {
			return
		}
		c := tfrecord.Compression(comp % 4)
		recs := bytes.Split(data[1:], data[:1])
		var buf bytes.Buffer
		w := tfrecord.NewWriter(&buf, c)
		var offs []int64
		for _, r := range recs {
			offs = append(offs, w.Offset())
			if err := w.Write(r); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		opts := []tfrecord.Option{c}
		if flags&fuzzSmallBuffer != 0 {
			opts = append(opts, tfrecord.BufferSize(64))
		}
		r := tfrecord.NewReader(&buf, opts...)
		defer r.Close()
		for i, want := range recs {
			got, err := r.Next()
			if err != nil || !bytes.Equal(got, want) || r.Offset() != offs[i] {
				t.Fatalf("record %d: %q at %d, %v; want %q at %d", i, got, r.Offset(), err, want, offs[i])
			}
		}
		if _, err := r.Next(); err != io.EOF {
			t.Fatalf("after the last record: %v", err)
		}
	})
}
