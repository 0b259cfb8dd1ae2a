package blobfs_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/sluiceml/sluice/storage/blobfs"
)

// An object larger than the S3 driver's threshold for multipart uploads
// (16 MiB) goes up in parts of PartSize and reads back whole.
func TestMultipartWrite(t *testing.T) {
	s := newS3(t)
	fsys := s.fs(t, blobfs.PartSize(5*mib), blobfs.UploadConcurrency(2))
	data := randomBytes(16*mib+777*kib, 12)
	name := "s3://bucket/big/object.bin"

	w, err := fsys.Create(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	// Small writes, as a record writer makes them.
	for p := data; len(p) > 0; {
		n := min(len(p), 100*kib+3)
		if _, err := w.Write(p[:n]); err != nil {
			t.Fatal(err)
		}
		p = p[n:]
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got := s.requests("POST /bucket/big/object.bin?uploads"); len(got) != 1 {
		t.Errorf("%d multipart uploads started", len(got))
	}
	parts := 0
	for _, r := range s.requests("PUT /bucket/big/object.bin?") {
		if strings.Contains(r, "partNumber=") {
			parts++
		}
	}
	if parts != 4 { // 5+5+5+1.76 MiB
		t.Errorf("%d parts uploaded, want 4:\n%s", parts, strings.Join(s.requests(""), "\n"))
	}

	f := open(t, fsys, name)
	got, err := io.ReadAll(f)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("read back %d bytes, %v; want the %d written", len(got), err, len(data))
	}
}

// A failed upload is an error naming the object, and leaves no object.
func TestWriteErrorsNameObject(t *testing.T) {
	s := newS3(t)
	fsys := s.fs(t)
	ctx := context.Background()
	name := "s3://nosuchbucket/x.bin"
	w, err := fsys.Create(ctx, name)
	if err == nil {
		w.Write([]byte("data"))
		err = w.Close()
	}
	if err == nil || !strings.Contains(err.Error(), name) {
		t.Errorf("write to a missing bucket: %v", err)
	}

	name = "s3://bucket/failed.bin"
	s.setFaults(failEvery(1))
	w, err = fsys.Create(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte("data"))
	if err := w.Close(); err == nil || !strings.Contains(err.Error(), name) {
		t.Errorf("Close with the server failing = %v", err)
	}
	s.setFaults(nil)
	if _, err := fsys.Open(ctx, name); err == nil {
		t.Errorf("a failed upload left an object")
	}
}

func TestCreateBadNames(t *testing.T) {
	fsys := blobfs.New()
	defer fsys.Close()
	for _, name := range []string{"mem://b/", "mem://", "local/path"} {
		if _, err := fsys.Create(context.Background(), name); err == nil {
			t.Errorf("Create(%q) succeeded", name)
		}
	}
}

// A multipart upload whose context is cancelled is aborted, so that its
// parts are not left stored (and billed) in the bucket; the transfer
// manager would abort it with the cancelled context, which fails.
func TestCancelledMultipartAborted(t *testing.T) {
	s := newS3(t)
	fsys := s.fs(t, blobfs.PartSize(5*mib), blobfs.UploadConcurrency(2))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const name = "s3://bucket/cancel/object.bin"
	w, err := fsys.Create(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	data := randomBytes(20*mib, 3)
	for p := data; len(p) > 0; p = p[mib:] {
		if _, err := w.Write(p[:mib]); err != nil {
			t.Fatal(err)
		}
	}
	for deadline := time.Now().Add(10 * time.Second); len(s.requests("POST /bucket/cancel/object.bin?uploads")) == 0; {
		if time.Now().After(deadline) {
			t.Fatal("no multipart upload started")
		}
		time.Sleep(time.Millisecond)
	}
	cancel()
	if err := w.Close(); err == nil {
		t.Fatal("Close after the cancel succeeded")
	}
	if n := len(s.requests("DELETE /bucket/cancel/object.bin?uploadId")); n != 1 {
		t.Errorf("%d aborts of the one multipart upload:\n%s", n, strings.Join(s.requests(""), "\n"))
	}
}

// An upload to a store that takes the request and never answers fails
// after StallTimeout, as a read does, naming the object; it waited until
// its context ended (audit 61).
func TestUploadStallFails(t *testing.T) {
	s := newS3(t)
	fsys := s.fs(t, blobfs.StallTimeout(300*time.Millisecond))
	done := make(chan struct{})
	t.Cleanup(func() { close(done) })
	s.setFaults(func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodPut {
				h.ServeHTTP(w, r)
				return
			}
			io.Copy(io.Discard, r.Body)
			select { // no answer
			case <-r.Context().Done():
			case <-done:
			}
		})
	})
	name := "s3://bucket/stalled.bin"
	w, err := fsys.Create(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte("data"))
	res := make(chan error, 1)
	go func() { res <- w.Close() }()
	select {
	case err := <-res:
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("Close of a stalled upload = %v; want an error naming %s", err, name)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Close of a stalled upload still waiting after 20 s, with a StallTimeout of 300 ms")
	}
}
