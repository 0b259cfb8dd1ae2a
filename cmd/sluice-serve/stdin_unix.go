//go:build unix

package main

import (
	"io"
	"os"
	"runtime"
	"syscall"
)

// requests returns what the server reads its requests from: its stdin,
// through the runtime's poller when the server has a single P.
//
// A goroutine reading a blocking descriptor waits in the kernel, and its P
// waits with it until the runtime's monitor takes it back for the other
// goroutines: 20 µs at the soonest, the monitor's shortest sleep. Requests
// come every few batches, so with one P (a container of one CPU) the
// readers stood still that long each time: MNIST through the Python
// package ran at 0.67× sluice from Go on one P. A descriptor in
// non-blocking mode parks the goroutine instead, and the P goes on
// decoding. With two Ps or more the other P decodes meanwhile, and the
// poller's extra wake-up made the stream about 5 % slower here, so stdin
// stays blocking there.
//
// Only a pipe is switched: the mode belongs to the open file, which a
// terminal shares with the shell. restore puts it back, for whoever holds
// the pipe after the server.
func requests() (r io.Reader, restore func()) {
	nop := func() {}
	if runtime.GOMAXPROCS(0) > 1 {
		return os.Stdin, nop
	}
	fi, err := os.Stdin.Stat()
	if err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		return os.Stdin, nop
	}
	fd := int(os.Stdin.Fd())
	if err := syscall.SetNonblock(fd, true); err != nil {
		return os.Stdin, nop
	}
	// A second File of the descriptor, made while it is non-blocking,
	// which the os package then reads through the poller.
	f := os.NewFile(uintptr(fd), os.Stdin.Name())
	return f, func() {
		syscall.SetNonblock(fd, false)
		// f, once unreachable, would close the descriptor it shares
		// with os.Stdin.
		runtime.KeepAlive(f)
	}
}
