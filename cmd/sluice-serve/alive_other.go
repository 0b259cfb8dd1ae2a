//go:build !unix

package main

// A process is a pid the server watches.
type process struct{ pid int }

// watch returns pid's process.
func watch(pid int) process { return process{pid} }

// alive reports whether p exists: assumed here, where the server has no
// cheap way to ask, so that only the watch of its parent's pid ends it.
func (p process) alive() bool { return true }
