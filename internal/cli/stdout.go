package cli

import (
	"context"
	"io"
	"os"
	"sync"
)

// A stdout is a command's standard output. It keeps the first error a
// write met, so that a command whose output was lost (a full disk, a
// closed pipe with SIGPIPE ignored, a descriptor opened read-only) fails
// even where its code ignored the error, as a deferred Flush or an
// Fprintf does (audit 110: count, verify, index, bench, schema -o python
// and convert's summary exited 0 with their output on /dev/full). And
// it ends a write that waits for a reader when the command's context is
// done: a reader that stops reading a pipe held `sluice cat` in write(2)
// through SIGTERM and SIGINT, which it would never have obeyed.
type stdout struct {
	ctx context.Context
	w   io.Writer
	// wait is whether a write can wait for as long as a reader pleases:
	// stdout is a pipe, a socket or a terminal (which Ctrl-S stops), not
	// a regular file. Such a write is handed to a goroutine, with a copy
	// of its bytes, and waited for or for the context.
	wait bool

	mu  sync.Mutex
	buf []byte
	err error
}

func newStdout(ctx context.Context, w io.Writer) *stdout {
	o := &stdout{ctx: ctx, w: w}
	if f, ok := w.(*os.File); ok {
		st, err := f.Stat()
		o.wait = err != nil || !st.Mode().IsRegular()
	}
	return o
}

func (o *stdout) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.err != nil {
		return 0, o.err
	}
	var n int
	var err error
	if o.wait {
		n, err = o.waitWrite(p)
	} else {
		n, err = o.w.Write(p)
	}
	if err != nil {
		o.err = err
	}
	return n, err
}

type written struct {
	n   int
	err error
}

func (o *stdout) waitWrite(p []byte) (int, error) {
	if err := o.ctx.Err(); err != nil {
		return 0, err
	}
	o.buf = append(o.buf[:0], p...)
	done := make(chan written, 1)
	go func(buf []byte) {
		n, err := o.w.Write(buf)
		done <- written{n, err}
	}(o.buf)
	select {
	case r := <-done:
		return r.n, r.err
	case <-o.ctx.Done():
		// The write may still be reading buf, and ends with the process.
		o.buf = nil
		return 0, o.ctx.Err()
	}
}

// Err returns the first error a write met.
func (o *stdout) Err() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.err
}

// Unwrap returns the writer written to, for isTerminal.
func (o *stdout) Unwrap() io.Writer { return o.w }
