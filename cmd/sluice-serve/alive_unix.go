//go:build unix

package main

import (
	"errors"
	"syscall"
)

// alive reports whether process pid exists (a zombie does).
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
