package recordio

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/sluiceml/sluice/storage"
	"github.com/sluiceml/sluice/tfrecord"
)

// ShardNames returns the names of n shards in TensorFlow's convention,
// prefix-00000-of-00004 to prefix-00003-of-00004, each followed by suffix
// (an extension such as ".tfrecord.gz"). Sharded data sets written by
// TensorFlow tools use these names, and a glob such as
// prefix-*-of-00004.tfrecord.gz finds them again in order.
func ShardNames(prefix string, n int, suffix string) []string {
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
// A ShardedWriter is not safe for concurrent use.
type ShardedWriter struct {
	names   []string
	files   []io.WriteCloser
	writers []*tfrecord.Writer
	n       int64
}

// NewShardedWriter creates the named files (see ShardNames) and returns a
// writer of records into them, each file a tfrecord.Writer made with opts
// (a tfrecord.Compression, tfrecord.CompressionLevel). If a file cannot be
// created, those already created are closed and the error names the file.
func NewShardedWriter(ctx context.Context, names []string, opts ...tfrecord.Option) (*ShardedWriter, error) {
	if len(names) == 0 {
		return nil, fmt.Errorf("recordio: sharded writer with no files: %w", ErrInvalidArgument)
	}
	w := &ShardedWriter{names: append([]string(nil), names...)}
	for _, name := range names {
		f, err := storage.Create(ctx, name)
		if err != nil {
			w.Close()
			return nil, err // storage's errors name the file
		}
		w.files = append(w.files, f)
		w.writers = append(w.writers, tfrecord.NewWriter(f, opts...))
	}
	return w, nil
}

// Write writes rec as the next record, into file Count() mod len(Names()).
// An error names the file and the record's number in the whole stream;
// after Close, Write returns an error wrapping fs.ErrClosed.
func (w *ShardedWriter) Write(rec []byte) error {
	if len(w.writers) == 0 {
		return fmt.Errorf("recordio: write to a closed sharded writer: %w", fs.ErrClosed)
	}
	i := int(w.n % int64(len(w.writers)))
	if err := w.writers[i].Write(rec); err != nil {
		return fmt.Errorf("%s: record %d: %w", w.names[i], w.n, err)
	}
	w.n++
	return nil
}

// Count returns how many records have been written.
func (w *ShardedWriter) Count() int64 { return w.n }

// Names returns the files' names, in shard order. The caller must not
// modify the slice.
func (w *ShardedWriter) Names() []string { return w.names }

// Close finishes every file's compressed stream and closes the files. Only
// after Close returns nil are the files complete; an object store makes
// an object visible only then. The error names each file that failed.
func (w *ShardedWriter) Close() error {
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
	w.files, w.writers = nil, nil
	return errors.Join(errs...)
}
