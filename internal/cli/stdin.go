package cli

import (
	"context"
	"errors"
	"io"
)

// A stdinReader reads standard input until its context is done. A read
// blocked on a terminal, or on a pipe whose writer is still working,
// would otherwise keep an interrupted command from cleaning up: Ctrl-C on
// `sluice convert --from json -` typed at a terminal would wait for the
// next line before removing its temporaries. Each Read hands one read of
// the underlying reader to a goroutine, into a buffer of the
// stdinReader's own, and waits for it or for the context; once the
// context is done every Read returns its error, and a read left blocked
// ends with the process.
type stdinReader struct {
	ctx context.Context
	r   io.Reader
	buf []byte
}

type stdinRead struct {
	n   int
	err error
}

func (s *stdinReader) Read(p []byte) (int, error) {
	if err := s.ctx.Err(); err != nil {
		// A read may still be writing into buf: it is not touched again.
		return 0, &stdinInterrupted{err}
	}
	if len(p) == 0 {
		return 0, nil
	}
	if cap(s.buf) < len(p) {
		s.buf = make([]byte, len(p))
	}
	buf := s.buf[:len(p)]
	done := make(chan stdinRead, 1)
	go func() {
		n, err := s.r.Read(buf)
		done <- stdinRead{n, err}
	}()
	select {
	case r := <-done:
		return copy(p, buf[:r.n]), r.err
	case <-s.ctx.Done():
		return 0, &stdinInterrupted{s.ctx.Err()}
	}
}

// stdinInterrupted is a read of standard input ended by the command's
// context. It wraps the context's error, and says which context: a
// caller that checks a child of the command's context (a file of
// forEachFile) could find it not yet done, since a child is cancelled a
// moment after its parent, and take the interruption for a failed read
// ("1 file not read through"; 1 CI run in several under load).
type stdinInterrupted struct{ err error }

func (e *stdinInterrupted) Error() string { return e.err.Error() }
func (e *stdinInterrupted) Unwrap() error { return e.err }

// interrupted reports whether err, the end of a read, is the command's
// interruption: ctx is done, or standard input's read was ended by the
// command's context, of which ctx is a child.
func interrupted(ctx context.Context, err error) bool {
	var si *stdinInterrupted
	return ctx.Err() != nil || errors.As(err, &si)
}
