package storage

import (
	"context"
	"io/fs"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// openLocal opens the local path p for reading. A named pipe is opened
// without blocking: open(2) of a FIFO for reading waits for a writer, in
// a system call no context can end, so a program reading a FIFO nobody
// writes could not be stopped but by killing it. openLocal opens it with
// O_NONBLOCK, which returns at once, and then waits, as long as ctx
// allows, until the pipe can be read: data, or a writer that came and
// went (end of file). Until a writer has come, Linux reports the pipe
// neither readable nor hung up, so an early reader does not take the
// empty pipe for its end. The file stays in non-blocking mode, in which
// Go's poller serves its reads, so they honour read deadlines.
func openLocal(ctx context.Context, p string) (*os.File, error) {
	if st, err := os.Stat(p); err != nil || st.Mode()&fs.ModeNamedPipe == 0 {
		return os.Open(p)
	}
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	if err := waitReadable(ctx, f); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// waitReadable waits until f, a pipe, has data or its end, or until ctx
// is done, whose error it then returns.
func waitReadable(ctx context.Context, f *os.File) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	stop := context.AfterFunc(ctx, func() { f.SetReadDeadline(time.Unix(1, 0)) })
	defer stop()
	var perr error
	err = rc.Read(func(fd uintptr) bool {
		// Asked each time the poller says the pipe may be readable (and
		// once before): poll(2) answers exactly.
		pfd := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		for {
			_, perr = unix.Poll(pfd, 0)
			if perr != unix.EINTR {
				break
			}
		}
		return perr != nil || pfd[0].Revents != 0
	})
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil {
		return err
	}
	f.SetReadDeadline(time.Time{})
	return perr
}
