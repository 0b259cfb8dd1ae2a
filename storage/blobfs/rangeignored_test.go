package blobfs_test

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/sluiceml/sluice/storage/blobfs"
)

// ignoreRange strips the Range header from GETs, as a proxy or server
// without range support does: the answer is 200 with the whole object.
func ignoreRange(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			r.Header.Del("Range")
		}
		h.ServeHTTP(w, r)
	})
}

// A response that ignores the range asked for, and sends the object from
// its first byte, fails the read rather than passing those bytes off as
// the ones at the offset.
func TestRangeIgnoredIsAnError(t *testing.T) {
	s := newS3(t)
	fsys := s.fs(t, blobfs.BlockSize(64*kib), blobfs.Readahead(0))
	data := randomBytes(200*kib, 15)
	name := "s3://bucket/norange.bin"
	put(t, fsys, name, data)
	s.setFaults(ignoreRange)

	// A read through the block cache (large enough not to go alone),
	// and a small one that fetches its own bytes.
	for _, tc := range []struct {
		size int
		at   int64
	}{{8 * kib, 64 * kib}, {100, 100 * kib}} {
		f := open(t, fsys, name)
		p := make([]byte, tc.size)
		n, err := f.ReadAt(p, 100*kib)
		wantMsg := fmt.Sprintf("%s at offset %d", name, tc.at)
		if err == nil || !strings.Contains(err.Error(), wantMsg) || n != 0 {
			t.Errorf("ReadAt of %d bytes = %d, %v (bytes right: %v); want an error naming %q", tc.size, n, err, bytes.Equal(p, data[100*kib:100*kib+tc.size]), wantMsg)
		}
	}
}
