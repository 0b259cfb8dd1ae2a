package storage

import (
	"context"
	"os"
	"slices"
)

// A WriterRunningError is the error of [RemoveLeftovers] and
// [RefuseWriters] for a temporary that a running process writes (see
// [Writing]): another writer of the same files. A writer must not write
// beside it: the two commits would replace each other's files, each
// reporting success, and the files of a sharded output could come from
// both.
type WriterRunningError struct {
	Temp string // the temporary the running process holds
}

func (e *WriterRunningError) Error() string {
	return "storage: a running process is writing " + e.Temp
}

// RemoveLeftovers clears the way for a writer of files whose earlier
// writes may have left temporaries: temps, as [Leftovers] or
// [LeftoversOf] found them. If a running process writes one of them, it
// removes nothing and returns a [*WriterRunningError]. Otherwise it
// removes each one whose writer is gone ([RemoveLeftover]), since it is
// incomplete by construction and the writer writes its name anew, and
// returns those it removed and those it left because their writer may
// still be running, as far as can be told (an object store's, or one
// without a lock, unmodified for less than [AbandonedAfter]). A name
// already gone is neither.
//
// Two writers that start together may both find nothing and go on: each
// calls [RefuseWriters] too, once its own temporaries exist.
func RemoveLeftovers(ctx context.Context, temps []string) (removed, left []string, err error) {
	if err := RefuseWriters(ctx, temps, nil); err != nil {
		return nil, nil, err
	}
	return removeDead(ctx, temps)
}

// RefuseWriters returns a [*WriterRunningError] for the first of temps,
// other than the writer's own temporaries, that a running process
// writes. Called once the writer's own exist, it closes the gap
// [RemoveLeftovers] leaves: of two writers started together, each then
// finds the other's temporaries, and both refuse rather than both
// succeed.
func RefuseWriters(ctx context.Context, temps, own []string) error {
	for _, t := range temps {
		if slices.Contains(own, t) {
			continue
		}
		writing, err := Writing(ctx, t)
		if err != nil {
			return err
		}
		if writing {
			return &WriterRunningError{Temp: t}
		}
	}
	return nil
}

// RemoveDeadLeftovers removes the temporaries left beside name by
// writers of it that are gone ([Leftovers], [RemoveLeftover]), for a
// writer of name that may write beside a running one (a cache, whose
// writers write the same content) and so neither refuses nor waits: a
// running writer's temporary is kept. It returns those it removed.
func RemoveDeadLeftovers(ctx context.Context, name string) ([]string, error) {
	temps, err := Leftovers(ctx, name)
	if err != nil {
		return nil, err
	}
	removed, _, err := removeDead(ctx, temps)
	return removed, err
}

// RemoveAllDeadLeftovers is [RemoveDeadLeftovers] for each of names,
// listing each folder once ([LeftoversBeside]): for thousands of files in
// a folder, one listing rather than one a file of the whole folder. It
// returns those it removed.
func RemoveAllDeadLeftovers(ctx context.Context, names []string) ([]string, error) {
	byName, err := LeftoversBeside(ctx, names)
	if err != nil {
		return nil, err
	}
	var temps []string
	for _, n := range names {
		temps = append(temps, byName[n]...)
		delete(byName, n) // a name given twice
	}
	removed, _, err := removeDead(ctx, temps)
	return removed, err
}

// removeDead removes each of temps whose writer is gone
// ([RemoveLeftover]) and returns those it removed and those it left
// (their writer may still be running); a name already gone is neither.
func removeDead(ctx context.Context, temps []string) (removed, left []string, err error) {
	for _, t := range temps {
		ok, err := RemoveLeftover(ctx, t)
		if err != nil {
			return removed, left, err
		}
		if ok {
			removed = append(removed, t)
		} else if Exists(ctx, t) {
			left = append(left, t)
		}
	}
	return removed, left, nil
}

// Exists reports whether name is there as it is written: a local name's
// directory entry, looked up, not opened (a named pipe's open would wait
// for a writer, and closing it could cost the writer its reader), so that
// a symbolic link that leads nowhere is there; or another FS's file that
// opens.
func Exists(ctx context.Context, name string) bool {
	fsys, err := lookup(name)
	if err != nil {
		return false
	}
	if _, ok := fsys.(Local); ok {
		p, _ := localPath(name)
		_, err := os.Lstat(p)
		return err == nil
	}
	f, err := fsys.Open(ctx, name)
	if err != nil {
		return false
	}
	f.Close()
	return true
}
