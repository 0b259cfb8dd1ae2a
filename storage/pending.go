package storage

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"path"
	"slices"
	"strings"
)

// TempMarker is what the temporary name of a [Pending] file carries
// between its final name, made hidden by a leading dot, and a random
// suffix: ".data.tfrecord.sluice-tmp-3f9a…" beside "data.tfrecord". The
// dot keeps temporaries out of patterns such as "data-*" that find the
// finished files. A name of that form that has outlived its writer is
// the leftover of a write that never finished (the process was killed);
// [IsTemp] recognises one and [Leftovers] finds those of a final name.
const TempMarker = ".sluice-tmp-"

// IsTemp reports whether name is the temporary name of a [Pending] file.
func IsTemp(name string) bool {
	_, base := splitBase(name)
	return strings.HasPrefix(base, ".") && strings.Contains(base, TempMarker)
}

// tempPrefix returns the beginning of name's temporary names, up to and
// including TempMarker.
func tempPrefix(name string) string {
	dir, base := splitBase(name)
	return dir + "." + base + TempMarker
}

// splitBase splits name after its last separator.
func splitBase(name string) (dir, base string) {
	i := strings.LastIndexAny(name, `/\`) + 1
	return name[:i], name[i:]
}

// ErrOldNameLeft is wrapped by the error of a [RenameFS]'s Rename that
// gave the file its new name but could not remove the old one (an object
// store copies and then deletes, and the delete may be refused): the file
// is complete under the new name, and still there under the old.
var ErrOldNameLeft = errors.New("the file is under its new name, but the old name could not be removed")

// ErrNotDurable is wrapped by the error of a [RenameFS]'s Rename that gave
// the file its new name but could not make the new name durable (the
// local file system's directory could not be synced, for example because
// the directory cannot be opened for reading): the file is under its new
// name now, and a crash of the machine soon after might lose the rename.
// Whatever follows must treat the file as renamed.
var ErrNotDurable = errors.New("the directory could not be synced, so the new name may not survive a crash")

// A RenameFS is an FS that can give a complete file a new name within the
// same file system, replacing any file of that name, and remove files.
// [CreatePending] needs one. Rename of local files is atomic; an object
// store may copy and then delete.
type RenameFS interface {
	FS
	Rename(ctx context.Context, oldname, newname string) error
	Remove(ctx context.Context, name string) error
}

// A Pending is a file being written under a temporary name beside its
// final name, so that a reader never sees it incomplete: it appears under
// the final name only when [Pending.Commit] succeeds, all at once, and
// [Pending.Abort] (or a failed Commit) removes it. Writing several files as
// one data set takes two steps: [Pending.Close] every file, which makes
// each durable under its temporary name, and Commit them only when all of
// them closed without error.
//
// A process killed while writing leaves the temporary behind, named by
// [TempMarker]; the next writer of the same name can find it with
// [Leftovers].
//
// A Pending is not safe for concurrent use.
type Pending struct {
	ctx        context.Context
	fs         RenameFS
	name, temp string
	w          io.WriteCloser
	closed     bool
	closeErr   error
	done       bool  // committed or aborted
	doneErr    error // the failed Commit's error, which later Commits return
}

// CreatePending creates a temporary file beside name for writing. ctx
// governs the writes, the final rename and the removal on Abort. The FS
// serving name must be a [RenameFS]; if it is not, the error wraps
// [errors.ErrUnsupported].
func CreatePending(ctx context.Context, name string) (*Pending, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("storage: create %s: %w", name, err)
	}
	fsys, err := lookup(name)
	if err != nil {
		return nil, err
	}
	rfs, ok := fsys.(RenameFS)
	if !ok {
		return nil, fmt.Errorf("storage: create %s: its file system cannot rename, so the file could not appear whole: %w", name, errors.ErrUnsupported)
	}
	var suffix [6]byte
	rand.Read(suffix[:])
	temp := tempPrefix(name) + hex.EncodeToString(suffix[:])
	w, err := rfs.Create(ctx, temp)
	if err != nil {
		return nil, fmt.Errorf("storage: create %s: %w", name, err)
	}
	return &Pending{ctx: ctx, fs: rfs, name: name, temp: temp, w: w}, nil
}

// Name returns the file's final name.
func (p *Pending) Name() string { return p.name }

// TempName returns the temporary name the file has until it is committed.
func (p *Pending) TempName() string { return p.temp }

// Write writes b to the temporary file.
func (p *Pending) Write(b []byte) (int, error) {
	if p.closed {
		return 0, fmt.Errorf("storage: write %s: file already closed", p.name)
	}
	return p.w.Write(b)
}

// Close finishes the temporary file: it flushes the data to stable
// storage where the file system can (fsync of a local file) and closes
// it, leaving it under its temporary name. Calling Close again returns
// the first call's result.
func (p *Pending) Close() error {
	if p.closed {
		return p.closeErr
	}
	p.closed = true
	if s, ok := p.w.(interface{ Sync() error }); ok {
		if err := s.Sync(); err != nil {
			p.closeErr = fmt.Errorf("storage: sync %s: %w", p.temp, err)
		}
	}
	if err := p.w.Close(); err != nil && p.closeErr == nil {
		p.closeErr = err
	}
	return p.closeErr
}

// Commit closes the file, if Close has not been called, and gives it its
// final name, replacing any file of that name. If either fails, the
// temporary is removed and the error returned; except that a file given
// its final name is committed even if the rename's error says more went
// wrong: its temporary could not be removed ([ErrOldNameLeft]) or the new
// name could not be made durable ([ErrNotDurable]), and the error wraps
// that sentinel. Calling Commit again returns the first call's result, so
// a failed Commit stays failed; Commit after Abort does nothing.
func (p *Pending) Commit() error { return p.commit(p.ctx) }

func (p *Pending) commit(ctx context.Context) error {
	if p.done {
		return p.doneErr
	}
	err := p.Close()
	if err == nil {
		err = ctx.Err()
	}
	if err == nil {
		err = p.fs.Rename(ctx, p.temp, p.name)
		switch {
		case errors.Is(err, ErrOldNameLeft):
			p.done = true
			p.doneErr = fmt.Errorf("storage: %s written, but its temporary %s is left: %w", p.name, p.temp, err)
			return p.doneErr
		case errors.Is(err, ErrNotDurable):
			p.done = true
			p.doneErr = fmt.Errorf("storage: %s written: %w", p.name, err)
			return p.doneErr
		}
	}
	if err != nil {
		p.Abort()
		p.doneErr = fmt.Errorf("storage: %s not written: %w", p.name, err)
		return p.doneErr
	}
	p.done = true
	return nil
}

// CommitAll commits files, the parts of one output, together: it closes
// them all, and if any fails to close or the context of any has ended it
// aborts them all and returns the error. Only then do the renames begin,
// and they all go ahead whatever the contexts (a rename is quick): a
// signal in the middle of them would leave some parts under their final
// names, beside other parts of an older output, as if complete. A rename
// that fails aborts the files not yet renamed, and the error names them;
// those renamed stay. A file committed with more to report (see
// [Pending.Commit]) was renamed all the same, so it does not stop the
// others: the error wraps [ErrOldNameLeft] or [ErrNotDurable] and names
// each such file, and every file is under its final name.
func CommitAll(files []*Pending) error {
	var err error
	for _, f := range files {
		if cerr := f.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("storage: %s not written: %w", f.name, cerr)
		}
		if err == nil && f.ctx.Err() != nil {
			err = fmt.Errorf("storage: %s not written: %w", f.name, context.Cause(f.ctx))
		}
	}
	if err != nil {
		for _, f := range files {
			f.Abort()
		}
		return err
	}
	var left []error // files committed with their temporaries left
	for i, f := range files {
		err := f.commit(context.WithoutCancel(f.ctx))
		if errors.Is(err, ErrOldNameLeft) || errors.Is(err, ErrNotDurable) {
			left = append(left, err)
			continue
		}
		if err != nil {
			errs := append(left, err)
			for _, g := range files[i+1:] {
				g.Abort()
				errs = append(errs, fmt.Errorf("storage: %s not written", g.name))
			}
			return errors.Join(errs...)
		}
	}
	return errors.Join(left...)
}

// Abort closes the file and removes the temporary, leaving nothing under
// either name; a file already under the final name is untouched. Abort
// after Commit or Abort does nothing. The removal goes ahead even when the
// Pending's context has ended, since that is when a cancelled writer
// cleans up.
func (p *Pending) Abort() error {
	if p.done {
		return nil
	}
	p.done = true
	p.Close()
	if err := p.fs.Remove(context.WithoutCancel(p.ctx), p.temp); err != nil {
		return fmt.Errorf("storage: removing %s: %w", p.temp, err)
	}
	return nil
}

// Leftovers returns the temporary files left beside name by writers of
// it that never finished (see [TempMarker]), sorted.
func Leftovers(ctx context.Context, name string) ([]string, error) {
	return Glob(ctx, escapeMeta(tempPrefix(name))+"*")
}

// LeftoversOf returns the temporaries left by writers of any file whose
// name is stem followed by "." or "-" (stem.tfrecord, stem.parquet,
// stem-00000-of-00004.tfrecord.gz): the leftovers of every output a
// command writing to stem made, whatever its shard count, compression or
// format, sorted.
func LeftoversOf(ctx context.Context, stem string) ([]string, error) {
	dir, base := splitBase(stem)
	names, err := Glob(ctx, escapeMeta(dir+"."+base)+"*"+TempMarker+"*")
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(names, func(name string) bool {
		_, b := splitBase(name)
		final := b[1:strings.LastIndex(b, TempMarker)]
		return !strings.HasPrefix(final, base+".") && !strings.HasPrefix(final, base+"-")
	}), nil
}

// LeftoversMatching returns the temporaries left by writers of files
// whose final names match pattern (as [Glob] matches them), sorted: the
// leftovers of every interrupted write that would have produced one of
// the files pattern finds, including files that never appeared. A
// pattern whose last element starts with "." matches temporaries itself
// and has none of its own.
func LeftoversMatching(ctx context.Context, pattern string) ([]string, error) {
	dir, base := splitBase(pattern)
	if strings.HasPrefix(base, ".") {
		return nil, nil
	}
	if _, err := path.Match(base, ""); err != nil {
		return nil, fmt.Errorf("storage: glob %s: %w", pattern, err)
	}
	names, err := Glob(ctx, dir+".*"+TempMarker+"*")
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(names, func(name string) bool {
		_, b := splitBase(name)
		ok, _ := path.Match(base, b[1:strings.LastIndex(b, TempMarker)])
		return !ok
	}), nil
}

// Remove removes the named file. The FS serving name must be a
// [RenameFS]; if it is not, the error wraps [errors.ErrUnsupported].
func Remove(ctx context.Context, name string) error {
	fsys, err := lookup(name)
	if err != nil {
		return err
	}
	rfs, ok := fsys.(RenameFS)
	if !ok {
		return fmt.Errorf("storage: remove %s: %w", name, errors.ErrUnsupported)
	}
	return rfs.Remove(ctx, name)
}

// escapeMeta quotes the glob metacharacters of name so that a pattern
// built from it matches name literally.
func escapeMeta(name string) string {
	if !strings.ContainsAny(name, `*?[\`) {
		return name
	}
	var b strings.Builder
	for _, c := range name {
		if strings.ContainsRune(`*?[\`, c) {
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
	return b.String()
}
