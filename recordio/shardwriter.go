package recordio

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/storage"
	"github.com/sluiceml/sluice/tfrecord"
)

// ShardNames returns the names of n shards in TensorFlow's convention,
// prefix-00000-of-00004 to prefix-00003-of-00004, each followed by suffix
// (an extension such as ".tfrecord.gz"). Sharded data sets written by
// TensorFlow tools use these names, and a glob such as
// prefix-*-of-00004.tfrecord.gz finds them again in order (up to 100 000
// shards, whose numbers then need more than five digits). It returns no
// names for n <= 0.
func ShardNames(prefix string, n int, suffix string) []string {
	if n <= 0 {
		return nil
	}
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("%s-%05d-of-%05d%s", prefix, i, n, suffix)
	}
	return names
}

// A ShardedWriter writes TFRecord records into several files at once,
// dealing them round-robin: record i (from 0) goes to file i mod n, so the
// files differ in size by at most one record and records written in
// order stay in order within each file. The files are created through
// package storage, so names may be local paths or object-store URLs.
//
// Writing is all or nothing. Each file is written under a temporary name
// beside its own (see [storage.Pending]); only when [ShardedWriter.Close]
// has finished every file without error are they given their names, so a
// data set under its final names is always complete. A failed Write, a
// failed Close or [ShardedWriter.Abort] removes the temporaries and leaves
// any files already under the final names as they were; after a failed
// Write or Close, Write and Close return its error. A process killed
// while writing leaves temporaries named by [storage.TempMarker], which
// [storage.Leftovers] finds.
//
// A ShardedWriter is not safe for concurrent use.
type ShardedWriter struct {
	names   []string
	files   []*storage.Pending
	writers []*tfrecord.Writer
	n       int64
	err     error // the first failed Write's: the data set can no longer be whole

	closed   bool
	closeErr error // the first Close's result, which later calls return
}

// NewShardedWriter creates temporary files for the named files (see
// ShardNames) and returns a writer of records into them, each file a
// tfrecord.Writer made with opts (a tfrecord.Compression,
// tfrecord.CompressionLevel). ctx governs the writes and the final
// renames. If a file cannot be created, the temporaries already created
// are removed and the error names the file. A file named twice, even
// differently (a path and its file:// URL, a path through a symbolic link
// to its directory; see [storage.EntryName]), is an error wrapping
// queue.ErrInvalidArgument: each name's temporary would be renamed to it
// in turn, and the last would replace the records of the others.
func NewShardedWriter(ctx context.Context, names []string, opts ...tfrecord.Option) (*ShardedWriter, error) {
	if len(names) == 0 {
		return nil, fmt.Errorf("recordio: sharded writer with no files: %w", queue.ErrInvalidArgument)
	}
	seen := make(map[string]int, len(names))
	for i, name := range names {
		key := storage.EntryName(name)
		if j, ok := seen[key]; ok {
			return nil, fmt.Errorf("recordio: sharded writer: %q and %q are the same file (outputs %d and %d): %w", names[j], name, j, i, queue.ErrInvalidArgument)
		}
		seen[key] = i
	}
	w := &ShardedWriter{names: append([]string(nil), names...)}
	for _, name := range names {
		f, err := storage.CreatePending(ctx, name)
		if err != nil {
			w.Abort()
			return nil, err // storage's errors name the file
		}
		w.files = append(w.files, f)
		w.writers = append(w.writers, tfrecord.NewWriter(f, opts...))
	}
	return w, nil
}

// Write writes rec as the next record, into file Count() mod len(Names()).
// An error names the file and the record's number in the whole stream;
// after it the data set cannot be completed, so Write removes the
// temporaries at once, and every later Write and Close returns the same
// error. After Close or Abort, Write returns an error wrapping
// fs.ErrClosed.
func (w *ShardedWriter) Write(rec []byte) error {
	if w.err != nil {
		return w.err
	}
	if len(w.writers) == 0 {
		return fmt.Errorf("recordio: write to a closed sharded writer: %w", fs.ErrClosed)
	}
	i := int(w.n % int64(len(w.writers)))
	if err := w.writers[i].Write(rec); err != nil {
		w.err = fmt.Errorf("%s: record %d: %w", w.names[i], w.n, err)
		// The caller may well return on the error without a Close: the
		// temporaries, and their descriptors, would outlive it.
		if aerr := w.Abort(); aerr != nil {
			w.err = errors.Join(w.err, aerr)
		}
		return w.err
	}
	w.n++
	return nil
}

// Count returns how many records have been written.
func (w *ShardedWriter) Count() int64 { return w.n }

// Names returns the files' names, in shard order. The caller must not
// modify the slice.
func (w *ShardedWriter) Names() []string { return w.names }

// Temporaries returns the temporary names the files are written under
// until Close (see storage.Pending.TempName), in shard order: a caller
// that looks for other writers of the same names among the temporaries
// beside them tells its own apart.
func (w *ShardedWriter) Temporaries() []string {
	temps := make([]string, len(w.files))
	for i, f := range w.files {
		temps[i] = f.TempName()
	}
	return temps
}

// Close completes the data set: it finishes every file's compressed
// stream, flushes and closes the temporaries, and only if all of that
// succeeded gives every file its final name, replacing files of the same
// names. Otherwise it removes the temporaries and returns the error,
// naming each file that failed; after a failed Write it returns that
// Write's error. Only after Close returns nil are the files there, or
// after an error wrapping storage.ErrNotDurable or storage.ErrOldNameLeft
// (every file renamed, with more to say: see storage.CommitAll); a rename
// that fails midway (a full object store, say) leaves the files renamed
// so far, and says which were not. Calling Close again returns the
// first call's result, so a failed Close stays failed; Close after Abort
// does nothing.
func (w *ShardedWriter) Close() error {
	if w.closed {
		return w.closeErr
	}
	w.closed = true
	w.closeErr = w.close()
	return w.closeErr
}

func (w *ShardedWriter) close() error {
	if w.err != nil {
		return w.err // Write removed the temporaries
	}
	if len(w.files) == 0 {
		return nil // aborted
	}
	var errs []error
	for i, f := range w.files {
		err := w.writers[i].Close()
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", w.names[i], err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		w.Abort()
		return err
	}
	err := storage.CommitAll(w.files)
	w.files, w.writers = nil, nil
	return err
}

// Abort abandons the data set: it removes the temporaries, leaving any
// files under the final names as they were. Abort after Close, or after a
// failed Write, does nothing. The error reports temporaries that could
// not be removed.
func (w *ShardedWriter) Abort() error {
	var errs []error
	for _, f := range w.files {
		errs = append(errs, f.Abort())
	}
	w.files, w.writers = nil, nil
	return errors.Join(errs...)
}
