package blobfs

import (
	"errors"
	"fmt"
	"io"

	"gocloud.dev/gcerrors"
)

// ErrLongBody reports a ranged read answered with more bytes than asked
// for: a store or proxy that ignores the Range header sends the object
// from its first byte, and those bytes are not the ones asked for.
// Asking again would get the same answer, so it is not retried.
var ErrLongBody = errors.New("blobfs: response body longer than the range asked for")

// readRange fills buf with the bytes at off with ranged requests,
// resuming after a failure at the first byte not yet read. A body that
// ends early is io.ErrUnexpectedEOF — retried, and if it persists returned
// with the object's name and the offset reached — never a short block.
func (f *file) readRange(off int64, buf []byte) error {
	got := 0
	err := f.cfg.retry(f.ctx, func() (int, error) {
		m, err := f.readOnce(off+int64(got), buf[got:])
		got += m
		return m, err
	})
	if err != nil {
		return fmt.Errorf("blobfs: read %s at offset %d: %w", f.name, off+int64(got), notExist(err))
	}
	return nil
}

// readOnce makes one ranged request for len(p) bytes at off. A request
// that goes the stall timeout without a byte is cancelled and reported
// as ErrStalled, which the caller retries.
func (f *file) readOnce(off int64, p []byte) (int, error) {
	w := f.cfg.watch(f.ctx)
	defer w.stop()
	r, err := f.b.NewRangeReader(w.ctx, f.key, off, int64(len(p)), f.ropts)
	if gcerrors.Code(err) == gcerrors.FailedPrecondition {
		// The read was conditional on the version opened.
		return 0, fmt.Errorf("%w: %w", ErrObjectChanged, err)
	}
	if err != nil {
		return 0, w.err(err)
	}
	defer r.Close()
	// Splicing bytes of two versions would corrupt the stream.
	if err := f.ver.check(r.Size(), r.ModTime(), r.As); err != nil {
		return 0, err
	}
	n := 0
	for n < len(p) && err == nil {
		var m int
		m, err = r.Read(p[n:])
		if m > 0 {
			n += m
			w.progress()
		}
	}
	switch {
	case n == len(p):
		// A body longer than the range asked for comes from a store or
		// proxy that ignored the Range header and sent the object from
		// its first byte: those bytes are not the ones at off.
		var extra [1]byte
		if m, _ := r.Read(extra[:]); m > 0 {
			return 0, fmt.Errorf("%w: more than the %d bytes asked for (a store or proxy that ignores Range?)", ErrLongBody, len(p))
		}
		err = nil
	case err == io.EOF:
		err = io.ErrUnexpectedEOF // the body ended before the bytes due
	}
	return n, w.err(err)
}
