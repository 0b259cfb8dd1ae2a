package storage

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"
)

// TempMarker is what the temporary name of a [Pending] file carries
// between its final name, made hidden by a leading dot, and a random
// suffix: ".data.tfrecord.sluice-tmp-L3f9a…" beside "data.tfrecord". The
// dot keeps temporaries out of patterns such as "data-*" that find the
// finished files. A name of that form that has outlived its writer is
// the leftover of a write that never finished (the process was killed);
// [IsTemp] recognises one, [Leftovers] finds those of a final name and
// [RemoveLeftover] removes one once its writer is gone.
//
// A local temporary whose suffix starts with [LockedTag] is locked by its
// writer (flock(2), on Unix) for as long as the writer holds it open, so
// that another process can tell a running write's temporary from a dead
// one's. Other temporaries (those of earlier versions, of object stores,
// of systems without flock) tell nothing but their age.
const TempMarker = ".sluice-tmp-"

// LockedTag starts the random suffix, after [TempMarker], of a temporary
// its writer holds locked while it lives.
const LockedTag = "L"

// AbandonedAfter is how long a temporary that carries no lock (see
// [TempMarker]) must have gone unmodified before [RemoveLeftover] takes it
// for abandoned: a write of such a file could be running in another
// process, and a running writer changes its file often. An hour leaves
// room for a writer that reads all its input before it writes (a
// shuffle).
const AbandonedAfter = time.Hour

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

// MaxNameLen is the longest last element of a local name, in bytes, that
// most file systems allow (NAME_MAX on Linux).
const MaxNameLen = 255

// tempExtra is how many bytes a temporary name adds to its final name's
// last element: the dot, TempMarker, LockedTag and the random suffix.
const tempExtra = 1 + len(TempMarker) + len(LockedTag) + 12

// ErrNameTooLong is wrapped by the error of [CheckName] and
// [CreatePending] for a local name whose temporary name would be longer
// than a file name can be.
var ErrNameTooLong = errors.New("file name too long")

// CheckName reports whether [CreatePending] can write name as far as its
// length goes: a local name's last element, with what its temporary name
// adds, must fit in MaxNameLen bytes. A name that fits no file system is
// better refused before the work that would fill the file; other checks
// come when the file is created.
func CheckName(name string) error {
	switch Scheme(name) {
	case "", "file":
	default:
		return nil // object names have no short limit per element
	}
	_, base := splitBase(name)
	if len(base)+tempExtra > MaxNameLen {
		return fmt.Errorf("storage: %s: %w: its last element has %d bytes, and its temporary name (.NAME%s…) needs %d more than the %d a file name can have; choose a name of at most %d bytes",
			name, ErrNameTooLong, len(base), TempMarker, len(base)+tempExtra-MaxNameLen, MaxNameLen, MaxNameLen-tempExtra)
	}
	return nil
}

// splitBase splits name after its last separator: a slash, or on Windows
// a backslash too. Elsewhere a backslash is a character of a name: taken
// for a separator, the temporary of "o\y" was "o\.y…", a file of the
// folder that its writer's listing looked for in a folder "o\" (audit
// 99).
func splitBase(name string) (dir, base string) {
	seps := "/"
	if runtime.GOOS == "windows" {
		seps = `/\`
	}
	i := strings.LastIndexAny(name, seps) + 1
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

// ErrTempLeft is wrapped by the error of a [Pending.Abort] that could not
// remove the temporary: nothing is under the final name, but the
// temporary is, until a later writer of the name removes it (see
// [RemoveDeadLeftovers]).
var ErrTempLeft = errors.New("the temporary could not be removed")

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
	locked     *os.File // w, when it holds the temporary's lock: open until Commit or Abort
	closed     bool
	closeErr   error
	done       bool  // committed or aborted
	doneErr    error // the failed Commit's error, which later Commits return
}

// CreatePending creates a temporary file beside name for writing. ctx
// governs the writes, the final rename and the removal on Abort. The FS
// serving name must be a [RenameFS]; if it is not, the error wraps
// [errors.ErrUnsupported]. A local name too long to have a temporary
// beside it is refused with [ErrNameTooLong] (see [CheckName]), and one
// a folder holds with an error wrapping syscall.EISDIR, before anything is
// written.
func CreatePending(ctx context.Context, name string) (*Pending, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("storage: create %s: %w", name, err)
	}
	if err := CheckName(name); err != nil {
		return nil, err
	}
	fsys, err := lookup(name)
	if err != nil {
		return nil, err
	}
	rfs, ok := fsys.(RenameFS)
	if !ok {
		return nil, fmt.Errorf("storage: create %s: its file system cannot rename, so the file could not appear whole: %w", name, errors.ErrUnsupported)
	}
	if _, ok := rfs.(Local); ok {
		// A folder of that name would refuse the rename only at the
		// commit, after all the writing, and, among the files of a
		// CommitAll, after the ones before it took their names.
		p, _ := localPath(name)
		if fi, err := os.Lstat(p); err == nil && fi.IsDir() {
			return nil, fmt.Errorf("storage: create %s: a folder has that name: %w", name, syscall.EISDIR)
		}
		if canLock {
			return createLocked(ctx, name)
		}
	}
	temp := tempPrefix(name) + randomSuffix()
	w, err := rfs.Create(ctx, temp)
	if err != nil {
		return nil, fmt.Errorf("storage: create %s: %w", name, err)
	}
	return &Pending{ctx: ctx, fs: rfs, name: name, temp: temp, w: w}, nil
}

func randomSuffix() string {
	var b [6]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// testHookCreated, if set, is called by CreatePending between creating a
// local temporary and locking it, where a RemoveLeftover may take it for
// a dead writer's.
var testHookCreated func(path string)

// createLocked creates a local temporary for name and locks it (see
// [LockedTag]) through the writer's own descriptor, which Pending keeps
// open until Commit or Abort. It opens no other: a second descriptor
// for the lock would double the descriptors a write of many shards needs,
// and where flock is emulated with POSIX locks (NFS), closing any
// descriptor of a file drops the process's locks on it.
func createLocked(ctx context.Context, name string) (*Pending, error) {
	for {
		temp := tempPrefix(name) + LockedTag + randomSuffix()
		p, _ := localPath(temp)
		f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if err != nil {
			return nil, fmt.Errorf("storage: create %s: %w", name, err)
		}
		if testHookCreated != nil {
			testHookCreated(p)
		}
		if err := lockWaiting(ctx, f); err != nil {
			if ctx.Err() != nil {
				f.Close()
				os.Remove(p)
				return nil, fmt.Errorf("storage: create %s: %w", name, err)
			}
			// A file system without locks: the temporary will be judged
			// by its age, as one of an earlier version.
			return &Pending{ctx: ctx, fs: Local{}, name: name, temp: temp, w: f}, nil
		}
		// Between the create and the lock, a RemoveLeftover could take
		// the unlocked file for a dead writer's and remove it; then the
		// name is gone, and another is needed.
		if ok, err := linked(f); err != nil || !ok {
			f.Close()
			if err != nil {
				return nil, fmt.Errorf("storage: create %s: %w", name, err)
			}
			continue
		}
		return &Pending{ctx: ctx, fs: Local{}, name: name, temp: temp, w: f, locked: f}, nil
	}
}

// lockWaiting takes the exclusive lock on f, a temporary this process
// has just created, waiting while another holds it: a remover judging
// whether it is a dead writer's, or a verify asking whether it is being
// written, each for a moment. It waits in steps rather than in a
// blocking flock, which no context could end, and returns ctx's cause
// once ctx ends. Any other error means the file system has no locks.
func lockWaiting(ctx context.Context, f *os.File) error {
	for wait := time.Millisecond; ; wait = min(2*wait, 50*time.Millisecond) {
		held, err := tryLock(f)
		if err != nil || !held {
			return err
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return context.Cause(ctx)
		case <-t.C:
		}
	}
}

// unlock closes the descriptor that holds the temporary's lock, once the
// temporary has its final name or is removed. An error of that close is
// not one of the write's: Close has synced the file, and a sync reports
// what failed to reach the disk.
func (p *Pending) unlock() {
	if p.locked != nil {
		p.locked.Close()
		p.locked = nil
	}
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
// it, leaving it under its temporary name; no more can be written. A
// local file whose descriptor holds the temporary's lock (see
// [LockedTag]) keeps it open until Commit or Abort, so that the lock
// lasts as long as the temporary name. Calling Close again returns the
// first call's result.
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
	if p.locked != nil {
		return p.closeErr // closed by unlock
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
// a failed Commit stays failed; Commit after Abort does nothing. A context
// ended before the rename begins aborts the file; once it has begun, the
// rename goes ahead (an object store's copy and delete are bounded by its
// own stall timeouts).
func (p *Pending) Commit() error { return p.commit(p.ctx) }

func (p *Pending) commit(ctx context.Context) error { return p.commitWith(ctx, p.fs.Rename) }

// commitWith is Commit with rename in place of the FS's Rename.
func (p *Pending) commitWith(ctx context.Context, rename func(ctx context.Context, oldname, newname string) error) error {
	if p.done {
		return p.doneErr
	}
	err := p.Close()
	if err == nil {
		err = ctx.Err()
	}
	if err == nil {
		// Begun, the rename goes ahead whatever the context: stopped
		// half way (an object store's copy made and its delete not), it
		// would leave the file under both names.
		err = rename(context.WithoutCancel(ctx), p.temp, p.name)
		if err == nil || errors.Is(err, ErrOldNameLeft) || errors.Is(err, ErrNotDurable) {
			p.unlock()
		}
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
		if aerr := p.Abort(); aerr != nil {
			// Its temporary stays, which the next writer removes: said,
			// so that no one takes the command for one that left nothing.
			err = fmt.Errorf("%w; its temporary is left: %w", err, aerr)
		}
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
// others: the error names each such file, and wraps [ErrOldNameLeft] or
// [ErrNotDurable] only when every file is under its final name, so that
// a caller who tests for them may take the output for written.
//
// Local files are renamed one right after another, and only then is
// each of their directories flushed, once, so that the renames span
// microseconds rather than a directory flush per file: what a process
// killed in that span (SIGKILL, a crash) leaves mixed, parts of the new
// output beside parts of an older one, is rarer by as much. It is still
// possible, and detectable: the parts not renamed are left under their
// temporary names, which [Leftovers] finds.
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
	local := !slices.ContainsFunc(files, func(f *Pending) bool {
		_, ok := f.fs.(Local)
		return !ok
	})
	var left []error       // files committed with their temporaries left
	var renamed []*Pending // local files renamed here, their directories not yet flushed
	for i, f := range files {
		var err error
		if local {
			done := f.done
			err = f.commitWith(context.WithoutCancel(f.ctx), func(_ context.Context, oldname, newname string) error {
				return Local{}.renameUnsynced(oldname, newname)
			})
			if err == nil && !done {
				renamed = append(renamed, f)
			}
		} else {
			err = f.commit(context.WithoutCancel(f.ctx))
		}
		if errors.Is(err, ErrOldNameLeft) || errors.Is(err, ErrNotDurable) {
			left = append(left, err)
			continue
		}
		if err != nil {
			var aborted []error
			for _, g := range files[i+1:] {
				if aerr := g.Abort(); aerr != nil {
					aborted = append(aborted, fmt.Errorf("storage: %s not written, and its temporary is left: %w", g.name, aerr))
				} else {
					aborted = append(aborted, fmt.Errorf("storage: %s not written", g.name))
				}
			}
			left = append(left, syncCommitted(renamed)...)
			// Said, but not wrapped: the output is not all there.
			var errs []error
			if i > 0 {
				// A rename that fails after others (an object store's copy,
				// refused) leaves new parts beside old ones, which nothing
				// in them tells apart (audit 47): said, naming the new.
				written := make([]string, i)
				for j, g := range files[:i] {
					written[j] = g.name
				}
				errs = append(errs, fmt.Errorf("storage: the output mixes new and old files: %s written, the others not, and those keep what they held", strings.Join(written, ", ")))
			}
			for _, l := range left {
				errs = append(errs, errors.New(l.Error()))
			}
			errs = append(errs, err)
			errs = append(errs, aborted...)
			return errors.Join(errs...)
		}
	}
	left = append(left, syncCommitted(renamed)...)
	return errors.Join(left...)
}

// syncCommitted makes durable the final names of local files that
// CommitAll renamed without, and returns the error, wrapping
// [ErrNotDurable], of each file whose name may not be, which that file's
// Commit returns from then on, as it would had its rename said so.
func syncCommitted(files []*Pending) []error {
	renames := make([][2]string, len(files))
	for i, f := range files {
		renames[i] = [2]string{f.temp, f.name}
	}
	var errs []error
	for i, err := range (Local{}).syncRenamed(renames) {
		if err != nil {
			f := files[i]
			f.doneErr = fmt.Errorf("storage: %s written: %w", f.name, err)
			errs = append(errs, f.doneErr)
		}
	}
	return errs
}

// Abort closes the file and removes the temporary, leaving nothing under
// either name; a file already under the final name is untouched. Abort
// after Commit or Abort does nothing. The removal goes ahead even when the
// Pending's context has ended, since that is when a cancelled writer
// cleans up.
//
// A file not yet closed is abandoned, not finished: a local one is not
// flushed to disk first, and a file whose FS can abandon a write (one
// with an Abort method, as an object store's upload has) is not
// uploaded, so that an interrupted command does not wait for what it
// throws away.
func (p *Pending) Abort() error {
	if p.done {
		return nil
	}
	p.done = true
	if !p.closed {
		p.closed = true
		if a, ok := p.w.(interface{ Abort() error }); ok {
			a.Abort()
		} else if p.locked == nil {
			p.w.Close()
		}
	}
	defer p.unlock() // after the removal, which the lock covers
	err := p.fs.Remove(context.WithoutCancel(p.ctx), p.temp)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("storage: removing %s: %w (%w)", p.temp, err, ErrTempLeft)
	}
	return nil
}

// Leftovers returns the temporary files left beside name by writers of
// it that never finished (see [TempMarker]), sorted.
func Leftovers(ctx context.Context, name string) ([]string, error) {
	dir, base := splitBase(name)
	return globIn(ctx, dir, QuoteMeta("."+base+TempMarker)+"*")
}

// globIn returns the names in folder dir whose last element matches
// pattern (path.Match's syntax), spelled with dir as given, temporaries
// included. The local file system's Glob cleans the names it returns
// ("./out" is "out"), and a writer's own temporary, named after its output
// as given, was taken for another writer's: convert --out ./data refused
// to write, "another run is writing ./data", and sluice-serve's listing
// missed temporaries beside such names, so two writers of one file were
// both let through (audit 97). A local folder is listed rather than
// globbed: filepath.Glob walks a folder with a metacharacter element by
// element, and a listing holds no "." or "..", so d[1]/./out found none
// (audit 99).
func globIn(ctx context.Context, dir, pattern string) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("storage: glob %s%s: %w", dir, pattern, err)
	}
	fsys, err := lookup(dir)
	if err != nil {
		return nil, err
	}
	if _, ok := fsys.(Local); !ok {
		names, err := fsys.Glob(ctx, QuoteMeta(dir)+pattern)
		for i, n := range names {
			_, base := splitBase(n)
			names[i] = dir + base
		}
		slices.Sort(names)
		return names, err
	}
	p, _ := localPath(dir)
	if p == "" {
		p = "."
	}
	// A folder that is not there holds no match; one that cannot be
	// read is an error, where filepath.Glob found nothing in it, and two
	// writers of one file in a folder they could write but not list both
	// went through (audit 100).
	ents, err := os.ReadDir(p)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("storage: looking for the temporaries of interrupted writes in %s: %w", p, err)
	}
	var names []string
	for _, e := range ents {
		if ok, err := path.Match(pattern, e.Name()); err != nil {
			return nil, fmt.Errorf("storage: glob %s%s: %w", dir, pattern, err)
		} else if ok {
			names = append(names, dir+e.Name())
		}
	}
	return names, nil
}

// LeftoversBeside returns what [Leftovers] returns for each of names,
// listing each folder once: for the files of a folder of thousands, one
// listing rather than one a file, each of the whole folder.
func LeftoversBeside(ctx context.Context, names []string) (map[string][]string, error) {
	byDir := map[string][]string{}
	for _, n := range names {
		dir, _ := splitBase(n)
		byDir[dir] = append(byDir[dir], n)
	}
	left := map[string][]string{}
	for dir, names := range byDir {
		temps, err := globIn(ctx, dir, ".*"+TempMarker+"*")
		if err != nil {
			return nil, err
		}
		if len(temps) == 0 {
			continue
		}
		for _, n := range names {
			prefix := tempPrefix(n)
			for _, t := range temps {
				if strings.HasPrefix(t, prefix) {
					left[n] = append(left[n], t)
				}
			}
		}
	}
	return left, nil
}

// LeftoversOf returns the temporaries left by writers of the files a
// command writing to stem makes, whatever its shard count or format:
// stem followed by one of exts (".tfrecord", ".parquet"), or by a shard
// number in [ShardNames]' form (-00000-of-00004) and one of exts, sorted.
// Nothing else matches: another output whose name begins with stem
// ("data-val.tfrecord" for "data", or "data.v2.tfrecord") is another
// command's. The temporaries may be those of writes still running; see
// [RemoveLeftover].
func LeftoversOf(ctx context.Context, stem string, exts ...string) ([]string, error) {
	dir, base := splitBase(stem)
	names, err := globIn(ctx, dir, QuoteMeta("."+base)+"*"+TempMarker+"*")
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(names, func(name string) bool {
		_, b := splitBase(name)
		rest, ok := strings.CutPrefix(b[1:strings.LastIndex(b, TempMarker)], base)
		if !ok {
			return true
		}
		if m := shardNumber.FindString(rest); m != "" {
			rest = rest[len(m):]
		}
		return !slices.Contains(exts, rest)
	}), nil
}

// shardNumber matches the shard number of a ShardNames name, as it
// follows the prefix.
var shardNumber = regexp.MustCompile(`^-[0-9]{5,}-of-[0-9]{5,}`)

// RemoveLeftover removes the temporary name (see [IsTemp]) if the write
// that made it is over, and reports whether it did. A local temporary
// its writer locks (see [LockedTag]) is removed only if no process holds
// the lock, and the removal happens under the lock, so a writer cannot
// take it up meanwhile; any other temporary only once it has gone
// unmodified for [AbandonedAfter]. A temporary of a write still running,
// or possibly running, is left, and RemoveLeftover returns false and no
// error; so it does for a name already gone.
func RemoveLeftover(ctx context.Context, name string) (bool, error) {
	if !IsTemp(name) {
		return false, fmt.Errorf("storage: %s is not the temporary of a write", name)
	}
	fsys, err := lookup(name)
	if err != nil {
		return false, err
	}
	rfs, ok := fsys.(RenameFS)
	if !ok {
		return false, fmt.Errorf("storage: remove %s: %w", name, errors.ErrUnsupported)
	}
	if _, ok := fsys.(Local); ok {
		return removeLocalLeftover(name)
	}
	f, err := fsys.Open(ctx, name)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	var mod time.Time
	if m, ok := f.(interface{ ModTime() time.Time }); ok {
		mod = m.ModTime()
	}
	f.Close()
	if mod.IsZero() || time.Since(mod) < AbandonedAfter {
		return false, nil
	}
	if err := rfs.Remove(ctx, name); err != nil {
		return false, err
	}
	return true, nil
}

// testHookLeftoverOpened, if set, is called by RemoveLeftover between
// opening a locked temporary and trying its lock, where a writer may
// finish meanwhile.
var testHookLeftoverOpened func(path string)

func removeLocalLeftover(name string) (bool, error) {
	p, _ := localPath(name)
	st, err := os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("storage: %w", err)
	}
	if canLock && st.Mode().IsRegular() && lockedTemp(p) {
		f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		if err != nil {
			return false, fmt.Errorf("storage: %w", err)
		}
		defer f.Close()
		if testHookLeftoverOpened != nil {
			testHookLeftoverOpened(p)
		}
		held, err := tryLock(f)
		if held {
			return false, nil // its writer is running
		}
		if err == nil {
			// Locked: the file is abandoned if it is still the one
			// under the name.
			if fst, err := f.Stat(); err != nil || !os.SameFile(st, fst) {
				return false, nil
			}
			// The name can be gone all the same: a writer that held the
			// lock when f was opened may have renamed the file to its
			// final name since, and let the lock go.
			if err := os.Remove(p); err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return false, nil
				}
				return false, fmt.Errorf("storage: %w", err)
			}
			return true, nil
		}
		// No locks on this file system: judge by age, as below.
	}
	if time.Since(st.ModTime()) < AbandonedAfter {
		return false, nil
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("storage: %w", err)
	}
	return true, nil
}

// Writing reports whether a process is writing the temporary name (see
// [IsTemp]) now: whether the writer of a local temporary that its writer
// locks (see [LockedTag]) holds the lock. Of any other temporary (an
// object store's, one of a system without locks, one this process cannot
// open) nothing tells, and Writing reports false ([RemoveLeftover] judges
// those by their age); so it does for a name already gone. The answer
// may change at once: a writer may finish, or die, the next moment.
func Writing(ctx context.Context, name string) (bool, error) {
	if !IsTemp(name) {
		return false, fmt.Errorf("storage: %s is not the temporary of a write", name)
	}
	fsys, err := lookup(name)
	if err != nil {
		return false, err
	}
	if _, ok := fsys.(Local); !ok || !canLock {
		return false, nil
	}
	p, _ := localPath(name)
	if !lockedTemp(p) {
		return false, nil
	}
	// Non-blocking: a FIFO under such a name must not make this wait
	// for a writer of its own. One that cannot be opened (another
	// user's, unreadable) tells nothing either.
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return false, nil
	}
	defer f.Close() // and with it the lock, if tryLockShared took it
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return false, nil
	}
	// A shared lock, which a writer's exclusive one refuses: two such
	// questions at once (two verifies, a verify beside a convert) do not
	// take each other for a writer, as two exclusive ones would.
	held, _ := tryLockShared(f)
	return held, nil
}

// lockedTemp reports whether the temporary name is one its writer locks.
func lockedTemp(name string) bool {
	_, base := splitBase(name)
	return strings.HasPrefix(base[strings.LastIndex(base, TempMarker)+len(TempMarker):], LockedTag)
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
