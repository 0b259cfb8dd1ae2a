package recordio

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/sluiceml/sluice/dataerr"
	"github.com/sluiceml/sluice/storage"
	"github.com/sluiceml/sluice/tfrecord"
)

// A unitFile is the open file of the unit being read. It lives as long as
// the unit, not as long as the call that opened it: an object store ties
// a file's reads to the context it was opened with (see storage.Open), so
// opening it under the caller's context would make a unit started by a
// Read whose context ends when the call returns (a timeout per call) fail
// at its next network read. The file is opened under a context of its
// own instead, which a read in progress ends when that read's context
// ends (watch), and Close ends for good.
type unitFile struct {
	storage.File
	cancel context.CancelFunc // ends the file's reads; nil for local files
}

// openUnit opens name for the length of a unit. Cancelling ctx during
// the open abandons it.
func openUnit(ctx context.Context, name string) (*unitFile, error) {
	if s := storage.Scheme(name); s == "" || s == "file" {
		// Local reads take no context; nothing to detach.
		f, err := storage.Open(ctx, name)
		if err != nil {
			return nil, storage.MaskEOF(err)
		}
		return &unitFile{File: f}, nil
	}
	fctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, cancel)
	f, err := storage.Open(fctx, name)
	if !stop() && err == nil {
		// ctx ended as the open finished: the file may already be cut off.
		f.Close()
		err = fmt.Errorf("storage: open %s: %w", name, context.Cause(ctx))
	}
	if err != nil {
		cancel()
		return nil, storage.MaskEOF(err)
	}
	return &unitFile{File: f, cancel: cancel}, nil
}

// Read and ReadAt mask io.EOF in a failure's chain (storage.MaskEOF): a
// read of a record that fails with an error matching io.EOF would be
// taken for the end of the unit, or of the input, and lose what follows
// without a word, whatever storage.FS the file is of (audit 61).
func (u *unitFile) Read(p []byte) (int, error) {
	n, err := u.File.Read(p)
	return n, storage.MaskEOF(err)
}

func (u *unitFile) ReadAt(p []byte, off int64) (int, error) {
	n, err := u.File.ReadAt(p, off)
	return n, storage.MaskEOF(err)
}

// A unitWatcher is a built-in format, whose unit's file the Reader
// watches during a read on an object store (see Reader.readRemote), so
// that the formats' own read paths, hot for local files, do nothing extra.
type unitWatcher interface {
	unit() *unitFile
}

// watch makes the end of ctx, while the caller reads, end the file's
// reads in flight, so that a read stalled on the network returns when its
// caller gives up; the file is then unusable, and the Reader reopens the
// unit (see Reader.readRemote). The returned function stops watching;
// call it when the read is done.
func (u *unitFile) watch(ctx context.Context) (stop func() bool) {
	if u == nil || u.cancel == nil || ctx.Done() == nil {
		return noStop
	}
	return context.AfterFunc(ctx, u.cancel)
}

func noStop() bool { return true }

// peek reads the file's first bytes into buf (fewer in a shorter file) to
// tell its compression, and returns what to read the file from: the file
// itself, read again from its start, or, for a stream (a named pipe),
// which cannot be read at an offset and gives its bytes once, a buffered
// reader that still holds them.
func (u *unitFile) peek(ctx context.Context, buf []byte) (n int, src io.Reader, err error) {
	stop := u.watch(ctx)
	defer stop()
	if u.Size() >= 0 {
		n, err = u.ReadAt(buf, 0)
		if err == io.EOF {
			err = nil
		}
		return n, u, err
	}
	br := bufio.NewReaderSize(u, len(buf))
	p, err := br.Peek(len(buf))
	if errors.Is(err, io.EOF) {
		err = nil
	}
	return copy(buf, p), br, err
}

// Close closes the file and ends its context.
func (u *unitFile) Close() error {
	err := u.File.Close()
	if u.cancel != nil {
		u.cancel()
	}
	return err
}

// decompress returns a decompressor of c reading br, the start of the unit
// work; nil for a stream that ends before its first byte, which is empty,
// as an empty file is, whatever its compression (a decompressor said
// io.EOF of an empty GZIP pipe, which, wrapped in its error, read as the
// end of the whole input, audit 81); or a *dataerr.Error for a header that
// is not c's, or is cut short, which never matches io.EOF.
func decompress(c tfrecord.Compression, br *bufio.Reader, work string) (io.ReadCloser, error) {
	if _, err := br.Peek(1); err == io.EOF {
		return nil, nil
	}
	dec, err := tfrecord.NewDecompressor(c, br)
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, &dataerr.Error{File: work, Offset: 0, Record: -1, Err: fmt.Errorf("%v stream: its header, at byte 0: %w", c, err)}
	}
	return dec, nil
}
