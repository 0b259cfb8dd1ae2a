//go:build !linux

package storage

import (
	"context"
	"os"
)

// openLocal opens the local path p for reading. Elsewhere than on Linux,
// whose poll(2) tells a FIFO that no writer has opened yet from one whose
// writers are gone, a FIFO is opened as any file: open(2) waits for a
// writer.
func openLocal(_ context.Context, p string) (*os.File, error) {
	return os.Open(p)
}
