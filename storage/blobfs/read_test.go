package blobfs_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/sluiceml/sluice/storage"
	"github.com/sluiceml/sluice/storage/blobfs"
)

const kib, mib = 1 << 10, 1 << 20

func TestReadAtArbitraryOffsets(t *testing.T) {
	t.Run("s3", func(t *testing.T) {
		testReadAt(t, newS3(t).fs(t, blobfs.BlockSize(64*kib)), "s3://bucket/dir/obj.bin")
	})
	t.Run("mem", func(t *testing.T) {
		fsys := blobfs.New(blobfs.BlockSize(64 * kib))
		defer fsys.Close()
		testReadAt(t, fsys, "mem://bucket/dir/obj.bin")
	})
}

func testReadAt(t *testing.T, fsys *blobfs.FS, name string) {
	data := randomBytes(300*kib+17, 1)
	put(t, fsys, name, data)

	f := open(t, fsys, name)
	if f.Size() != int64(len(data)) || f.Name() != name {
		t.Fatalf("Size, Name = %d, %q", f.Size(), f.Name())
	}
	size := int64(len(data))
	for _, tt := range []struct {
		off int64
		n   int
	}{
		{0, 1}, {1, 100}, {64*kib - 1, 2}, {64 * kib, 64 * kib}, {100, 200 * kib},
		{size - 1, 1}, {size - 10, 10}, {0, int(size)}, {12345, 3 * 64 * kib},
	} {
		p := make([]byte, tt.n)
		n, err := f.ReadAt(p, tt.off)
		if err != nil || n != tt.n || !bytes.Equal(p, data[tt.off:tt.off+int64(tt.n)]) {
			t.Errorf("ReadAt(%d bytes at %d) = %d, %v; data equal %v", tt.n, tt.off, n, err, bytes.Equal(p[:n], data[tt.off:tt.off+int64(n)]))
		}
	}
	// Past the end: the bytes there are and io.EOF, as io.ReaderAt says.
	p := make([]byte, 100)
	if n, err := f.ReadAt(p, size-40); n != 40 || err != io.EOF || !bytes.Equal(p[:40], data[size-40:]) {
		t.Errorf("ReadAt across the end = %d, %v", n, err)
	}
	if n, err := f.ReadAt(p, size); n != 0 || err != io.EOF {
		t.Errorf("ReadAt at the end = %d, %v", n, err)
	}
	if _, err := f.ReadAt(p, -1); err == nil || errors.Is(err, io.EOF) {
		t.Errorf("ReadAt(-1) = %v", err)
	}
}

// A reader of small records pays one request per block, not per read.
func TestSequentialReadIsBlocked(t *testing.T) {
	s := newS3(t)
	fsys := s.fs(t, blobfs.BlockSize(256*kib), blobfs.Readahead(2))
	data := randomBytes(2*mib+5, 2)
	name := "s3://bucket/seq.bin"
	put(t, fsys, name, data)
	s.setFaults(nil)

	f, err := fsys.Open(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	buf := make([]byte, 1000) // odd size: reads straddle blocks
	if _, err := io.CopyBuffer(&got, struct{ io.Reader }{f}, buf); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if !bytes.Equal(got.Bytes(), data) {
		t.Fatalf("read %d bytes, not the %d written", got.Len(), len(data))
	}
	blocks := (len(data) + 256*kib - 1) / (256 * kib)
	if gets := s.requests("GET /bucket/seq.bin"); len(gets) != blocks {
		t.Errorf("%d GETs for %d blocks:\n%s", len(gets), blocks, strings.Join(gets, "\n"))
	}
}

func TestReadAtParallel(t *testing.T) {
	s := newS3(t)
	fsys := s.fs(t, blobfs.BlockSize(128*kib), blobfs.Concurrency(3))
	data := randomBytes(3*mib, 3)
	name := "s3://bucket/par.bin"
	put(t, fsys, name, data)
	f := open(t, fsys, name)
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := range 16 {
		wg.Go(func() {
			r := randomBytes(64, uint64(g))
			for i := range 8 {
				off := (int64(r[i*2])<<16 | int64(r[i*2+1])<<8) % int64(len(data))
				n := 1 + int(r[i*2+16])<<10
				p := make([]byte, n)
				m, err := f.ReadAt(p, off)
				if err != nil && !(err == io.EOF && off+int64(m) == int64(len(data))) {
					errs <- fmt.Errorf("ReadAt(%d, %d): %d, %w", n, off, m, err)
					return
				}
				if !bytes.Equal(p[:m], data[off:off+int64(m)]) {
					errs <- fmt.Errorf("ReadAt(%d, %d): wrong bytes", n, off)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestOpenMissing(t *testing.T) {
	s := newS3(t)
	fsys := s.fs(t)
	for _, name := range []string{"s3://bucket/missing", "s3://nobucket/x"} {
		_, err := fsys.Open(context.Background(), name)
		if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), name) {
			t.Errorf("Open(%s) = %v; want fs.ErrNotExist naming it", name, err)
		}
	}
	for _, name := range []string{"s3://bucket/", "s3://", "plain/path"} {
		if _, err := fsys.Open(context.Background(), name); err == nil {
			t.Errorf("Open(%q) succeeded", name)
		}
	}
}

func TestEmptyObject(t *testing.T) {
	s := newS3(t)
	fsys := s.fs(t)
	put(t, fsys, "s3://bucket/empty", nil)
	f := open(t, fsys, "s3://bucket/empty")
	if b, err := io.ReadAll(f); f.Size() != 0 || len(b) != 0 || err != nil {
		t.Errorf("empty object: size %d, ReadAll %q, %v", f.Size(), b, err)
	}
}

// Close ends the readahead in flight and later reads fail.
func TestCloseStopsReadahead(t *testing.T) {
	s := newS3(t)
	fsys := s.fs(t, blobfs.BlockSize(64*kib), blobfs.Readahead(8))
	name := "s3://bucket/ra.bin"
	put(t, fsys, name, randomBytes(mib, 4))
	f, err := fsys.Open(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Read(make([]byte, 10)); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Read(make([]byte, 10)); !errors.Is(err, blobfs.ErrClosed) {
		t.Errorf("Read after Close = %v", err)
	}
	if _, err := f.ReadAt(make([]byte, 10), 0); !errors.Is(err, blobfs.ErrClosed) {
		t.Errorf("ReadAt after Close = %v", err)
	}
	// goleak, in TestMain, checks that no fetch goroutine is left.
}

func TestCancelledContext(t *testing.T) {
	s := newS3(t)
	fsys := s.fs(t, blobfs.BlockSize(64*kib))
	name := "s3://bucket/ctx.bin"
	put(t, fsys, name, randomBytes(256*kib, 5))
	ctx, cancel := context.WithCancel(context.Background())
	f, err := fsys.Open(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cancel()
	if _, err := f.ReadAt(make([]byte, 10), 100*kib); !errors.Is(err, context.Canceled) {
		t.Errorf("ReadAt with cancelled context = %v", err)
	}
	if _, err := fsys.Open(ctx, name); !errors.Is(err, context.Canceled) {
		t.Errorf("Open with cancelled context = %v", err)
	}
}

func TestRegisterDefault(t *testing.T) {
	fsys := blobfs.RegisterDefault()
	defer fsys.Close()
	for _, scheme := range blobfs.DefaultSchemes {
		if !slices.Contains(storage.Schemes(), scheme) {
			t.Errorf("scheme %q not registered", scheme)
		}
	}
	// Local files stay with storage.Local.
	if got := storage.Schemes(); !slices.Contains(got, "file") {
		t.Errorf("schemes %q lost file", got)
	}
	ctx := context.Background()
	w, err := storage.Create(ctx, "mem://reg/x")
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(w, "hello")
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := storage.Open(ctx, "mem://reg/x")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if b, err := io.ReadAll(f); string(b) != "hello" || err != nil {
		t.Errorf("ReadAll = %q, %v", b, err)
	}
}

// Small reads here and there (records at an index's offsets) fetch their
// own bytes, one ranged request each, not a block each; sequential reads
// still go by blocks.
func TestSmallRandomReadsFetchTheirBytes(t *testing.T) {
	s := newS3(t)
	fsys := s.fs(t, blobfs.BlockSize(64*kib), blobfs.Readahead(0))
	data := randomBytes(1024*kib, 21)
	name := "s3://bucket/random.bin"
	put(t, fsys, name, data)
	f := open(t, fsys, name)
	s.setFaults(nil)
	for _, off := range []int64{700 * kib, 30*kib + 5, 900 * kib, 300 * kib} {
		p := make([]byte, 1000)
		if n, err := f.ReadAt(p, off); n != len(p) || err != nil || !bytes.Equal(p, data[off:off+1000]) {
			t.Fatalf("ReadAt at %d: %d, %v", off, n, err)
		}
	}
	gets := s.requests("GET")
	if len(gets) != 4 {
		t.Fatalf("%d GETs for four small reads: %q", len(gets), gets)
	}
	if want := fmt.Sprintf("bytes=%d-%d", 700*kib, 700*kib+999); !strings.HasSuffix(gets[0], want) {
		t.Errorf("first GET %q, want the range %s", gets[0], want)
	}
}
