//go:build !unix

package pyserve

import (
	"errors"
	"fmt"
	"os"
)

// errNoSharedMemory is why batches cannot be served here: the client maps
// the slot files with POSIX shared memory, and this build has none.
var errNoSharedMemory = fmt.Errorf("batches in shared memory need a Unix system (Linux, macOS): %w", errors.ErrUnsupported)

func mapShared(*os.File, int) ([]byte, error) { return nil, errNoSharedMemory }

func unmap([]byte) {}

func writable(string) bool { return false }
