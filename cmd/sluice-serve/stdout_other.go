//go:build !unix

package main

import (
	"io"
	"os"
)

// replies returns the server's stdout: the poller's path is for Unix
// pipes (stdout_unix.go).
func replies() (w io.Writer, restore func()) { return os.Stdout, func() {} }

// oneSocket is for Unix sockets (stdout_unix.go).
func oneSocket() (f *os.File, restore func(), ok bool) { return nil, nil, false }
