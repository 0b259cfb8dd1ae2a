package storage_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/sluiceml/sluice/storage"
)

// A local name whose temporary name would be longer than a file name can
// be is refused before anything is created, with a message that says
// how long a name can be; the longest that fits is written.
func TestCheckName(t *testing.T) {
	dir := t.TempDir()
	fits := filepath.Join(dir, strings.Repeat("a", 229))
	for _, tt := range []struct {
		name string
		ok   bool
	}{
		{fits, true},
		{fits + "b", false},
		{"file://" + fits + "b", false},
		{"s3://bucket/" + strings.Repeat("a", 300), true},
	} {
		err := storage.CheckName(tt.name)
		if tt.ok != (err == nil) || !tt.ok && (!errors.Is(err, storage.ErrNameTooLong) || !strings.Contains(err.Error(), "at most 229 bytes")) {
			t.Errorf("CheckName(%d bytes) = %v, want ok %v", len(tt.name), err, tt.ok)
		}
	}
	if _, err := storage.CreatePending(context.Background(), fits+"b"); !errors.Is(err, storage.ErrNameTooLong) {
		t.Errorf("CreatePending of a name too long: %v, want ErrNameTooLong", err)
	}
	p, err := storage.CreatePending(context.Background(), fits)
	if err != nil {
		t.Fatalf("CreatePending of the longest name that fits: %v", err)
	}
	if err := p.Commit(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(fits); err != nil {
		t.Error(err)
	}
}

// A folder at a local name is refused when the file is created, before
// anything is written, rather than at the rename after all of it: in a
// CommitAll the files before it would have taken their names by then.
func TestCreatePendingOverFolder(t *testing.T) {
	dir := t.TempDir()
	folder := filepath.Join(dir, "out.tfrecord")
	if err := os.Mkdir(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{folder, "file://" + folder} {
		if p, err := storage.CreatePending(context.Background(), name); !errors.Is(err, syscall.EISDIR) {
			if p != nil {
				p.Abort()
			}
			t.Errorf("CreatePending(%s) over a folder: %v, want EISDIR", name, err)
		}
	}
	if left, err := os.ReadDir(dir); err != nil || len(left) != 1 {
		t.Errorf("the folder holds %v (%v), want only out.tfrecord", left, err)
	}
}
