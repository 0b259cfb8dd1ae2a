// Package stall gives tests a source that stops giving bytes without an
// error, as a broken network mount or a peer that stops writing can: a
// reader that loops while it gets no bytes and no error would spin on it
// for ever, so the readers of files and records end such a read with
// io.ErrNoProgress instead.
package stall

import "io"

// Reader returns a reader that gives r's bytes, then no bytes and no error
// at every read after them, never io.EOF.
func Reader(r io.Reader) io.Reader { return &reader{r} }

type reader struct{ r io.Reader }

func (s *reader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if err == io.EOF {
		return n, nil
	}
	return n, err
}
