package pyserve

import (
	"os"
	"syscall"
)

// allocate gives f size bytes of storage. On tmpfs a file only truncated
// to its size is sparse, and writing into its mapping when the file system
// is full kills the process with SIGBUS; fallocate fails with ENOSPC
// instead.
func allocate(f *os.File, size int) error {
	return syscall.Fallocate(int(f.Fd()), 0, 0, int64(size))
}
