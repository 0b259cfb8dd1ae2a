package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sluiceml/sluice/storage"
)

// checkOut refuses an --out that names a folder ("dir/", or a folder that
// exists): convert would write a hidden dir/.tfrecord, or files beside the
// folder rather than in it.
func checkOut(out string) error {
	if out == "" {
		return fmt.Errorf("--out is empty: it is the outputs' path prefix, such as data/train")
	}
	folder := isSeparator(rune(out[len(out)-1]))
	if p, ok := localName(out); ok && !folder {
		fi, err := os.Stat(p)
		folder = err == nil && fi.IsDir()
	}
	if folder {
		return fmt.Errorf("--out %s is a folder: --out is the outputs' path prefix, such as %s (nothing was written)", out, strings.TrimRightFunc(out, isSeparator)+"/data")
	}
	return nil
}

// isSeparator reports whether r separates the elements of a name: a
// slash, in a URL as in a path, or the system's separator.
func isSeparator(r rune) bool { return r == '/' || r == filepath.Separator }

// checkOutputs refuses a conversion that would write over one of its
// inputs, onto a folder, or to a name too long for its temporary name
// (storage.CheckName). Checking comes before anything is created or read,
// so a refused command changes nothing and costs nothing.
func checkOutputs(inputs, outputs []string) error {
	for _, out := range outputs {
		for _, in := range inputs {
			if sameFile(in, out) {
				if in == out {
					return fmt.Errorf("output %s is also an input: choose another --out (nothing was written)", out)
				}
				return fmt.Errorf("output %s is the input %s: choose another --out (nothing was written)", out, in)
			}
		}
		if p, ok := localName(out); ok {
			// Lstat: a link to a folder is replaced, as any link is.
			if fi, err := os.Lstat(p); err == nil && fi.IsDir() {
				return fmt.Errorf("output %s is a folder: choose another --out (nothing was written)", out)
			}
		}
		if err := storage.CheckName(out); err != nil {
			return fmt.Errorf("%w (nothing was written)", err)
		}
	}
	return nil
}

// sameFile reports whether names a and b are the same file: one
// directory entry however named (storage.EntryName: a path, its file://
// URL, a path through a link to its folder), or for local files the same
// file through a link of its own or a hard link.
func sameFile(a, b string) bool {
	if storage.EntryName(a) == storage.EntryName(b) {
		return true
	}
	pa, oka := localName(a)
	pb, okb := localName(b)
	if !oka || !okb {
		return false
	}
	sa, err := os.Stat(pa)
	if err != nil {
		return false
	}
	sb, err := os.Stat(pb)
	return err == nil && os.SameFile(sa, sb)
}

// localName returns name's absolute, cleaned path if it is a local file.
func localName(name string) (string, bool) {
	switch storage.Scheme(name) {
	case "":
	case "file":
		name = name[len("file://"):]
	default:
		return "", false
	}
	p, err := filepath.Abs(name)
	return p, err == nil
}

// outputExts are the endings of every file convert writes, whatever the
// format and compression: the leftovers of an earlier convert to the
// same --out are those of files named with one of them.
var outputExts = []string{".tfrecord", ".tfrecord.gz", ".tfrecord.zlib", ".tfrecord.zz", ".tfrecord.zst",
	".gz", ".zlib", ".zz", ".zst", ".parquet"}

// removeLeftovers removes the temporaries that earlier, killed runs left
// beside the outputs (storage.RemoveLeftovers), saying so on w: they are
// incomplete by construction, and this run writes those names anew. Those
// of an earlier run to the same --out stem with another shard count,
// compression or format go too: no command would ever finish them; those
// of another output whose name merely begins like this one's do not. A
// temporary a running writer holds (another convert to the same --out)
// is an error: the two runs' renames would replace each other's files,
// each run reporting success, and a sharded output could end up with
// shards of both. One whose writer may still be running, as far as can
// be told (an object store's, unmodified for less than
// storage.AbandonedAfter), is left, and w says so. A leftover that is one
// of the inputs (named to salvage its records) is kept.
//
// Two runs started together may both find nothing here and go on: each
// calls refuseOtherWriters too, once its own temporaries exist.
func removeLeftovers(ctx context.Context, inputs []string, stem string, outputs []string, w io.Writer) error {
	all, err := outputTemporaries(ctx, stem, outputs)
	if err != nil {
		return err
	}
	all = slices.DeleteFunc(all, func(l string) bool {
		return slices.ContainsFunc(inputs, func(in string) bool { return sameFile(in, l) })
	})
	removed, left, err := storage.RemoveLeftovers(ctx, all)
	for _, l := range removed {
		fmt.Fprintf(w, "removed %s, left by an interrupted run\n", l)
	}
	for _, l := range left {
		fmt.Fprintf(w, "left %s: another run may still be writing it\n", l)
	}
	return writerError(stem, err)
}

// refuseOtherWriters returns the error of removeLeftovers for a running
// writer of the outputs other than this run, whose temporaries are own.
// Called once they exist, it closes the gap removeLeftovers leaves: of
// two runs started together, each then finds the other's temporaries,
// and both refuse rather than both succeed.
func refuseOtherWriters(ctx context.Context, stem string, outputs, own []string) error {
	all, err := outputTemporaries(ctx, stem, outputs)
	if err != nil {
		return err
	}
	return writerError(stem, storage.RefuseWriters(ctx, all, own))
}

// outputTemporaries returns the temporaries of writes of the outputs, and
// of writes to the same stem with another shard count, compression or
// format, sorted.
func outputTemporaries(ctx context.Context, stem string, outputs []string) ([]string, error) {
	all, err := storage.LeftoversOf(ctx, stem, outputExts...)
	if err != nil {
		return nil, err
	}
	// One listing of each folder, not one an output (audit 96: a
	// listing of the whole folder for each of thousands of shards).
	beside, err := storage.LeftoversBeside(ctx, outputs)
	if err != nil {
		return nil, err
	}
	for _, left := range beside {
		all = append(all, left...)
	}
	slices.Sort(all)
	return slices.Compact(all), nil
}

// writerError says err, when a running process writes a temporary of
// the outputs of stem, as that: another run writing there.
func writerError(stem string, err error) error {
	var running *storage.WriterRunningError
	if errors.As(err, &running) {
		return fmt.Errorf("another run is writing %s (a running process holds %s): let it finish, or stop it, before writing there", strings.TrimPrefix(stem, "file://"), running.Temp)
	}
	return err
}
