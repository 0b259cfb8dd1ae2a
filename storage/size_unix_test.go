//go:build unix

package storage_test

import (
	"context"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/sluiceml/sluice/storage"
)

// A named pipe's Size is -1, told without opening it: a reader that came
// and went would throw away what its writer wrote, and with no writer yet
// the open would wait (here, until the context's end).
func TestSizeFIFO(t *testing.T) {
	pipe := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(pipe, 0o600); err != nil {
		t.Skip(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if got, err := storage.Size(ctx, pipe); err != nil || got != -1 {
		t.Errorf("Size(named pipe) = %d, %v; want -1", got, err)
	}
}
