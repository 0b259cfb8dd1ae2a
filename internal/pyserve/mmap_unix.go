//go:build unix

package pyserve

import (
	"os"
	"syscall"
)

// mapShared maps size bytes of f, shared with every process that maps it.
func mapShared(f *os.File, size int) ([]byte, error) {
	return syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
}

func unmap(mem []byte) { syscall.Munmap(mem) }

// writable reports whether this process may make files in dir.
func writable(dir string) bool { return syscall.Access(dir, 2 /* W_OK */) == nil }
