package blobfs_test

import (
	"context"
	"io"
	"testing"

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
