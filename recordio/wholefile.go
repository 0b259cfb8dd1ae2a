package recordio

import (
	"context"
	"fmt"
	"io"

	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tfrecord"
)

// NewWholeFileReader returns a reader that returns each file named in q as
// one record: the key is the name as dequeued, the value the file's bytes.
//
// A file that cannot be opened fails one read, and the next read goes on
// with the next file. (TensorFlow's WholeFileReader opens the file in its
// read step, so it fails every later read with the same error and never
// gets past the file.)
func NewWholeFileReader(q queue.Queue, opts ...Option) *Reader {
	return NewReader(wholeFileKind, &wholeFileFormat{}, q, opts...)
}

// wholeFileFormat reads whole files. It is the Format behind
// NewWholeFileReader.
type wholeFileFormat struct {
	file *unitFile
	work string
}

// OnWorkStarted opens the file.
func (f *wholeFileFormat) OnWorkStarted(ctx context.Context, work string) error {
	file, err := openUnit(ctx, work)
	if err != nil {
		return err
	}
	f.file, f.work = file, work
	return nil
}

// Read returns the whole file as one record and ends the unit. The value
// is a new slice, sized by the file system's size of the file: a file
// larger than a TFRecord's limit (tfrecord.DefaultMaxRecordSize) is
// tfrecord.ErrTooLarge.
func (f *wholeFileFormat) Read(ctx context.Context) (string, []byte, bool, bool, error) {
	size := f.file.Size()
	if size < 0 {
		// A stream (a named pipe): read to its end, as far as the
		// record limit.
		buf, err := io.ReadAll(io.LimitReader(f.file, tfrecord.DefaultMaxRecordSize+1))
		if err == nil && int64(len(buf)) > tfrecord.DefaultMaxRecordSize {
			err = fmt.Errorf("more than %d bytes: %w", int64(tfrecord.DefaultMaxRecordSize), tfrecord.ErrTooLarge)
		}
		if err != nil {
			return "", nil, false, false, fmt.Errorf("%s: %w", f.work, err)
		}
		return f.work, buf, true, true, nil
	}
	if size > tfrecord.DefaultMaxRecordSize {
		// A record's limit, as for a stream: a larger (or sparse) file
		// would take its size in memory, or more than a slice holds.
		return "", nil, false, false, fmt.Errorf("%s: %d bytes, more than %d: %w", f.work, size, int64(tfrecord.DefaultMaxRecordSize), tfrecord.ErrTooLarge)
	}
	buf := make([]byte, size)
	if n, err := io.ReadFull(io.NewSectionReader(f.file, 0, size), buf); err != nil {
		return "", nil, false, false, fmt.Errorf("%s: read %d of %d bytes: %w", f.work, n, size, err)
	}
	return f.work, buf, true, true, nil
}

// OnWorkFinished closes the file.
func (f *wholeFileFormat) OnWorkFinished() error { return f.Reset() }

// Reset closes any open file.
func (f *wholeFileFormat) Reset() error {
	var err error
	if f.file != nil {
		err = f.file.Close()
		f.file = nil
	}
	f.work = ""
	return err
}

// Position returns the only position inside a unit: before its record.
// (The unit ends with the Read that returns the record.)
func (f *wholeFileFormat) Position() ([]byte, error) { return []byte{0}, nil }

// Seek opens work before its record.
func (f *wholeFileFormat) Seek(ctx context.Context, work string, pos []byte) error {
	if len(pos) != 1 || pos[0] != 0 {
		return fmt.Errorf("%w: bad whole-file position %x", ErrState, pos)
	}
	return f.OnWorkStarted(ctx, work)
}

// NewIdentityReader returns a reader whose records are the work units
// themselves: key and value are both the dequeued string.
func NewIdentityReader(q queue.Queue, opts ...Option) *Reader {
	return NewReader(identityKind, &identityFormat{}, q, opts...)
}

// identityFormat returns each work unit as its own record. It is the
// Format behind NewIdentityReader.
type identityFormat struct {
	work string
}

// OnWorkStarted takes the unit as the record.
func (f *identityFormat) OnWorkStarted(ctx context.Context, work string) error {
	f.work = work
	return nil
}

// Read returns the unit and ends it.
func (f *identityFormat) Read(ctx context.Context) (string, []byte, bool, bool, error) {
	return f.work, []byte(f.work), true, true, nil
}

// OnWorkFinished does nothing: an identity unit holds no resources.
func (f *identityFormat) OnWorkFinished() error { return nil }

// Reset forgets the unit.
func (f *identityFormat) Reset() error { f.work = ""; return nil }

// unit returns the file of the unit in progress (see unitWatcher).
func (f *wholeFileFormat) unit() *unitFile { return f.file }
