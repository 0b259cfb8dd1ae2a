// Package index builds, stores and loads indexes of TFRecord files: the
// offset of every record, found in one pass over the file, so that a
// reader can go straight to any record (a global shuffle reads records in
// any order this way).
//
// An index is stored in a cache folder (under os.UserCacheDir, or
// SLUICE_INDEX_DIR), named by a hash of the file's name, or beside the
// file as NAME.idx (Save's beside argument; Load looks there first). It
// records the file's size, modification time and, for an object in a
// store that reports one, its version (ETag or generation), and Load
// refuses an index whose file no longer matches them (ErrStale). (An
// object store's modification time is to the second, so an object
// rewritten with the same size in the same second differs only in its
// version.) A local file rewritten with its size and modification time
// kept (touch -r) cannot be told from the file indexed; a global shuffle
// that then fails to read a record through the index builds the file's
// index afresh, and reports ErrStale, not damage, if the file is sound. Load reads a stored index only
// if it is a regular file no longer than an index of its file can be
// (which the file's size bounds); anything else standing under its name
// (a named pipe, a device, a huge file) is reported as no index, which
// LoadOrBuild builds anew, rather than read. The cache trims itself, as
// Go's build cache does, at most once a day when an index is saved to it
// or loaded from it: an index of its own (a name of 32 hexadecimal digits
// and .idx, with no file of that hash beside it) not used for 30 days is
// removed, and so are the temporaries of its saves that were killed;
// nothing else in its directory is.
//
// Only uncompressed files can be indexed: a compressed stream has no
// offsets a reader can go to (ErrCompressed).
package index

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/sluiceml/sluice/dataerr"
	"github.com/sluiceml/sluice/storage"
	"github.com/sluiceml/sluice/tfrecord"
)

// ErrCompressed is returned for a file that is compressed: its records
// have no offsets in the file a reader could go to.
var ErrCompressed = errors.New("index: compressed files cannot be indexed")

// ErrStale is wrapped by Load's error when the file changed since its
// index was built (its size or modification time differ).
var ErrStale = errors.New("index: the file changed since its index was built")

// ErrNoIndex is wrapped by Load's error when the file has no index.
var ErrNoIndex = errors.New("index: no index")

// ErrIndexFile is wrapped by the error of a stored index met where data
// files are read: sluice index --beside puts FILE.idx next to FILE, where
// a pattern such as 'data/*' finds it too.
var ErrIndexFile = errors.New("the file is a sluice index (sluice index --beside writes FILE.idx beside FILE), not TFRecord data: leave it out, with a pattern such as 'data/*.tfrecord'")

// An Index holds the offsets of a TFRecord file's records.
type Index struct {
	// Name is the file's name, as it was opened.
	Name string
	// Size and ModTime are the file's when the index was built; ModTime
	// is the zero time for a store that reports none.
	Size    int64
	ModTime time.Time
	// Version is what identifies the object's content in a store that
	// reports it (an ETag or a generation), "" for a local file.
	Version string

	// ends[i] is the offset just past record i; record i starts at
	// ends[i-1] (0 for the first).
	ends []int64

	stored string // where Load read the index from
}

// Stored returns where [Load] found the index: [Beside] the file, or its
// place in the cache. It is "" for an index Build made.
func (x *Index) Stored() string { return x.stored }

// Len returns the number of records.
func (x *Index) Len() int { return len(x.ends) }

// Record returns where record i starts in the file and where it ends,
// framing included: the bytes [start, end) are one whole TFRecord.
func (x *Index) Record(i int) (start, end int64) {
	if i > 0 {
		start = x.ends[i-1]
	}
	return start, x.ends[i]
}

// A BuildOption configures Build.
type BuildOption func(*buildConfig)

type buildConfig struct {
	maxRecord int64
}

// MaxRecordSize sets the largest record Build reads; a longer length field
// is an error wrapping tfrecord.ErrTooLarge. The default, as a
// tfrecord.Reader's, is tfrecord.DefaultMaxRecordSize. Build checks every
// record's data CRC, so it holds each record whole: a damaged length field
// that passes its CRC would otherwise cost as much memory as the file
// allows.
func MaxRecordSize(n int64) BuildOption {
	return func(c *buildConfig) { c.maxRecord = n }
}

// Build reads the TFRecord file name once, checking every record's CRCs,
// and returns its index.
func Build(ctx context.Context, name string, opts ...BuildOption) (*Index, error) {
	cfg := buildConfig{maxRecord: tfrecord.DefaultMaxRecordSize}
	for _, o := range opts {
		o(&cfg)
	}
	f, err := storage.Open(ctx, name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if f.Size() < 0 {
		return nil, fmt.Errorf("index: %s is a stream (a pipe or device), whose records cannot be read at offsets", name)
	}
	x := &Index{Name: name, Size: f.Size(), ModTime: modTime(f), Version: version(f)}
	br := bufio.NewReaderSize(f, 256<<10)
	head, err := br.Peek(min(16, int(f.Size())))
	if err != nil && err != io.EOF {
		return nil, fmt.Errorf("index: %s: %w", name, err)
	}
	if c := tfrecord.DetectCompression(head); c != tfrecord.None {
		return nil, fmt.Errorf("%w: %s is %v", ErrCompressed, name, c)
	}
	if IsIndex(head) {
		return nil, &dataerr.Error{File: name, Offset: 0, Record: -1, Err: ErrIndexFile}
	}
	r := tfrecord.NewReader(br, tfrecord.Name(name), tfrecord.InputSize(f.Size()), tfrecord.MaxRecordSize(cfg.maxRecord))
	for {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("index: %s: %w", name, err)
		}
		if _, err := r.Next(); err == io.EOF {
			break
		} else if err != nil {
			return nil, err
		}
		x.ends = append(x.ends, r.NextOffset())
	}
	return x, nil
}

// version returns f's version, if its store reports one: a storage.File
// of an object store may say what identifies its content.
func version(f storage.File) string {
	if v, ok := f.(interface{ Version() string }); ok {
		return v.Version()
	}
	return ""
}

// modTime returns f's modification time, if its store reports one.
func modTime(f storage.File) time.Time {
	if m, ok := f.(interface{ ModTime() time.Time }); ok {
		return m.ModTime()
	}
	return time.Time{}
}

// Check reports whether the file still has the size, modification time
// and version the index was built for, wrapping ErrStale if not.
func (x *Index) Check(ctx context.Context) error {
	f, err := storage.Open(ctx, x.Name)
	if err != nil {
		return err
	}
	defer f.Close()
	return x.CheckFile(f)
}

// CheckFile is Check for a file already open: a reader that opens the
// file after its index was loaded can make sure it reads the content the
// index was built from.
func (x *Index) CheckFile(f storage.File) error {
	if f.Size() != x.Size {
		return fmt.Errorf("%w: %s has %d bytes, %d when indexed", ErrStale, x.Name, f.Size(), x.Size)
	}
	if m := modTime(f); !m.Equal(x.ModTime) {
		return fmt.Errorf("%w: %s was modified at %v, indexed at %v", ErrStale, x.Name, m.Format(time.RFC3339Nano), x.ModTime.Format(time.RFC3339Nano))
	}
	// An index saved before versions were recorded has none: for an
	// object that reports one, it is rebuilt once.
	if v := version(f); v != x.Version {
		if x.Version == "" {
			return fmt.Errorf("%w: %s is at %s, and its index records no version", ErrStale, x.Name, v)
		}
		return fmt.Errorf("%w: %s is at %s, indexed at %s", ErrStale, x.Name, v, x.Version)
	}
	return nil
}
