package storage_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/sluiceml/sluice/storage"
)

// TestSize checks that Size reports what an opened File's Size would:
// the length of a regular file, local or of another FS (which Size
// opens), and an error naming a missing file or a directory.
func TestSize(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, []byte("twelve bytes"), 0o644); err != nil {
		t.Fatal(err)
	}
	storage.Register("sizetest", &memFS{files: map[string]string{"sizetest://b/x": "12345"}})
	defer storage.Unregister("sizetest")
	for _, tc := range []struct {
		name    string
		want    int64
		wantErr error // errAny: an error wrapping no sentinel
	}{
		{file, 12, nil},
		{"file://" + file, 12, nil},
		{"sizetest://b/x", 5, nil},
		{filepath.Join(dir, "missing"), 0, fs.ErrNotExist},
		{"sizetest://b/missing", 0, fs.ErrNotExist},
		{dir, 0, errAny},
	} {
		got, err := storage.Size(t.Context(), tc.name)
		switch {
		case tc.wantErr == errAny:
			if err == nil {
				t.Errorf("Size(%s) = %d, want an error", tc.name, got)
			}
		case tc.wantErr != nil:
			if !errors.Is(err, tc.wantErr) {
				t.Errorf("Size(%s) = %d, %v; want an error wrapping %v", tc.name, got, err, tc.wantErr)
			}
		case err != nil || got != tc.want:
			t.Errorf("Size(%s) = %d, %v; want %d", tc.name, got, err, tc.want)
		}
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := storage.Size(ctx, file); !errors.Is(err, context.Canceled) {
		t.Errorf("Size with an ended context: %v, want context.Canceled", err)
	}
}

var errAny = errors.New("any error")
