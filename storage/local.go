package storage

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"
)

var (
	_ RenameFS = Local{}
	_ SizeFS   = Local{}
)

// Local is the FS of the local disk. It serves plain paths and file://
// URLs ("file:///data/x" is the path "/data/x"); Glob answers in the form
// of its pattern.
type Local struct{}

// localPath strips a file:// prefix.
func localPath(name string) (path string, prefix string) {
	if Scheme(name) == "file" {
		return name[len("file://"):], name[:len("file://")]
	}
	return name, ""
}

// Open opens a local file. On Linux, opening a named pipe no writer has
// opened yet waits for one only as long as ctx allows.
func (Local) Open(ctx context.Context, name string) (File, error) {
	p, _ := localPath(name)
	f, err := openLocal(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("storage: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("storage: %w", err)
	}
	if st.IsDir() {
		f.Close()
		return nil, fmt.Errorf("storage: open %s: is a directory", name)
	}
	size := st.Size()
	if !st.Mode().IsRegular() {
		size = -1 // a pipe's or device's Size is not its length
	}
	return &localFile{File: f, name: name, size: size, modTime: st.ModTime()}, nil
}

// Size returns a local file's length from its metadata, -1 for a named
// pipe or a device, which it does not open.
func (Local) Size(_ context.Context, name string) (int64, error) {
	p, _ := localPath(name)
	st, err := os.Stat(p)
	if err != nil {
		return 0, fmt.Errorf("storage: %w", err)
	}
	switch {
	case st.IsDir():
		return 0, fmt.Errorf("storage: size of %s: is a directory", name)
	case !st.Mode().IsRegular():
		return -1, nil
	}
	return st.Size(), nil
}

// Create creates or truncates a local file. Parent directories must exist.
func (Local) Create(_ context.Context, name string) (io.WriteCloser, error) {
	p, _ := localPath(name)
	f, err := os.Create(p)
	if err != nil {
		return nil, fmt.Errorf("storage: %w", err)
	}
	return f, nil
}

// Rename renames a local file, replacing any file of the new name, and
// then flushes the directory so that the new name survives a crash. Both
// names must be in the same file system (Pending puts them side by side).
// If the rename succeeded but the flush failed (the directory cannot be
// opened for reading, or its fsync fails), the file is under its new name
// and the error wraps [ErrNotDurable]: a caller must not take it for a
// failed rename and, say, remove the old name's file, which is gone.
func (l Local) Rename(_ context.Context, oldname, newname string) error {
	if err := l.renameUnsynced(oldname, newname); err != nil {
		return err
	}
	return l.syncRenamed([][2]string{{oldname, newname}})[0]
}

// renameUnsynced is Rename without the flush of the directory, which
// syncRenamed does after. CommitAll renames the files of an output with
// it one right after another, a few microseconds each, and flushes each
// directory once after the last, so that a kill can fall between two of
// the renames only in that short span and not in the N directory flushes
// between them that Rename would make.
func (Local) renameUnsynced(oldname, newname string) error {
	o, _ := localPath(oldname)
	n, _ := localPath(newname)
	if err := os.Rename(o, n); err != nil {
		return fmt.Errorf("storage: %w", err)
	}
	return nil
}

// syncRenamed flushes the directories of the new names of renames
// (pairs of old and new name) that renameUnsynced made, each directory
// once, in the order the renames first name it. It returns an error per
// rename, nil for one now durable and, for one whose directory could not
// be flushed, Rename's error wrapping [ErrNotDurable].
func (Local) syncRenamed(renames [][2]string) []error {
	errs := make([]error, len(renames))
	synced := map[string]error{}
	for i, r := range renames {
		n, _ := localPath(r[1])
		dir := filepath.Dir(n)
		err, ok := synced[dir]
		if !ok {
			err = syncDir(dir)
			synced[dir] = err
		}
		if err != nil {
			errs[i] = fmt.Errorf("storage: %s renamed to %s, but %w: %w", r[0], r[1], ErrNotDurable, err)
		}
	}
	return errs
}

// Remove removes a local file.
func (Local) Remove(_ context.Context, name string) error {
	p, _ := localPath(name)
	if err := os.Remove(p); err != nil {
		return fmt.Errorf("storage: %w", err)
	}
	return nil
}

// syncDir flushes a directory's entries to stable storage. File systems
// that cannot sync a directory say so with EINVAL, which is not an error
// here: there is nothing more to do on them. It is a variable so that
// tests can make it fail as a directory without read permission does.
var syncDir = syncLocalDir

func syncLocalDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("storage: %w", err)
	}
	err = d.Sync()
	d.Close()
	if err != nil && !errors.Is(err, syscall.EINVAL) {
		return fmt.Errorf("storage: sync %s: %w", dir, err)
	}
	return nil
}

// Glob matches local paths with filepath.Glob.
func (Local) Glob(_ context.Context, pattern string) ([]string, error) {
	p, prefix := localPath(pattern)
	names, err := filepath.Glob(p)
	if err != nil {
		return nil, fmt.Errorf("storage: glob %s: %w", pattern, err)
	}
	if prefix != "" {
		for i, n := range names {
			names[i] = prefix + n
		}
	}
	return names, nil
}

type localFile struct {
	*os.File
	name    string
	size    int64
	modTime time.Time
}

func (f *localFile) Size() int64  { return f.size }
func (f *localFile) Name() string { return f.name }

// ModTime returns the file's modification time when it was opened.
func (f *localFile) ModTime() time.Time { return f.modTime }

// Close closes the file; the error names the path.
func (f *localFile) Close() error {
	if err := f.File.Close(); err != nil {
		return fmt.Errorf("storage: %w", err)
	}
	return nil
}

// EntryName returns a name that two names of one directory entry have in
// common, so that a writer of several files can tell when two of its
// names would replace each other. A local name (a path or a file:// URL)
// becomes an absolute path whose directory has its symbolic links
// resolved, as far as it exists: "a", "./a", "file:///cwd/a" and
// "link/a", with link a link to ".", are one entry. A ".." is taken
// where the system takes it: on Unix after the link before it, so that
// "link/../a", with link a link to "x/y", is "x/a". The last element is
// not resolved, since renaming onto a link replaces the link. Any other
// URL is returned as it is.
func EntryName(name string) string {
	switch Scheme(name) {
	case "", "file":
	default:
		return name
	}
	p, _ := localPath(name)
	abs, err := absLinked(p)
	if err != nil {
		return filepath.Clean(p)
	}
	vol := filepath.VolumeName(abs)
	elems := strings.FieldsFunc(abs[len(vol):], func(r rune) bool { return r == '/' || r == filepath.Separator })
	base := ""
	if n := len(elems); n > 0 && elems[n-1] != "." && elems[n-1] != ".." {
		base, elems = elems[n-1], elems[:n-1]
	}
	// Resolve the longest part of the directory that exists; the rest
	// has no links yet. The parts are joined, not cleaned: cleaning
	// would take "link/.." for ".".
	root := vol + string(filepath.Separator)
	for k := len(elems); k >= 0; k-- {
		if r, err := filepath.EvalSymlinks(root + strings.Join(elems[:k], string(filepath.Separator))); err == nil {
			return filepath.Join(r, filepath.Join(elems[k:]...), base)
		}
	}
	return filepath.Clean(abs)
}

// absLinked returns p as an absolute path, with its ".." elements left
// for the links before them to be resolved first, where the system
// resolves them so.
func absLinked(p string) (string, error) {
	switch {
	case runtime.GOOS == "windows":
		// Windows takes ".." out of a path before it follows links,
		// as Abs does.
		return filepath.Abs(p)
	case filepath.IsAbs(p):
		return p, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	return wd + string(filepath.Separator) + p, nil
}
