package pyserve

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// memFile makes an anonymous file of memory (memfd_create) and returns it
// with the name another process opens it by: its descriptor under /proc.
// No directory ever holds it, so nothing can be left behind: its memory
// goes when the last descriptor and mapping of it do, whoever dies.
func memFile(name string) (f *os.File, path string, err error) {
	fd, err := unix.MemfdCreate(name, unix.MFD_CLOEXEC)
	if err != nil {
		return nil, "", fmt.Errorf("memfd_create: %w", err)
	}
	return os.NewFile(uintptr(fd), name), fmt.Sprintf("/proc/%d/fd/%d", os.Getpid(), fd), nil
}

// memFiles reports whether memFile works here: the kernel has
// memfd_create (3.17 on; a seccomp filter may refuse it) and /proc is
// mounted, where the client opens the files.
func memFiles() bool {
	f, path, err := memFile("sluice-probe")
	if err != nil {
		return false
	}
	defer f.Close()
	g, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return false
	}
	g.Close()
	return true
}
