//go:build unix

package fifotest

import "syscall"

// Make makes a named pipe at path.
func Make(path string) error { return syscall.Mkfifo(path, 0o644) }
