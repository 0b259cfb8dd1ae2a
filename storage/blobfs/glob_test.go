package blobfs_test

import (
	"context"
	"errors"
	"path"
	"slices"
	"strings"
	"testing"

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
