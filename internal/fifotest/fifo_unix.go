//go:build unix

package fifotest

import "golang.org/x/sys/unix"

// Make makes a named pipe at path.
func Make(path string) error { return unix.Mkfifo(path, 0o644) }
