package index_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/sluiceml/sluice/index"
	"github.com/sluiceml/sluice/internal/s3test"
	"github.com/sluiceml/sluice/storage/blobfs"
	"github.com/sluiceml/sluice/tfrecord"
)

// s3Store serves the scheme "s3" from an in-process S3 server whose
// clock stands still, as an object rewritten within the same second
// looks to a store whose modification times are to the second.
func s3Store(t *testing.T) *blobfs.FS {
	t.Helper()
	clock := s3mem.WithTimeSource(gofakes3.FixedTimeSource(time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)))
	return s3test.Serve(t, "b", []s3mem.Option{clock})
}

func putRecords(t *testing.T, fsys *blobfs.FS, name string, recs ...string) {
	t.Helper()
	var b bytes.Buffer
	w := tfrecord.NewWriter(&b)
	for _, r := range recs {
		w.Write([]byte(r))
	}
	w.Close()
	out, err := fsys.Create(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	out.Write(b.Bytes())
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// An object rewritten with the same size at the same modification time
// differs from the one indexed only in its ETag, which the index records:
// its index is stale, and LoadOrBuild builds the rewritten object's. Before,
// the old index was loaded as current, and a global shuffle read the new
// object at the old one's record boundaries (audit 43).
func TestStaleSameSizeSameTime(t *testing.T) {
	t.Setenv("SLUICE_INDEX_DIR", t.TempDir())
	fsys := s3Store(t)
	ctx := context.Background()
	const name = "s3://b/x.tfrecord"
	putRecords(t, fsys, name, "aaaaaaaaaa", "bbbbbbbbbbbbbbbbbbbb")
	x, err := index.LoadOrBuild(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	if x.Version == "" {
		t.Fatal("the index of an S3 object records no version")
	}
	if _, err := index.Load(ctx, name); err != nil {
		t.Fatalf("the index just saved: %v", err)
	}
	putRecords(t, fsys, name, "cccccccccccccccccccc", "dddddddddd")
	if _, err := index.Load(ctx, name); !errors.Is(err, index.ErrStale) {
		t.Fatalf("after a rewrite of the same size and time: %v, want ErrStale", err)
	}
	y, err := index.LoadOrBuild(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	if start, end := y.Record(0); start != 0 || end != 16+20 {
		t.Errorf("record 0 of the rewritten object at [%d, %d), want [0, 36)", start, end)
	}
}

// An index saved before versions were recorded (format version 1) holds
// none; for an object, which has one, it is stale, and built again once.
func TestVersion1IndexOfObjectIsStale(t *testing.T) {
	t.Setenv("SLUICE_INDEX_DIR", t.TempDir())
	fsys := s3Store(t)
	ctx := context.Background()
	const name = "s3://b/y.tfrecord"
	putRecords(t, fsys, name, "aaaaaaaaaa")
	x, err := index.LoadOrBuild(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	stored, err := x.Save(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(stored)
	if err != nil {
		t.Fatal(err)
	}
	old := *x
	old.Version = ""
	if err := os.WriteFile(stored, index.MarshalV1(&old), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := index.Load(ctx, name); !errors.Is(err, index.ErrStale) {
		t.Fatalf("a version 1 index of an object: %v, want ErrStale", err)
	}
	if _, err := index.LoadOrBuild(ctx, name); err != nil {
		t.Fatal(err)
	}
	if again, _ := os.ReadFile(stored); !bytes.Equal(again, data) {
		t.Error("LoadOrBuild did not save the index again in the current format")
	}
}
