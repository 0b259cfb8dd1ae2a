//go:build unix && !linux

package main

import (
	"errors"
	"syscall"
)

// A process is a pid the server watches.
type process struct{ pid int }

// watch returns pid's process.
func watch(pid int) process { return process{pid} }

// alive reports whether p exists (a zombie does).
func (p process) alive() bool {
	err := syscall.Kill(p.pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
