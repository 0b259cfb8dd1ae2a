package sluice

import (
	"fmt"
	"sync"
)

// emptyFiles tells when every file of an endless run (Forever) has been
// read whole without a record: the run would then go round its files for
// ever delivering nothing. Every engine refuses that with ErrInvalid once
// it knows it, as a global shuffle does at its start (it counts the
// records first). A file counts once it has been read from its start to
// its end, so the answer is the files' alone, not the readers' timing.
type emptyFiles struct {
	kind string

	mu    sync.Mutex
	files map[string]bool // true: read whole, without a record
	left  int             // files not known to be empty
}

func newEmptyFiles(kind string, files []string) *emptyFiles {
	e := &emptyFiles{kind: kind, files: make(map[string]bool, len(files))}
	for _, f := range files {
		e.files[f] = false
	}
	e.left = len(e.files)
	return e
}

// done notes that file was read whole, with records of them: an error
// once every file is known to hold none.
func (e *emptyFiles) done(file string, records int64) error {
	if records > 0 {
		return nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if was, ok := e.files[file]; ok && !was {
		e.files[file] = true
		e.left--
	}
	if e.left > 0 {
		return nil
	}
	return e.err()
}

func (e *emptyFiles) err() error {
	return fmt.Errorf("sluice: %s: Forever over %d files that hold no records: %w (the loop would deliver nothing, for ever)", e.kind, len(e.files), ErrInvalid)
}
