//go:build !unix

package main

// alive reports whether process pid exists: assumed here, where the
// server has no cheap way to ask, so that only the watch of its parent's
// pid ends it.
func alive(pid int) bool { return true }
