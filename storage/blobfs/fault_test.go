package blobfs_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/sluiceml/sluice/storage/blobfs"
)

// With every third request failing with 500, opening, globbing and
// reading (sequentially and in parallel) all still succeed, through
// blobfs's retries alone (the SDK's are off, see s3Server.fs).
func TestEveryThirdRequestFails(t *testing.T) {
	s := newS3(t)
	// Retries are generous because three readers share the failing
	// server: one request may, by interleaving, land on several third
	// slots in a row.
	fsys := s.fs(t, blobfs.BlockSize(64*kib), blobfs.Retries(10))
	data := randomBytes(mib+123, 6)
	for i := range 3 {
		put(t, fsys, fmt.Sprintf("s3://bucket/f/part-%d", i), data)
	}
	s.setFaults(failEvery(3))

	ctx := context.Background()
	names, err := fsys.Glob(ctx, "s3://bucket/f/part-*")
	if err != nil || len(names) != 3 {
		t.Fatalf("Glob = %q, %v", names, err)
	}
	var wg sync.WaitGroup
	for _, name := range names {
		wg.Go(func() {
			f, err := fsys.Open(ctx, name)
			if err != nil {
				t.Error(err)
				return
			}
			defer f.Close()
			got, err := io.ReadAll(f)
			if err != nil || !bytes.Equal(got, data) {
				t.Errorf("%s: ReadAll = %d bytes, %v", name, len(got), err)
			}
			p := make([]byte, 200*kib)
			if _, err := f.ReadAt(p, 333); err != nil || !bytes.Equal(p, data[333:333+len(p)]) {
				t.Errorf("%s: ReadAt: %v", name, err)
			}
		})
	}
	wg.Wait()
	if n := len(s.requests("")); n < 30 {
		t.Errorf("only %d requests; the faults were not exercised", n)
	}
}

// A connection dropped mid-body is resumed with a request for the rest,
// starting at the first byte not received.
func TestDroppedConnectionResumes(t *testing.T) {
	s := newS3(t)
	fsys := s.fs(t, blobfs.BlockSize(256*kib), blobfs.Readahead(0))
	data := randomBytes(600*kib, 7)
	name := "s3://bucket/drop.bin"
	put(t, fsys, name, data)
	const at = 300*kib + 4321 // inside the second block
	s.setFaults(dropAt(at, 1))

	f := open(t, fsys, name)
	got, err := io.ReadAll(f)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("ReadAll = %d bytes, %v; want the %d bytes written", len(got), err, len(data))
	}
	var ranges []string
	for _, r := range s.requests("GET /bucket/drop.bin") {
		ranges = append(ranges, r[strings.LastIndex(r, " ")+1:])
	}
	want := []string{
		"bytes=0-262143",
		"bytes=262144-524287",                       // cut at `at`
		fmt.Sprintf("bytes=%d-524287", at),          // the rest of it
		fmt.Sprintf("bytes=524288-%d", len(data)-1), // the last block
	}
	if !slices.Equal(ranges, want) {
		t.Errorf("ranges asked for:\n%s\nwant\n%s", strings.Join(ranges, "\n"), strings.Join(want, "\n"))
	}
}

// A connection that drops at the same byte every time exhausts the
// retries; the error names the object and the offset and wraps
// io.ErrUnexpectedEOF, and no read returns data past the break as if the
// file ended there.
func TestDroppedConnectionExhaustsRetries(t *testing.T) {
	s := newS3(t)
	fsys := s.fs(t, blobfs.BlockSize(256*kib), blobfs.Retries(2))
	data := randomBytes(600*kib, 8)
	name := "s3://bucket/dead.bin"
	put(t, fsys, name, data)
	const at = 300*kib + 4321
	s.setFaults(dropAt(at, -1))

	f := open(t, fsys, name)
	got, err := io.ReadAll(f)
	t.Log(err)
	wantMsg := fmt.Sprintf("%s at offset %d", name, at)
	if !errors.Is(err, io.ErrUnexpectedEOF) || !strings.Contains(err.Error(), wantMsg) {
		t.Errorf("ReadAll error = %v; want io.ErrUnexpectedEOF naming %q", err, wantMsg)
	}
	if len(got) > at || !bytes.Equal(got, data[:len(got)]) {
		t.Errorf("ReadAll returned %d bytes before failing", len(got))
	}
	if n := len(s.requests("GET /bucket/dead.bin")); n < 4 {
		t.Errorf("%d GETs; want the first try and 2 retries of the broken block", n)
	}
}

// A response that is well formed but short (Content-Length agrees with
// the body, the object is longer) is caught by the length check.
func TestShortBodyIsAnError(t *testing.T) {
	s := newS3(t)
	fsys := s.fs(t, blobfs.BlockSize(64*kib), blobfs.Retries(1))
	data := randomBytes(100*kib, 9)
	name := "s3://bucket/short.bin"
	put(t, fsys, name, data)
	s.setFaults(shortBodies(10))

	f := open(t, fsys, name)
	got, err := io.ReadAll(f)
	t.Log(err)
	wantMsg := fmt.Sprintf("%s at offset %d", name, 64*kib-10)
	if !errors.Is(err, io.ErrUnexpectedEOF) || !strings.Contains(err.Error(), wantMsg) {
		t.Errorf("ReadAll error = %v; want io.ErrUnexpectedEOF naming %q", err, wantMsg)
	}
	if len(got) != 0 {
		t.Errorf("ReadAll returned %d bytes of a block that failed its length check", len(got))
	}
	// ReadAt, too, fails rather than returning the bytes received.
	p := make([]byte, 100)
	if n, err := f.ReadAt(p, int64(len(data))-100); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("ReadAt of the short last block = %d, %v", n, err)
	}
}

// An object replaced by one of another size while it is read is an
// error, not a splice of two versions.
func TestObjectChangedSize(t *testing.T) {
	s := newS3(t)
	fsys := s.fs(t, blobfs.BlockSize(64*kib), blobfs.Readahead(0))
	name := "s3://bucket/changing.bin"
	put(t, fsys, name, randomBytes(200*kib, 10))
	f := open(t, fsys, name)
	if _, err := f.ReadAt(make([]byte, 10), 0); err != nil {
		t.Fatal(err)
	}
	put(t, fsys, name, randomBytes(150*kib, 11))
	_, err := f.ReadAt(make([]byte, 10), 100*kib)
	t.Log(err)
	if !errors.Is(err, blobfs.ErrObjectChanged) || !strings.Contains(err.Error(), name) {
		t.Errorf("ReadAt of a replaced object = %v; want ErrObjectChanged naming %s", err, name)
	}
}

// A store that closes connections before answering fails opens and reads
// with an error that does not match io.EOF, which every reader of records
// takes for the end of its input (audit 61: whole files lost silently).
func TestClosedBeforeAnswerIsNoEOF(t *testing.T) {
	s := newS3(t)
	fsys := s.fs(t, blobfs.BlockSize(64*kib), blobfs.Retries(1))
	put(t, fsys, "s3://bucket/k", randomBytes(100*kib, 7))
	ctx := context.Background()
	s.setFaults(closeBeforeAnswer(http.MethodHead))
	if _, err := fsys.Open(ctx, "s3://bucket/k"); err == nil || errors.Is(err, io.EOF) || !strings.Contains(err.Error(), "s3://bucket/k") {
		t.Errorf("Open, every HEAD's connection closed: %v; want an error that is not io.EOF, naming the object", err)
	}
	s.setFaults(nil)
	f, err := fsys.Open(ctx, "s3://bucket/k")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s.setFaults(closeBeforeAnswer(http.MethodGet))
	if _, err := f.ReadAt(make([]byte, 10), 0); err == nil || errors.Is(err, io.EOF) || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("ReadAt, every GET's connection closed: %v; want io.ErrUnexpectedEOF, not io.EOF", err)
	}
}
