package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/sluiceml/sluice/storage"
	"github.com/sluiceml/sluice/tfrecord"
)

// expand turns the command's arguments, each a file name or glob pattern,
// into file names, in argument order and sorted within a pattern. A
// pattern that matches nothing is an error naming it: a typo must not
// look like an empty data set.
func expand(ctx context.Context, patterns []string) ([]string, error) {
	var names []string
	for _, p := range patterns {
		m, err := storage.Glob(ctx, p)
		if err != nil {
			return nil, err // names the pattern
		}
		if len(m) == 0 {
			return nil, fmt.Errorf("%s: no such file (the pattern matches nothing)", p)
		}
		names = append(names, m...)
	}
	return names, nil
}

// compressionUsage is the help text of every --compression flag that
// reads.
const compressionUsage = "input compression: auto (detect from the file), NONE, ZLIB, GZIP or ZSTD"

// parseCompression reads a --compression value. "auto" (or empty) asks for
// detection; names are TensorFlow's, in any case.
func parseCompression(s string) (c tfrecord.Compression, auto bool, err error) {
	s = strings.ToUpper(s)
	if s == "" || s == "AUTO" {
		return tfrecord.None, true, nil
	}
	c, err = tfrecord.ParseCompression(s)
	if err != nil {
		return c, false, fmt.Errorf("--compression: %w", err)
	}
	return c, false, nil
}

// detectCompression reads the first bytes of f and guesses its compression.
func detectCompression(f storage.File) (tfrecord.Compression, error) {
	var prefix [16]byte
	n, err := f.ReadAt(prefix[:], 0)
	if err != nil && err != io.EOF {
		return tfrecord.None, fmt.Errorf("%s: %w", f.Name(), err)
	}
	return tfrecord.DetectCompression(prefix[:n]), nil
}

// recordFiles reads the records of one file after another through a
// single tfrecord.Reader, so that reading many files reuses its buffers.
type recordFiles struct {
	comp   tfrecord.Compression
	detect bool
	opts   []tfrecord.Option
	tally  *tally
	tee    io.Writer // if set, sees every byte read from the files (progress)

	r    *tfrecord.Reader
	f    storage.File
	name string
	n    int // records since the last context check
}

// newRecordFiles reads with the compression of the --compression value
// flag and the reader options opts.
func newRecordFiles(flag string, t *tally, opts ...tfrecord.Option) (*recordFiles, error) {
	c, auto, err := parseCompression(flag)
	if err != nil {
		return nil, err
	}
	return &recordFiles{comp: c, detect: auto, opts: opts, tally: t}, nil
}

// clone returns a recordFiles with rf's settings and no file open, for
// another goroutine (the tally is safe to share; a tee must be too).
func (rf *recordFiles) clone() *recordFiles {
	return &recordFiles{comp: rf.comp, detect: rf.detect, opts: rf.opts, tally: rf.tally, tee: rf.tee}
}

// open closes the current file, if any, and starts reading name.
func (rf *recordFiles) open(ctx context.Context, name string) error {
	rf.close()
	f, err := storage.Open(ctx, name)
	if err != nil {
		return err
	}
	c := rf.comp
	if rf.detect {
		if c, err = detectCompression(f); err != nil {
			f.Close()
			return err
		}
	}
	opts := append([]tfrecord.Option{c, tfrecord.WithName(name)}, rf.opts...)
	var src io.Reader = f
	if rf.tee != nil {
		src = io.TeeReader(f, rf.tee)
	}
	if rf.r == nil {
		rf.r = tfrecord.NewReader(src, opts...)
	} else {
		rf.r.Reset(src, opts...)
	}
	rf.f, rf.name = f, name
	return nil
}

// next returns the current file's next record, io.EOF at its end, or the
// reader's error, which names the file and offset. It checks ctx every
// few hundred records so that a cancelled command stops promptly.
func (rf *recordFiles) next(ctx context.Context) ([]byte, error) {
	if rf.n++; rf.n >= 256 {
		rf.n = 0
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	rec, err := rf.r.Next()
	switch {
	case err == nil:
		rf.tally.read(len(rec))
	case err != io.EOF:
		rf.tally.failed()
	}
	return rec, err
}

func (rf *recordFiles) close() {
	if rf.f != nil {
		rf.f.Close()
		rf.f = nil
	}
}

// eachRecord calls fn for every record of every file in order, with the
// record's file and its offset in the uncompressed stream, stopping at the
// first error or after limit records (limit < 0: no limit). The record is
// valid only during the call.
func eachRecord(ctx context.Context, names []string, rf *recordFiles, limit int, fn func(name string, offset int64, rec []byte) error) error {
	defer rf.close()
	n := 0
	for _, name := range names {
		if limit >= 0 && n >= limit {
			return nil
		}
		if err := rf.open(ctx, name); err != nil {
			return err
		}
		for limit < 0 || n < limit {
			rec, err := rf.next(ctx)
			if err == io.EOF {
				break
			}
			if err != nil {
				return err
			}
			if err := fn(name, rf.r.Offset(), rec); err != nil {
				return err
			}
			n++
		}
	}
	return nil
}
