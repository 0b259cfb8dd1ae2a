package cli

import (
	"context"
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
		return 0, err
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
		return 0, s.ctx.Err()
	}
}
