package storage

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"sync"
)

// A File is an open file for reading. ReadAt makes range reads (and so
// parallel readers of one file) possible; Size is the file's length when
// it was opened, or -1 for a stream whose length is not known (a named
// pipe, a character device), which can only be read in order.
type File interface {
	io.Reader
	io.ReaderAt
	io.Closer
	Size() int64
	// Name returns the name the file was opened by.
	Name() string
}

// An FS is a file system: the local disk or an object store. Names passed
// to it are full names, scheme included, exactly as the caller wrote them.
// Implementations must be safe for concurrent use.
type FS interface {
	Open(ctx context.Context, name string) (File, error)
	Create(ctx context.Context, name string) (io.WriteCloser, error)
	// Glob returns the names matching pattern, in any order, in the same
	// form (scheme included) as the pattern.
	Glob(ctx context.Context, pattern string) ([]string, error)
}

// ErrUnsupportedScheme reports a name whose URL scheme has no registered
// FS.
var ErrUnsupportedScheme = errors.New("no file system registered for scheme")

var (
	mu       sync.RWMutex
	registry = map[string]FS{"file": Local{}}
)

// Register makes fs serve names of the form scheme://... . Registering
// a scheme again replaces the previous FS; "file" may be replaced too.
// Scheme names are case-insensitive.
func Register(scheme string, fs FS) {
	mu.Lock()
	defer mu.Unlock()
	registry[strings.ToLower(scheme)] = fs
}

// Registered returns the FS serving scheme, if any, so that a caller that
// registers a scheme for a while can put the previous FS back.
func Registered(scheme string) (FS, bool) {
	mu.RLock()
	defer mu.RUnlock()
	fs, ok := registry[strings.ToLower(scheme)]
	return fs, ok
}

// Unregister removes scheme's FS, if any.
func Unregister(scheme string) {
	mu.Lock()
	defer mu.Unlock()
	delete(registry, strings.ToLower(scheme))
}

// Schemes returns the registered schemes, sorted.
func Schemes() []string {
	mu.RLock()
	defer mu.RUnlock()
	s := make([]string, 0, len(registry))
	for k := range registry {
		s = append(s, k)
	}
	slices.Sort(s)
	return s
}

// Scheme returns the URL scheme of name, lower-cased, or "" for a plain
// path. A scheme is letters, digits, '+', '-' and '.', starting with a
// letter, followed by "://"; a Windows drive ("C:\") is not one.
func Scheme(name string) string {
	i := strings.Index(name, "://")
	if i <= 0 {
		return ""
	}
	for j, c := range name[:i] {
		isAlpha := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
		if !isAlpha && (j == 0 || !('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return ""
		}
	}
	return strings.ToLower(name[:i])
}

func lookup(name string) (FS, error) {
	scheme := Scheme(name)
	if scheme == "" {
		return Local{}, nil
	}
	mu.RLock()
	fs, ok := registry[scheme]
	mu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("storage: %w %q: %s", ErrUnsupportedScheme, scheme, name)
	}
	return fs, nil
}

// Open opens the named file for reading. An FS may tie the file's reads
// to ctx, as storage/blobfs does so that cancelling ctx abandons a read
// stalled on the network: pass a context that lives as long as the file,
// not one that ends when Open returns.
func Open(ctx context.Context, name string) (File, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("storage: open %s: %w", name, err)
	}
	fs, err := lookup(name)
	if err != nil {
		return nil, err
	}
	return fs.Open(ctx, name)
}

// A SizeFS is an FS that can tell a file's size without opening it for
// reading.
type SizeFS interface {
	FS
	// Size returns the named file's length, as an opened File's Size
	// would: -1 for a stream.
	Size(ctx context.Context, name string) (int64, error)
}

// Size returns the named file's length, as Open's File would report it
// (-1 for a stream whose length is not known), opening it only when its
// FS cannot tell otherwise. A local named pipe is not opened: its reader
// would take the data of a writer that came meanwhile, and the pipe
// drops what it holds when its last reader closes it.
func Size(ctx context.Context, name string) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("storage: size of %s: %w", name, err)
	}
	fs, err := lookup(name)
	if err != nil {
		return 0, err
	}
	if s, ok := fs.(SizeFS); ok {
		return s.Size(ctx, name)
	}
	f, err := fs.Open(ctx, name)
	if err != nil {
		return 0, err
	}
	size := f.Size()
	f.Close()
	return size, nil
}

// Create creates (or truncates) the named file for writing. The file is
// complete only after Close returns nil.
func Create(ctx context.Context, name string) (io.WriteCloser, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("storage: create %s: %w", name, err)
	}
	fs, err := lookup(name)
	if err != nil {
		return nil, err
	}
	return fs.Create(ctx, name)
}

// Match returns the files name stands for, where a reader takes names
// and patterns alike: name itself when it holds no glob character or when
// a file of that very name exists (weird[v1].tfrecord is a file before it
// is a pattern), else the names it matches as a pattern (Glob), which may
// be none. A name without glob characters is not looked up: its open says
// whether it is there. A local name is looked up, not opened (a named
// pipe's open would wait for a writer), and a symbolic link that leads
// nowhere exists, so that its open names it rather than a pattern
// reading other files.
func Match(ctx context.Context, name string) ([]string, error) {
	if !HasMeta(name) || Exists(ctx, name) {
		return []string{name}, nil
	}
	return Glob(ctx, name)
}

// HasMeta reports whether name holds a character that Glob gives a
// meaning: *, ?, [ or the backslash that escapes them (on Windows, where a
// local path's backslash separates its elements, *, ? and [).
func HasMeta(name string) bool {
	if runtime.GOOS == "windows" && Scheme(name) == "" {
		return strings.ContainsAny(name, "*?[")
	}
	return strings.ContainsAny(name, `*?[\`)
}

// QuoteMeta returns name with its glob characters quoted, so that a
// pattern built from it (QuoteMeta(dir) + "/train-*") matches name's own
// characters: *, ? and [ as classes of one ([*]), which every system's
// matching takes, and a backslash escaped, except in a local path on
// Windows, where it separates elements.
func QuoteMeta(name string) string {
	if !HasMeta(name) {
		return name
	}
	windows := runtime.GOOS == "windows" && Scheme(name) == ""
	var b strings.Builder
	// Byte by byte, not rune by rune: the glob characters are ASCII, and
	// a name's bytes that are not UTF-8 must stay as they are (ranging
	// over runes wrote U+FFFD for them, a pattern of another name; audit
	// 107).
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case c == '*' || c == '?' || c == '[':
			b.WriteByte('[')
			b.WriteByte(c)
			b.WriteByte(']')
		case c == '\\' && !windows:
			b.WriteString(`\\`)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// Glob returns the names that match pattern, sorted, as TensorFlow's
// match_filenames_once returns them. The pattern syntax is path.Match's
// (*, ?, [...]) in any path element. No match is not an error: the
// result is empty. A malformed pattern is an error wrapping
// path.ErrBadPattern.
//
// The temporaries of writes in progress or interrupted ([IsTemp]) are
// left out unless the pattern's last element starts with a dot: path.Match
// lets * match a hidden name, as a shell does not, and a pattern for a
// data set's files (train-*, *) would read those temporaries as more of
// its records.
func Glob(ctx context.Context, pattern string) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("storage: glob %s: %w", pattern, err)
	}
	fs, err := lookup(pattern)
	if err != nil {
		return nil, err
	}
	names, err := fs.Glob(ctx, pattern)
	if err != nil {
		return nil, err
	}
	// The last element after the last slash: a backslash in a pattern
	// escapes a metacharacter.
	if base := pattern[strings.LastIndex(pattern, "/")+1:]; !strings.HasPrefix(base, ".") {
		names = slices.DeleteFunc(names, IsTemp)
	}
	slices.Sort(names)
	return slices.Compact(names), nil
}
