//go:build unix

package main

import (
	"io"
	"os"
	"runtime"
	"syscall"

	"golang.org/x/sys/unix"
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
	if runtime.GOMAXPROCS(0) > 1 {
		return os.Stdin, func() {}
	}
	return polled(os.Stdin, os.ModeNamedPipe)
}

// polled returns f, or, when it is of a kind in modes, a second File of its
// descriptor made while the descriptor is non-blocking, which the os
// package then reads and writes through the runtime's poller. restore
// puts the descriptor's mode back, for whoever holds it after the server.
//
// A descriptor the server was handed non-blocking (Python's
// socket.setdefaulttimeout makes every socket so) is f itself: the os
// package polls it from the start, and a second File of it could not be
// (the poller takes a descriptor once), so its reads and writes failed
// with EAGAIN (audit 102). f.Fd would make it blocking: its mode is read
// through SyscallConn.
func polled(f *os.File, modes os.FileMode) (*os.File, func()) {
	nop := func() {}
	fi, err := f.Stat()
	if err != nil || fi.Mode()&modes == 0 || nonblocking(f) {
		return f, nop
	}
	fd := int(f.Fd())
	if err := syscall.SetNonblock(fd, true); err != nil {
		return f, nop
	}
	p := os.NewFile(uintptr(fd), f.Name())
	return p, func() {
		syscall.SetNonblock(fd, false)
		// p, once unreachable, would close the descriptor it shares
		// with f.
		runtime.KeepAlive(p)
	}
}

// nonblocking reports whether f's descriptor is in non-blocking mode.
func nonblocking(f *os.File) bool {
	rc, err := f.SyscallConn()
	if err != nil {
		return false
	}
	nb := false
	rc.Control(func(fd uintptr) {
		flags, err := unix.FcntlInt(fd, unix.F_GETFL, 0)
		nb = err == nil && flags&unix.O_NONBLOCK != 0
	})
	return nb
}
