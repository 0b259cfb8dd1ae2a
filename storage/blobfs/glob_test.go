package blobfs_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sluiceml/sluice/storage/blobfs"
)

// globCases run against every store: the same keys and patterns as the
// storage package's local glob test, answers sorted.
func testGlob(t *testing.T, fsys *blobfs.FS, root string) {
	ctx := context.Background()
	for _, k := range []string{"b/train-1.tfrecord", "a/train-2.tfrecord", "a/train-10.tfrecord",
		"b/train-0.tfrecord", "a/eval-0.tfrecord", "c/train-x.txt", "a/sub/train-3.tfrecord", "top.txt"} {
		put(t, fsys, root+k, []byte(k))
	}
	tests := []struct {
		pattern string
		want    []string
	}{
		{"*/train-*.tfrecord", []string{"a/train-10.tfrecord", "a/train-2.tfrecord", "b/train-0.tfrecord", "b/train-1.tfrecord"}},
		{"b/train-?.tfrecord", []string{"b/train-0.tfrecord", "b/train-1.tfrecord"}},
		{"[ac]/*", []string{"a/eval-0.tfrecord", "a/train-10.tfrecord", "a/train-2.tfrecord", "c/train-x.txt"}},
		{"a/*/*", []string{"a/sub/train-3.tfrecord"}},
		{"a/eval-0.tfrecord", []string{"a/eval-0.tfrecord"}},
		{"a/eval-0", nil}, // a key prefix is not a match
		{"*", []string{"top.txt"}},
		{`a/train-1\0.tfrecord`, []string{"a/train-10.tfrecord"}},
		{"*/none-*", nil},
	}
	for _, tt := range tests {
		got, err := fsys.Glob(ctx, root+tt.pattern)
		if err != nil {
			t.Fatalf("Glob(%q): %v", tt.pattern, err)
		}
		var want []string
		for _, w := range tt.want {
			want = append(want, root+w)
		}
		if !slices.Equal(got, want) {
			t.Errorf("Glob(%q) = %q, want %q", root+tt.pattern, got, want)
		}
	}
	if _, err := fsys.Glob(ctx, root+"a/[x"); !errors.Is(err, path.ErrBadPattern) {
		t.Errorf("Glob of a bad pattern = %v", err)
	}
}

func TestGlobS3(t *testing.T) {
	s := newS3(t)
	fsys := s.fs(t)
	testGlob(t, fsys, "s3://bucket/")
	// The answer keeps the pattern's form, scheme's case included.
	got, err := fsys.Glob(context.Background(), "S3://bucket/a/eval-*")
	if err != nil || !slices.Equal(got, []string{"S3://bucket/a/eval-0.tfrecord"}) {
		t.Errorf("Glob(S3://...) = %q, %v", got, err)
	}
	// Listing asks for the literal prefix only.
	s.setFaults(nil)
	fsys.Glob(context.Background(), "s3://bucket/a/train-*")
	if got := s.requests("GET /bucket?"); len(got) != 1 || !slices.ContainsFunc(got, func(r string) bool {
		return strings.Contains(r, "prefix=a%2Ftrain-")
	}) {
		t.Errorf("list requests %q; want one with prefix a/train-", got)
	}
}

func TestGlobMem(t *testing.T) {
	fsys := blobfs.New()
	defer fsys.Close()
	testGlob(t, fsys, "mem://data/")
}

// listPages answers S3 listings (ListObjectsV2) of the bucket with pages
// of its own: for each request's continuation token ("" for the first),
// the page's keys and the next token ("" for the last page). A page
// without a next token says it is truncated if cut is set.
func listPages(pages func(token string) (keys []string, next string), cut ...bool) func(http.Handler) http.Handler {
	return func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodGet || !r.URL.Query().Has("list-type") {
				h.ServeHTTP(w, r)
				return
			}
			keys, next := pages(r.URL.Query().Get("continuation-token"))
			var b strings.Builder
			fmt.Fprintf(&b, `<?xml version="1.0" encoding="UTF-8"?><ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>%s</Name><KeyCount>%d</KeyCount><MaxKeys>1000</MaxKeys><IsTruncated>%v</IsTruncated>`,
				testBucket, len(keys), next != "" || len(cut) > 0 && cut[0])
			if next != "" {
				fmt.Fprintf(&b, "<NextContinuationToken>%s</NextContinuationToken>", next)
			}
			for _, k := range keys {
				fmt.Fprintf(&b, `<Contents><Key>%s</Key><LastModified>2026-01-01T00:00:00.000Z</LastModified><ETag>"x"</ETag><Size>1</Size></Contents>`, k)
			}
			b.WriteString("</ListBucketResult>")
			w.Header().Set("Content-Type", "application/xml")
			io.WriteString(w, b.String())
		})
	}
}

// A listing of several pages is followed to its end; one whose next
// page's token is one it gave before would page forever, and is an error
// (audit 43: 8125 pages in 3 s, ending only at the caller's deadline).
func TestGlobPages(t *testing.T) {
	s := newS3(t)
	fsys := s.fs(t)
	s.setFaults(listPages(func(token string) ([]string, string) {
		switch token {
		case "":
			return []string{"d/a", "d/b"}, "t1"
		case "t1":
			return []string{"d/c"}, "t2"
		default:
			return []string{"d/d", "e/x"}, ""
		}
	}))
	got, err := fsys.Glob(t.Context(), "s3://bucket/d/*")
	if want := []string{"s3://bucket/d/a", "s3://bucket/d/b", "s3://bucket/d/c", "s3://bucket/d/d"}; err != nil || !slices.Equal(got, want) {
		t.Errorf("Glob over three pages = %q, %v; want %q", got, err, want)
	}
	for _, loop := range []func(string) string{
		func(string) string { return "same" },
		func(token string) string { return map[string]string{"": "t1", "t1": "t2", "t2": "t1"}[token] },
	} {
		var pages atomic.Int64
		s.setFaults(listPages(func(token string) ([]string, string) {
			pages.Add(1)
			return []string{"d/a"}, loop(token)
		}))
		_, err := fsys.Glob(t.Context(), "s3://bucket/d/*")
		if !errors.Is(err, blobfs.ErrListingLoops) || pages.Load() > 4 {
			t.Errorf("Glob of a listing that loops, after %d pages: %v; want ErrListingLoops", pages.Load(), err)
		}
	}
}

// A page that says more keys follow and gives no token to ask for them is
// an error, not the listing's end: the keys after it would be left out
// without a word.
func TestGlobCutPage(t *testing.T) {
	s := newS3(t)
	fsys := s.fs(t)
	var pages atomic.Int64
	s.setFaults(listPages(func(token string) ([]string, string) {
		pages.Add(1)
		return []string{"d/a"}, ""
	}, true))
	_, err := fsys.Glob(t.Context(), "s3://bucket/d/*")
	if !errors.Is(err, blobfs.ErrListingCut) || pages.Load() != 1 {
		t.Errorf("Glob of a listing cut short, after %d pages: %v; want ErrListingCut after one page", pages.Load(), err)
	}
}

// Listing pages gocloud's S3 client panics on are errors, not panics: a
// version-1 listing (use_legacy_list) truncated with no key to go on from
// (gocloud indexes the page's last key), and a key without a modification
// time (gocloud dereferences it). Neither is retried.
func TestGlobUnreadablePage(t *testing.T) {
	for _, tc := range []struct {
		name   string
		legacy bool
		page   string
	}{
		{"version 1 cut", true, `<IsTruncated>true</IsTruncated>`},
		{"no time", false, `<KeyCount>1</KeyCount><IsTruncated>false</IsTruncated><Contents><Key>d/a</Key><ETag>"x"</ETag><Size>1</Size></Contents>`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newS3(t)
			s.legacyList = tc.legacy
			fsys := s.fs(t)
			var pages atomic.Int64
			s.setFaults(func(h http.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if r.Method != http.MethodGet || r.URL.Query().Has("location") || r.URL.Path != "/"+testBucket {
						h.ServeHTTP(w, r)
						return
					}
					pages.Add(1)
					w.Header().Set("Content-Type", "application/xml")
					fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?><ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>%s</Name><MaxKeys>1000</MaxKeys>%s</ListBucketResult>`, testBucket, tc.page)
				})
			})
			_, err := fsys.Glob(t.Context(), "s3://bucket/d/*")
			if err == nil || !strings.Contains(err.Error(), "listing page could not be read") || pages.Load() != 1 {
				t.Errorf("Glob of a page the client fails on, after %d requests: %v; want an error saying so after one", pages.Load(), err)
			}
		})
	}
}

// A listing request that stalls is cancelled after StallTimeout and
// retried, as a read's is: a dead connection cannot hang Glob (audit 43:
// it waited for the caller's context, forever without a deadline).
func TestGlobStalledListing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newS3Pipe(t)
		fsys := s.fs(t, blobfs.StallTimeout(time.Second), blobfs.Retries(2))
		put(t, fsys, "s3://bucket/d/a", []byte("x"))
		var stalls atomic.Int64
		s.setFaults(func(h http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Query().Has("list-type") && stalls.Add(1) <= 2 {
					<-r.Context().Done()
					return
				}
				h.ServeHTTP(w, r)
			})
		})
		got, err := fsys.Glob(t.Context(), "s3://bucket/d/*")
		if err != nil || !slices.Equal(got, []string{"s3://bucket/d/a"}) {
			t.Errorf("Glob after two stalled listings: %q, %v", got, err)
		}
		stalls.Store(-100)
		_, err = fsys.Glob(t.Context(), "s3://bucket/d/*")
		if !errors.Is(err, blobfs.ErrStalled) {
			t.Errorf("Glob whose listings all stall: %v; want ErrStalled", err)
		}
	})
}
