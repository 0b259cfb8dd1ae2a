package blobfs_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sluiceml/sluice/storage"
	"github.com/sluiceml/sluice/storage/blobfs"
)

// A Pending object on S3 is invisible under its name until Commit, which
// copies it there inside the store and deletes the temporary; Abort
// leaves nothing.
func TestPendingObject(t *testing.T) {
	s := newS3(t)
	blobfs.Register(s.fs(t), "s3")
	t.Cleanup(func() { storage.Unregister("s3") })
	ctx := context.Background()
	name := "s3://" + testBucket + "/data/d-00000-of-00001.tfrecord"

	p, err := storage.CreatePending(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(p, "whole"); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if f, err := storage.Open(ctx, name); err == nil {
		f.Close()
		t.Fatal("the object is visible before Commit")
	}
	if left, err := storage.Leftovers(ctx, name); err != nil || len(left) != 1 || left[0] != p.TempName() {
		t.Fatalf("Leftovers = %q, %v; want [%s]", left, err, p.TempName())
	}
	if err := p.Commit(); err != nil {
		t.Fatal(err)
	}
	f, err := storage.Open(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(f)
	f.Close()
	if err != nil || string(got) != "whole" {
		t.Errorf("read %q, %v; want whole", got, err)
	}
	if left, err := storage.Leftovers(ctx, name); err != nil || len(left) != 0 {
		t.Errorf("after Commit, Leftovers = %q, %v", left, err)
	}

	q, err := storage.CreatePending(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(q, "never seen")
	if err := q.Abort(); err != nil {
		t.Fatal(err)
	}
	if left, err := storage.Leftovers(ctx, name); err != nil || len(left) != 0 {
		t.Errorf("after Abort, Leftovers = %q, %v", left, err)
	}
	f, err = storage.Open(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	got, _ = io.ReadAll(f)
	f.Close()
	if string(got) != "whole" {
		t.Errorf("after Abort the committed object reads %q", got)
	}
}

// Rename to the object's own name leaves it, as os.Rename does; a copy
// and a delete would delete it.
func TestRenameToItself(t *testing.T) {
	s := newS3(t)
	fsys := s.fs(t)
	name := "s3://" + testBucket + "/same"
	put(t, fsys, name, []byte("precious"))
	if err := fsys.Rename(context.Background(), name, name); err != nil {
		t.Fatal(err)
	}
	f := open(t, fsys, name)
	got, err := io.ReadAll(f)
	f.Close()
	if err != nil || string(got) != "precious" {
		t.Fatalf("after Rename(x, x): %q, %v", got, err)
	}
}

// A store that refuses the delete after the copy (write-only
// credentials): Rename says the object is under its new name and the old
// is left, and a Pending's Commit counts as done, with its temporary
// named, rather than reporting a write that did happen as failed.
func TestRenameDeleteRefused(t *testing.T) {
	s := newS3(t)
	fsys := s.fs(t, blobfs.Retries(1))
	blobfs.Register(fsys, "s3")
	t.Cleanup(func() { storage.Unregister("s3") })
	ctx := context.Background()
	name := "s3://" + testBucket + "/final"
	put(t, fsys, name, []byte("old"))
	p, err := storage.CreatePending(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(p, "new")
	s.setFaults(func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodDelete {
				w.Header().Set("Content-Type", "application/xml")
				w.WriteHeader(http.StatusForbidden)
				io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code><Message>no delete</Message></Error>`)
				return
			}
			h.ServeHTTP(w, r)
		})
	})
	err = storage.CommitAll([]*storage.Pending{p})
	s.setFaults(nil)
	if !errors.Is(err, storage.ErrOldNameLeft) || !strings.Contains(err.Error(), p.TempName()) {
		t.Errorf("CommitAll = %v; want ErrOldNameLeft naming %s", err, p.TempName())
	}
	f := open(t, fsys, name)
	got, _ := io.ReadAll(f)
	f.Close()
	if string(got) != "new" {
		t.Errorf("the final name holds %q, want new", got)
	}
	if err := p.Abort(); err != nil { // committed: nothing to undo
		t.Errorf("Abort after the commit: %v", err)
	}
	if left, _ := storage.Leftovers(ctx, name); len(left) != 1 {
		t.Errorf("Leftovers = %q, want the temporary", left)
	}
}

// copyAnswerLost makes the store carry out every copy and answer it with
// a server error, as a connection that drops each answer would.
func copyAnswerLost(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPut && r.Header.Get("X-Amz-Copy-Source") != "" {
			h.ServeHTTP(httptest.NewRecorder(), r)
			w.Header().Set("Content-Type", "application/xml")
			w.WriteHeader(http.StatusInternalServerError)
			io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>InternalError</Code><Message>lost</Message></Error>`)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// A copy the store made, whose every answer was lost, is a rename that
// happened: Commit reports it done and the temporary is deleted, where
// it reported the output "not written" though the final name held it,
// and CommitAll left a data set of new and old parts behind that error
// (audit 43). A copy that did not happen is still an error, and the old
// object stays.
func TestRenameCopyAnswerLost(t *testing.T) {
	s := newS3(t)
	fsys := s.fs(t, blobfs.Retries(1))
	blobfs.Register(fsys, "s3")
	t.Cleanup(func() { storage.Unregister("s3") })
	ctx := context.Background()
	name := "s3://" + testBucket + "/final"
	put(t, fsys, name, []byte("old"))
	p, err := storage.CreatePending(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(p, "new")
	s.setFaults(copyAnswerLost)
	err = p.Commit()
	s.setFaults(nil)
	if err != nil {
		t.Errorf("Commit of a copy made whose answers were lost: %v", err)
	}
	f := open(t, fsys, name)
	got, _ := io.ReadAll(f)
	f.Close()
	if string(got) != "new" {
		t.Errorf("the final name holds %q, want new", got)
	}
	if left, _ := storage.Leftovers(ctx, name); len(left) != 0 {
		t.Errorf("Leftovers = %q, want none", left)
	}

	// Copies refused outright: not written, the old object kept.
	p, err = storage.CreatePending(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(p, "newer")
	s.setFaults(func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPut && r.Header.Get("X-Amz-Copy-Source") != "" {
				w.WriteHeader(http.StatusInternalServerError)
				return
			}
			h.ServeHTTP(w, r)
		})
	})
	err = p.Commit()
	s.setFaults(nil)
	if err == nil || !strings.Contains(err.Error(), "not written") {
		t.Errorf("Commit of a copy refused: %v; want not written", err)
	}
	f = open(t, fsys, name)
	got, _ = io.ReadAll(f)
	f.Close()
	if string(got) != "new" {
		t.Errorf("after a refused copy the final name holds %q, want new", got)
	}
}

// An aborted Pending object is abandoned, not uploaded and then deleted:
// a small one sends nothing, and a multipart upload under way is aborted
// rather than completed, so that an interrupted command does not wait to
// upload what it throws away.
func TestPendingAbortUploadsNothing(t *testing.T) {
	s := newS3(t)
	blobfs.Register(s.fs(t, blobfs.PartSize(5*mib), blobfs.UploadConcurrency(2)), "s3")
	t.Cleanup(func() { storage.Unregister("s3") })
	ctx := context.Background()
	for _, size := range []int{10, 20 * mib} {
		name := fmt.Sprintf("s3://%s/abort/%d.tfrecord", testBucket, size)
		p, err := storage.CreatePending(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		key := "/" + testBucket + "/abort/" + path.Base(p.TempName())
		data := randomBytes(size, 5)
		for len(data) > 0 {
			n := min(len(data), mib)
			if _, err := p.Write(data[:n]); err != nil {
				t.Fatal(err)
			}
			data = data[n:]
		}
		for deadline := time.Now().Add(10 * time.Second); size > 5*mib && len(s.requests("POST "+key+"?uploads")) == 0; {
			if time.Now().After(deadline) {
				t.Fatalf("no multipart upload started:\n%s", strings.Join(s.requests(""), "\n"))
			}
			time.Sleep(time.Millisecond)
		}
		if err := p.Abort(); err != nil {
			t.Errorf("Abort of %d bytes: %v", size, err)
		}
		for _, r := range s.requests("") {
			// The parts a multipart upload sent before the abort
			// (PUT ?partNumber) are gone with its abort.
			if strings.HasPrefix(r, "PUT "+key+" ") || strings.HasPrefix(r, "POST "+key+"?uploadId") {
				t.Errorf("Abort of %d bytes made the object: %s", size, r)
			}
		}
		if size > 5*mib {
			if n := len(s.requests("DELETE " + key + "?uploadId")); n != 1 {
				t.Errorf("%d aborts of the multipart upload of %d bytes:\n%s", n, size, strings.Join(s.requests(""), "\n"))
			}
		}
		if left, err := storage.Leftovers(ctx, name); err != nil || len(left) != 0 {
			t.Errorf("after Abort of %d bytes, Leftovers = %q, %v", size, left, err)
		}
	}
}

// A copy or a delete that stalls is cancelled after StallTimeout and
// retried, as a read is: a commit, which goes on whatever its context,
// waited for good on a store that never answered (audit 47).
func TestRenameStalled(t *testing.T) {
	for _, method := range []string{http.MethodPut, http.MethodDelete} {
		t.Run(method, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := newS3Pipe(t)
				fsys := s.fs(t, blobfs.StallTimeout(time.Second), blobfs.Retries(2))
				put(t, fsys, "s3://bucket/a", []byte("x"))
				var stalls atomic.Int64
				s.setFaults(func(h http.Handler) http.Handler {
					return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
						isCopy := r.Header.Get("X-Amz-Copy-Source") != ""
						if r.Method == method && (method == http.MethodDelete || isCopy) && stalls.Add(1) <= 2 {
							<-r.Context().Done()
							return
						}
						h.ServeHTTP(w, r)
					})
				})
				if err := fsys.Rename(t.Context(), "s3://bucket/a", "s3://bucket/b"); err != nil {
					t.Errorf("Rename after two stalled requests: %v", err)
				}
				put(t, fsys, "s3://bucket/a", []byte("y"))
				stalls.Store(-100)
				if err := fsys.Rename(t.Context(), "s3://bucket/a", "s3://bucket/c"); !errors.Is(err, blobfs.ErrStalled) {
					t.Errorf("Rename whose requests all stall: %v; want ErrStalled", err)
				}
			})
		})
	}
}

// A commit of several objects whose second copy is refused for good
// leaves the first new beside the others old: nothing in the objects
// tells, so the error does, naming the one written (audit 47: the error
// named the others "not written" and never the one replaced).
func TestCommitAllMixedSaysSo(t *testing.T) {
	s := newS3(t)
	fsys := s.fs(t, blobfs.Retries(0))
	blobfs.Register(fsys, "s3")
	t.Cleanup(func() { storage.Unregister("s3") })
	ctx := context.Background()
	var files []*storage.Pending
	for i := range 3 {
		name := fmt.Sprintf("s3://%s/part-%d", testBucket, i)
		put(t, fsys, name, []byte("old"))
		p, err := storage.CreatePending(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(p, "new")
		files = append(files, p)
	}
	s.setFaults(func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.Contains(r.Header.Get("X-Amz-Copy-Source"), "part-1") {
				w.WriteHeader(http.StatusInternalServerError)
				return
			}
			h.ServeHTTP(w, r)
		})
	})
	err := storage.CommitAll(files)
	s.setFaults(nil)
	if err == nil || !strings.Contains(err.Error(), "the output mixes new and old files: s3://bucket/part-0 written") ||
		!strings.Contains(err.Error(), "s3://bucket/part-2 not written") {
		t.Errorf("CommitAll with the second copy refused: %v; want the mixed output named", err)
	}
}
