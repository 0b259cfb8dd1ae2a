package blobfs_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/sluiceml/sluice/storage/blobfs"
)

// An object replaced by another of the same size while it is read is an
// error wrapping ErrObjectChanged, naming the object and the offset, and
// not a splice of the two versions' blocks. gofakes3 ignores If-Match on
// GET, as some S3-compatible stores do, so on s3 this is the ETag of each
// response checked; on mem, the modification time.
func TestObjectReplacedSameSize(t *testing.T) {
	for _, tt := range []struct {
		name string
		fs   func(t *testing.T) *blobfs.FS
	}{
		{"s3://bucket/same.bin", func(t *testing.T) *blobfs.FS {
			return newS3(t).fs(t, blobfs.BlockSize(64*kib), blobfs.Readahead(0))
		}},
		{"mem://bucket/same.bin", func(t *testing.T) *blobfs.FS {
			fsys := blobfs.New(blobfs.BlockSize(64*kib), blobfs.Readahead(0))
			t.Cleanup(func() { fsys.Close() })
			return fsys
		}},
	} {
		t.Run(tt.name[:strings.Index(tt.name, ":")], func(t *testing.T) {
			fsys := tt.fs(t)
			old := randomBytes(200*kib, 30)
			put(t, fsys, tt.name, old)
			f := open(t, fsys, tt.name)
			p := make([]byte, 10)
			if _, err := f.ReadAt(p, 0); err != nil || !bytes.Equal(p, old[:10]) {
				t.Fatalf("ReadAt before the change: %v", err)
			}
			put(t, fsys, tt.name, randomBytes(200*kib, 31))
			// The read at 100 KiB needs the block at 64 KiB, whose request
			// finds the change.
			n, err := f.ReadAt(p, 100*kib)
			t.Log(err)
			wantMsg := fmt.Sprintf("%s at offset %d", tt.name, 64*kib)
			if !errors.Is(err, blobfs.ErrObjectChanged) || !strings.Contains(err.Error(), wantMsg) {
				t.Errorf("ReadAt of a replaced object = %d, %v; want ErrObjectChanged naming %q", n, err, wantMsg)
			}
			// Sequentially, too: no byte of the new version is returned.
			f2 := open(t, fsys, tt.name)
			cur := make([]byte, 64*kib)
			if _, err := io.ReadFull(f2, cur); err != nil {
				t.Fatal(err)
			}
			put(t, fsys, tt.name, old)
			rest, err := io.ReadAll(f2)
			if !errors.Is(err, blobfs.ErrObjectChanged) || len(rest) != 0 {
				t.Errorf("ReadAll after the change = %d bytes, %v; want ErrObjectChanged", len(rest), err)
			}
		})
	}
}

// Where the store honours If-Match, as S3 does, each ranged GET carries
// the ETag seen at Open and the store refuses a replaced object (412
// PreconditionFailed), which is ErrObjectChanged, not retried.
func TestObjectReplacedIfMatch(t *testing.T) {
	s := newS3(t)
	fsys := s.fs(t, blobfs.BlockSize(64*kib), blobfs.Readahead(0))
	name := "s3://bucket/cond.bin"
	put(t, fsys, name, randomBytes(200*kib, 32))
	var ifMatch ifMatchLog
	s.setFaults(ifMatch.enforce)
	f := open(t, fsys, name)
	if _, err := f.ReadAt(make([]byte, 10), 0); err != nil {
		t.Fatal(err)
	}
	put(t, fsys, name, randomBytes(200*kib, 33))
	_, err := f.ReadAt(make([]byte, 10), 100*kib)
	t.Log(err)
	if !errors.Is(err, blobfs.ErrObjectChanged) || !strings.Contains(err.Error(), "PreconditionFailed") ||
		!strings.Contains(err.Error(), name+" at offset 65536") {
		t.Errorf("ReadAt = %v; want ErrObjectChanged from the store's PreconditionFailed", err)
	}
	headers, refused := ifMatch.get()
	if len(headers) != 2 || headers[0] == "" || headers[0] != headers[1] || refused != 1 {
		t.Errorf("If-Match of the GETs %q, %d refused; want the ETag at Open on both, the second refused", headers, refused)
	}
}

// ifMatchLog records the If-Match header of ranged GETs and enforces it
// as S3 does.
type ifMatchLog struct {
	mu      sync.Mutex
	headers []string
	refused int
}

func (l *ifMatchLog) get() ([]string, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.headers...), l.refused
}

func (l *ifMatchLog) enforce(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || r.Header.Get("Range") == "" {
			h.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		want := r.Header.Get("If-Match")
		l.mu.Lock()
		l.headers = append(l.headers, want)
		refuse := want != "" && rec.Header().Get("ETag") != want
		if refuse {
			l.refused++
		}
		l.mu.Unlock()
		if refuse {
			w.Header().Set("Content-Type", "application/xml")
			w.WriteHeader(http.StatusPreconditionFailed)
			io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>PreconditionFailed</Code><Message>At least one of the pre-conditions you specified did not hold</Message></Error>`)
			return
		}
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		w.Write(rec.Body.Bytes())
	})
}
