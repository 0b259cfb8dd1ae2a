//go:build unix

package main

import (
	"io"
	"os"
)

// replies returns what the server writes its replies to: its stdout,
// through the runtime's poller when it is a pipe or a socket, so that a
// reply the client does not read (a trainer stopped or hung with a pipe
// full of replies) can be given up: Serve sets the write's deadline a
// second after its context ends. A blocking write could not be; the
// server then ignored SIGTERM and the end of its stdin, and a second
// signal left its named slot files behind (audit 96).
//
// A reply usually fits in the pipe, and a non-blocking write of it is the
// same one system call: the poller is only met by a write that would
// block. Only a pipe or a socket (a client that runs the server over a
// socket pair, audit 97) is switched: the mode belongs to the open file,
// which a terminal shares with the shell; restore puts it back. A server
// writing to a terminal the user stopped, or to a socket that is its stdin
// too, waits for it.
func replies() (w io.Writer, restore func()) {
	if in, err := os.Stdin.Stat(); err == nil {
		if out, err := os.Stdout.Stat(); err == nil && os.SameFile(in, out) {
			// One socket both ways: its mode is stdin's too, which is
			// read blocking with more than one P (requests), and would
			// then fail with EAGAIN (audit 99).
			return os.Stdout, func() {}
		}
	}
	return polled(os.Stdout, os.ModeNamedPipe|os.ModeSocket)
}
