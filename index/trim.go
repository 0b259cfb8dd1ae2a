package index

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/sluiceml/sluice/storage"
)

// The cache is trimmed as Go's build cache is: an index not used for
// trimUnused is removed, by a save to the cache or a load from it, at most
// once every trimEvery. Without it the cache would hold an index of every file ever
// shuffled, the files long gone included, for ever.
const (
	trimUnused = 30 * 24 * time.Hour
	trimEvery  = 24 * time.Hour
	// touchEvery is how stale a cached index's time may grow before a
	// load marks it used: a write per load would cost more than it tells.
	touchEvery = time.Hour
)

// trimStamp names the file in the cache whose time is that of the last
// trim.
const trimStamp = "trim.txt"

// used marks the cached index path as used now, for trim.
func used(path string, now time.Time) {
	if st, err := os.Stat(path); err == nil && now.Sub(st.ModTime()) > touchEvery {
		os.Chtimes(path, now, now) // unmarked, it is only built again sooner
	}
}

// trim removes the indexes in the cache folder dir not used for
// trimUnused, and the temporaries of saves that were killed, unless the
// last trim was less than trimEvery ago. It reports nothing: a cache that
// cannot be trimmed still serves.
func trim(ctx context.Context, dir string, now time.Time) {
	stamp := filepath.Join(dir, trimStamp)
	if st, err := os.Stat(stamp); err == nil && now.Sub(st.ModTime()) < trimEvery {
		return
	}
	if err := os.WriteFile(stamp, nil, 0o644); err != nil {
		return
	}
	os.Chtimes(stamp, now, now)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		// Only what the cache holds under its own names: an index, named
		// by a hash, and the temporaries of its saves. A directory that
		// is also a data set's (SLUICE_INDEX_DIR set to it) holds other
		// .idx files: indexes beside their files, a user's (audit 93).
		name := filepath.Join(dir, e.Name())
		switch {
		case !e.Type().IsRegular():
		case storage.IsTemp(name):
			if base, _, ok := strings.Cut(e.Name()[1:], storage.TempMarker); ok && cacheName(dir, base) {
				// A killed save's, not a running one's
				// (storage.RemoveLeftover tells them apart).
				storage.RemoveLeftover(ctx, name)
			}
		case cacheName(dir, e.Name()):
			if info, err := e.Info(); err == nil && now.Sub(info.ModTime()) > trimUnused {
				os.Remove(name)
			}
		}
	}
}

// cacheName reports whether base, in dir, is a name the cache gives an
// index (cached): 32 lowercase hexadecimal digits, then ".idx", and no
// file of that hash beside it, whose index beside it the name would be (a
// data set's files named by their hash: audit 94).
func cacheName(dir, base string) bool {
	h, ok := strings.CutSuffix(base, ".idx")
	if !ok || len(h) != 32 {
		return false
	}
	for _, c := range h {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	_, err := os.Lstat(filepath.Join(dir, h))
	return errors.Is(err, fs.ErrNotExist)
}
