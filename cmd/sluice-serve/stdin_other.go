//go:build !unix

package main

import (
	"io"
	"os"
)

// requests returns the server's stdin: the poller's path is for Unix
// pipes (stdin_unix.go).
func requests() (r io.Reader, restore func()) { return os.Stdin, func() {} }
