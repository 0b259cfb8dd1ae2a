package cli

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/sluiceml/sluice/dataerr"
	"github.com/sluiceml/sluice/parquet"
	"github.com/sluiceml/sluice/storage"
	"github.com/sluiceml/sluice/tfrecord"
)

// A corruptError is verify's result when something was wrong; its message
// is the summary.
type corruptError struct {
	bad                                 damage
	files, leftovers, unchecked, unread int
}

func (e *corruptError) Error() string {
	var parts []string
	if e.bad.any() || e.leftovers == 0 && e.unchecked == 0 && e.unread == 0 {
		parts = append(parts, fmt.Sprintf("%v in %s", e.bad, plural(e.files, "file")))
	}
	if e.unchecked > 0 {
		parts = append(parts, plural(e.unchecked, "file")+" not checked, not being compressed as --compression says")
	}
	if e.unread > 0 {
		parts = append(parts, plural(e.unread, "file")+" not read through (a read failed; see its error)")
	}
	if e.leftovers > 0 {
		parts = append(parts, plural(e.leftovers, "incomplete file")+" left by interrupted writes")
	}
	return strings.Join(parts, "; ")
}

// A damage counts what was skipped in words that claim no more than is
// known. In an uncompressed file a bad record is one record's frame,
// or the stretch a bad length made the reader scan over. In a compressed
// stream, damage garbles everything after it: the reader may take
// megabytes of garbage, thousands of records' worth, for a "record" or
// two, and the stream's end is lost with its size unknown; so what a
// compressed file lost is counted as damaged stretches and the bytes of
// the uncompressed stream they spanned.
type damage struct {
	records   int   // bad records of uncompressed files
	stretches int   // damaged stretches of compressed streams
	lost      int64 // bytes of the uncompressed streams skipped with them
	ends      int   // compressed streams broken before their end
}

// add counts v's damage.
func (d *damage) add(v *fileVerdict) {
	if !v.compressed {
		d.records += v.Bad
		return
	}
	d.stretches += v.stretches
	d.lost += v.lost
	if v.brokenEnd {
		d.ends++
	}
}

func (d damage) any() bool { return d.records > 0 || d.stretches > 0 }

func (d damage) String() string {
	if d.stretches == 0 {
		return plural(d.records, "bad record")
	}
	var parts []string
	if d.records > 0 {
		parts = append(parts, plural(d.records, "bad record"))
	}
	var lost []string
	if d.lost > 0 {
		lost = append(lost, plural(int(d.lost), "byte")+" of the uncompressed stream lost")
	}
	switch {
	case d.ends == 1:
		lost = append(lost, "all after a broken end")
	case d.ends > 1:
		lost = append(lost, "all after "+plural(d.ends, "broken end"))
	}
	s := plural(d.stretches, "damaged stretch") + " of compressed data (" + strings.Join(lost, ", and ") + ")"
	return strings.Join(append(parts, s), ", ")
}

func plural(n int, what string) string {
	if strings.HasSuffix(what, "ch") && n != 1 {
		return fmt.Sprintf("%d %ses", n, what)
	}
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func newVerifyCmd() *cobra.Command {
	var (
		compression string
		parallel    int
		output      *outputFlag
	)
	cmd := &cobra.Command{
		Use:   "verify FILE...",
		Short: "Check every record's CRCs (TFRecord) or every page (Parquet); report each corrupt record's file and offset",
		Long: `verify reads every record of the given TFRecord files and checks both CRCs of
each. It prints one line per corrupt record with its file and byte offset
(in the uncompressed stream, as in TensorFlow's record keys), goes on with the
next record where the framing allows — after a bad length it scans for the
next valid record header — and ends with a summary line. A truncated file or
a broken compressed stream ends that file's check. In a compressed file,
damage garbles what follows it, and the reader may take megabytes of
garbage for a record or two: there the text output counts damaged
stretches of compressed data and the bytes of the uncompressed stream they
span (a broken end loses all after it), not records. The exit code is non-zero
if anything was wrong. --parallel files are checked at once; the output keeps
the files' order. On a terminal, a progress bar on stderr shows the bytes
read of the files' total; piped or redirected, stderr stays quiet.

A Parquet file (one that starts with PAR1) is checked as convert --from
parquet reads it: its footer, and every page of every column sluice reads,
with its checksum where the writer wrote one (sluice always does), every
value decoded; its rows count as records, and the first error, naming the
row, column and page offset, ends the file's check. Columns sluice does not
read (maps, lists of lists) are named as not checked.

A file a read of fails (a store that stops answering, a permission
refused) is not damage: it is reported as not read through ("unread" in
--json), with the error, counts no bad record, and verify exits non-zero.

A file named .NAME.sluice-tmp-… is the temporary of a write (sluice
convert, or a Go program's recordio.ShardedWriter) that has not finished.
Verify reports each one it is given, finds beside a file it checks, or
would have found under its final name (the last shard of a write that
never appeared). One a running process writes (a local file its writer
holds locked) is reported as being written, and is no failure; but a name
with nothing under it but such a temporary is no file yet, and matches
nothing. Any other
is the leftover of a write killed mid-write, and verify exits non-zero:
remove it, or run the writer again (convert removes those of its own
outputs). Of an object store's temporaries nothing tells whether their
writer runs; all are reported as leftovers.

--json (or --output json) prints one JSON document instead, once every file
is checked; the exit code is the same:

  {"files": [{"name": "a.tfrecord", "records": 3, "bad_records": 1,
              "problems": [{"offset": 49, "end": 98, "records": 1,
                            "error": "corrupt record"}]}, ...],
   "records": 14, "bad_records": 1, "incomplete": [], "writing": [],
   "unchecked": [], "unread": []}

"records" counts good records. A problem is a stretch of skipped records
(offset to end) or the error that ended a file's check (its offset when
known); "incomplete" lists the leftovers of interrupted writes, "writing"
the temporaries of writes still running. An entry of "files" whose name's
bytes are not UTF-8 comes with "name_base64", its bytes in base64.

A file that --compression names the wrong compression of (its first bytes
are another's, or uncompressed TFRecord data's) is not read: it is listed
as not checked ("unchecked" in --json), with what it looks like, and counts
no bad records; the exit code is non-zero.`,
		Example: "  sluice verify 'data/train-*.tfrecord.gz'\n" +
			"  sluice verify --json 'data/*.tfrecord' | jq '.files[] | select(.bad_records > 0) | .name'",
		Args: cobra.MinimumNArgs(1),
		RunE: withTally(func(cmd *cobra.Command, args []string, t *tally) error {
			format, err := output.get()
			if err != nil {
				return err
			}
			if err := atLeast(cmd, 1, "parallel"); err != nil {
				return err
			}
			rf, err := newRecordFiles(compression, t, tfrecord.SkipCorrupt())
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			checked, err := withoutOnlyLeftovers(ctx, args)
			if err != nil {
				return err
			}
			names, err := expand(ctx, checked)
			if err != nil {
				return err
			}
			prog := terminalProgress(ctx, cmd.ErrOrStderr(), "verify", names)
			if prog != nil {
				rf.tee = prog
			}
			w := bufio.NewWriter(cmd.OutOrStdout())
			defer w.Flush()
			given := make(map[string]bool, len(names))
			for _, n := range names {
				given[n] = true
			}
			// Listed once a folder, not once a file: a folder of 5000
			// files took 20 s to list 5000 times (audit 51).
			lefts, err := storage.LeftoversBeside(ctx, slices.DeleteFunc(slices.Clone(names), storage.IsTemp))
			if err != nil {
				if ctx.Err() != nil {
					return err
				}
				// A folder that cannot be listed hides its leftovers, not
				// its files, which verify checks all the same.
				fmt.Fprintf(cmd.ErrOrStderr(), "sluice: not looking for the leftovers of interrupted writes: %v\n", err)
				lefts = nil
			}
			report := verifyReport{Files: []*fileVerdict{}, Incomplete: []string{}, Writing: []string{}, Unchecked: []string{}, Unread: []string{}}
			badFiles := 0
			var bad damage
			err = forEachFile(ctx, names, parallel, func(ctx context.Context, name string) (*fileVerdict, error) {
				if storage.IsTemp(name) {
					writing, err := storage.Writing(ctx, name)
					return &fileVerdict{Name: name, NameBase64: nameBase64(name), temp: true, writing: writing}, err
				}
				rf := rf.clone()
				defer rf.close()
				v, err := verifyFile(ctx, rf, name, prog)
				if err != nil {
					return v, err
				}
				for _, l := range lefts[name] {
					if given[l] {
						continue
					}
					writing, err := storage.Writing(ctx, l)
					if err != nil {
						return v, err
					}
					switch {
					case writing:
						v.writes = append(v.writes, l)
					case !gone(ctx, l):
						v.leftovers = append(v.leftovers, l)
					}
				}
				return v, nil
			}, func(name string, v *fileVerdict) error {
				if format == "text" {
					v.writeText(w)
					if err := prog.showLines(w); err != nil {
						return err
					}
				}
				if v.temp {
					if v.writing {
						report.Writing = append(report.Writing, name)
					} else {
						report.Incomplete = append(report.Incomplete, name)
					}
					return nil
				}
				report.Files = append(report.Files, v)
				report.Incomplete = append(report.Incomplete, v.leftovers...)
				report.Writing = append(report.Writing, v.writes...)
				report.Records += v.Records
				report.Bad += v.Bad
				bad.add(v)
				if v.Unchecked {
					report.Unchecked = append(report.Unchecked, name)
				}
				if v.Unread {
					report.Unread = append(report.Unread, name)
				}
				if v.Bad > 0 {
					badFiles++
				}
				return nil
			})
			prog.finish()
			if err != nil {
				return err
			}
			// Leftovers of outputs that never appeared at all (a killed
			// writer's last shard) sit beside no file that was checked.
			others, writes, err := unreportedLeftovers(ctx, args, given, report.Incomplete, report.Writing)
			if err != nil {
				return err
			}
			if format == "text" {
				for _, l := range others {
					fmt.Fprintf(w, "%s: %s\n", l, leftoverNote)
				}
				for _, l := range writes {
					fmt.Fprintf(w, "%s: %s\n", l, writingNote)
				}
			}
			report.Incomplete = append(report.Incomplete, others...)
			report.Writing = append(report.Writing, writes...)
			leftovers := len(report.Incomplete)
			if format == "json" {
				if err := writeJSON(w, report); err != nil {
					return err
				}
			} else {
				fmt.Fprintf(w, "%s in %s: %s", plural(int(report.Records), "good record"), plural(len(report.Files), "file"), bad)
				if n := len(report.Unchecked); n > 0 {
					fmt.Fprintf(w, ", %s not checked", plural(n, "file"))
				}
				if n := len(report.Unread); n > 0 {
					fmt.Fprintf(w, ", %s not read through", plural(n, "file"))
				}
				if leftovers > 0 {
					fmt.Fprintf(w, ", %s left by interrupted writes", plural(leftovers, "incomplete file"))
				}
				if n := len(report.Writing); n > 0 {
					fmt.Fprintf(w, ", %s being written", plural(n, "file"))
				}
				fmt.Fprintln(w)
			}
			if report.Bad > 0 || leftovers > 0 || len(report.Unchecked) > 0 || len(report.Unread) > 0 {
				return &corruptError{bad, badFiles, leftovers, len(report.Unchecked), len(report.Unread)}
			}
			return nil
		}),
	}
	cmd.Flags().StringVar(&compression, "compression", "auto", compressionUsage)
	cmd.Flags().IntVar(&parallel, "parallel", defaultParallel, "files checked at once")
	output = addOutputFlag(cmd, "text", "json")
	return cmd
}

// unreportedLeftovers returns the temporaries of files the patterns
// match that are neither given nor reported: the leftovers of
// interrupted writes, and apart those of writes still running.
func unreportedLeftovers(ctx context.Context, patterns []string, given map[string]bool, reported ...[]string) (left, writes []string, err error) {
	seen := make(map[string]bool)
	for _, r := range reported {
		for _, name := range r {
			seen[name] = true
		}
	}
	for _, p := range patterns {
		if isStdin(p) {
			continue
		}
		if storage.HasMeta(p) && storage.Exists(ctx, p) {
			// Taken as the file it names (expand): its leftovers, not
			// those of the files it would match as a pattern.
			p = storage.QuoteMeta(p)
		}
		temps, err := storage.LeftoversMatching(ctx, p)
		if err != nil {
			if ctx.Err() != nil {
				return nil, nil, err
			}
			// A folder that cannot be listed hides its leftovers, which
			// the listing of the files' folders has said.
			continue
		}
		for _, l := range temps {
			if given[l] || seen[l] {
				continue
			}
			seen[l] = true
			writing, err := storage.Writing(ctx, l)
			if err != nil {
				return nil, nil, err
			}
			switch {
			case writing:
				writes = append(writes, l)
			case !gone(ctx, l):
				left = append(left, l)
			}
		}
	}
	return left, writes, nil
}

// gone reports whether the temporary name, listed earlier, is no longer
// there: its write finished (committed or aborted) since, and left
// nothing. Writing says false of it, as of a dead writer's leftover, which
// made verify fail a write that ended while it read (audit 53).
func gone(ctx context.Context, name string) bool {
	if storage.Scheme(name) == "" {
		// Not opened: a named pipe under the name would make the open
		// wait for a writer.
		_, err := os.Lstat(name)
		return errors.Is(err, fs.ErrNotExist)
	}
	f, err := storage.Open(ctx, name)
	if err != nil {
		return errors.Is(err, fs.ErrNotExist)
	}
	f.Close()
	return false
}

// withoutOnlyLeftovers returns patterns less those that name no file but
// match the leftovers of interrupted writes: the files of a first write
// killed before any was under its name. Such a pattern is not an error
// ("matches nothing") to verify, which reports the leftovers it matches
// (unreportedLeftovers); a pattern that matches neither stays, for expand
// to refuse, and so does one that matches only the temporaries of writes
// still running: its files do not exist yet, which a script's `verify
// out && train out` must not take for success.
func withoutOnlyLeftovers(ctx context.Context, patterns []string) ([]string, error) {
	var kept []string
	for _, p := range patterns {
		if isStdin(p) || storage.Exists(ctx, p) {
			kept = append(kept, p)
			continue
		}
		if m, err := storage.Glob(ctx, p); err != nil || len(m) > 0 {
			kept = append(kept, p) // expand reports the error
			continue
		}
		left, err := storage.LeftoversMatching(ctx, p)
		if err != nil {
			return nil, err
		}
		dead := false
		for _, l := range left {
			writing, err := storage.Writing(ctx, l)
			if err != nil {
				return nil, err
			}
			if !writing {
				dead = true
				break
			}
		}
		if !dead {
			kept = append(kept, p)
		}
	}
	return kept, nil
}

// leftoverNote is what verify says of a temporary file (storage.IsTemp)
// no running process writes, as far as it can tell.
const leftoverNote = "incomplete: left by a write that never finished (remove it, or run the writer again)"

// writingNote is what verify says of a temporary file a running process
// writes (storage.Writing): not a failure, and not checked.
const writingNote = "being written: a running process holds it (not checked)"

// A verifyReport is verify's --json output.
type verifyReport struct {
	Files      []*fileVerdict `json:"files"`
	Records    int64          `json:"records"` // good ones, in all the files
	Bad        int            `json:"bad_records"`
	Incomplete []string       `json:"incomplete"` // leftovers of interrupted writes
	Writing    []string       `json:"writing"`    // temporaries of writes still running
	Unchecked  []string       `json:"unchecked"`  // files not compressed as --compression says
	Unread     []string       `json:"unread"`     // files a read failed in: not damage, not checked
}

// A fileVerdict is what verify found in one file.
type fileVerdict struct {
	Name       string          `json:"name"`
	NameBase64 string          `json:"name_base64,omitempty"` // the name's bytes, if not UTF-8
	Records    int64           `json:"records"`               // good ones
	Bad        int             `json:"bad_records"`
	Problems   []verifyProblem `json:"problems"`
	// Hint says what may be wrong with the whole file (another format
	// than TFRecord).
	Hint string `json:"hint,omitempty"`
	// Unchecked is set for a file not compressed as --compression says,
	// which is not read: its one problem says what it looks like.
	Unchecked bool `json:"unchecked,omitempty"`
	// Unread is set for a file a read of failed (a store that stopped
	// answering, a permission refused): not damage in the data, which
	// counts no bad record; its last problem says what failed.
	Unread bool `json:"unread,omitempty"`

	temp      bool     // the file is itself the temporary of a write
	writing   bool     // of a temporary: a running process writes it
	leftovers []string // leftovers beside the file that were not named
	writes    []string // temporaries beside it of writes still running

	// Of a compressed file, what damage cost (see damage).
	compressed bool
	stretches  int
	lost       int64
	brokenEnd  bool
}

// A verifyProblem is one bad stretch of a file: corrupt records skipped,
// or the error that ended the file's check.
type verifyProblem struct {
	// Offset is where the damage starts in the uncompressed stream, if
	// known; End is where reading went on after skipped records.
	Offset  *int64 `json:"offset,omitempty"`
	End     *int64 `json:"end,omitempty"`
	Records int    `json:"records"` // bad records in the stretch
	Error   string `json:"error"`
	line    string // the text output's line
}

// writeText writes v's lines of verify's text output.
func (v *fileVerdict) writeText(w io.Writer) {
	if v.temp {
		note := leftoverNote
		if v.writing {
			note = writingNote
		}
		fmt.Fprintf(w, "%s: %s\n", v.Name, note)
		return
	}
	for _, p := range v.Problems {
		fmt.Fprintln(w, p.line)
	}
	if v.Hint != "" {
		fmt.Fprintf(w, "%s: %s\n", v.Name, v.Hint)
	}
	for _, l := range v.leftovers {
		fmt.Fprintf(w, "%s: %s\n", l, leftoverNote)
	}
	for _, l := range v.writes {
		fmt.Fprintf(w, "%s: %s\n", l, writingNote)
	}
}

// verifyFile checks one file and returns what it found, noting each good
// record on prog. Only a cancelled context is returned as an error:
// anything wrong with the file is reported and counted, and the check
// goes on with the next file.
func verifyFile(ctx context.Context, rf *recordFiles, name string, prog *progress) (*fileVerdict, error) {
	v := &fileVerdict{Name: name, NameBase64: nameBase64(name), Problems: []verifyProblem{}}
	if !isStream(name) && isParquet(ctx, name) {
		return verifyParquet(ctx, name, rf.tally, prog, v)
	}
	if err := rf.open(ctx, name); err != nil {
		if interrupted(ctx, err) {
			// Interrupted while opening (a pipe waiting for its writer):
			// no verdict on the file, and no summary of a run cut short.
			return v, cmp.Or(ctx.Err(), err)
		}
		if errors.Is(err, errWrongCompression) {
			// Not damage, and nothing was read: no bad records.
			v.Unchecked = true
			v.Problems = append(v.Problems, verifyProblem{Error: err.Error(), line: err.Error()})
			return v, nil
		}
		if v.ended(err) {
			rf.tally.failed()
		}
		return v, nil
	}
	err := scanRecords(ctx, rf, v, func([]byte) error {
		prog.record()
		return nil
	})
	switch {
	case err == nil:
		return v, nil
	case interrupted(ctx, err):
		return v, cmp.Or(ctx.Err(), err)
	default:
		v.ended(err)
		return v, nil
	}
}

// isParquet reports whether the file name starts as Parquet files do.
func isParquet(ctx context.Context, name string) bool {
	f, err := storage.Open(ctx, name)
	if err != nil {
		return false // rf.open reports it
	}
	defer f.Close()
	var magic [4]byte
	n, _ := f.ReadAt(magic[:], 0)
	return n == 4 && string(magic[:]) == "PAR1"
}

// verifyParquet checks a Parquet file as convert --from parquet reads it:
// its footer, and every page of every column it can read, checksums
// included where the writer wrote them, every value decoded. Rows count
// as records; the first error ends the file's check. Columns this reader
// does not read (maps, lists of lists) are left out, with a hint.
func verifyParquet(ctx context.Context, name string, t *tally, prog *progress, v *fileVerdict) (*fileVerdict, error) {
	f, err := storage.Open(ctx, name)
	if err != nil {
		v.failed(err)
		t.failed()
		return v, nil
	}
	defer f.Close()
	pf, err := parquet.Open(progressReaderAt{f, prog}, f.Size(), name, parquet.MaxPageSize(int(min(settingsFrom(ctx).maxRecord, math.MaxInt32))))
	if err != nil {
		v.failed(err)
		t.failed()
		return v, nil
	}
	var cols, left, names []string
	for _, c := range pf.Columns() {
		if c.Err != nil {
			left = append(left, c.Name)
		} else {
			cols = append(cols, c.Name)
		}
		if !utf8.ValidString(c.Name) {
			names = append(names, fmt.Sprintf("%q", c.Name))
		}
	}
	var hints []string
	if len(left) > 0 {
		hints = append(hints, fmt.Sprintf("not checked: columns %s, which sluice does not read", strings.Join(left, ", ")))
	}
	if len(names) > 0 {
		// Sound as Parquet; convert refuses the file all the same
		// (audit 58).
		hints = append(hints, fmt.Sprintf("convert --from parquet refuses the file: column %s %s", strings.Join(names, ", "), notUTF8Name))
	}
	v.Hint = strings.Join(hints, "; ")
	if len(cols) == 0 {
		return v, nil
	}
	rows, err := pf.Rows(cols)
	if err == nil {
		for rows.Next() {
			if v.Records%1024 == 0 && ctx.Err() != nil {
				return v, ctx.Err()
			}
			v.Records++
			t.read(0)
			prog.record()
		}
		err = rows.Err()
	}
	if err != nil {
		v.failed(err)
		t.failed()
	}
	return v, nil
}

// failed notes err, which ended the reading of v's file, as its last
// problem.
// ended notes err, which ended the reading of v's file, and reports
// whether it was damage in the data, which counts a bad record (failed). A
// read that failed (a store that stopped answering, a permission refused)
// is not: the file is marked unread, with the error (audit 47: a store
// answering 500 for good made an intact file "1 bad record").
func (v *fileVerdict) ended(err error) bool {
	if errors.Is(err, tfrecord.ErrDataLoss) || errors.Is(err, tfrecord.ErrTooLarge) {
		v.failed(err)
		return true
	}
	v.Unread = true
	v.Problems = append(v.Problems, verifyProblem{Error: err.Error(), line: err.Error()})
	return false
}

func (v *fileVerdict) failed(err error) {
	p := verifyProblem{Records: 1, Error: err.Error(), line: err.Error()}
	if de, ok := errors.AsType[*dataerr.Error](err); ok && de.Offset >= 0 {
		p.Offset = &de.Offset
	}
	v.Problems = append(v.Problems, p)
	v.lostEnd()
}

// lostEnd counts the damage that ended the reading of v's file.
func (v *fileVerdict) lostEnd() {
	v.Bad++
	if v.compressed {
		v.stretches++
		v.brokenEnd = true
	}
}

// scanRecords reads the records of the file rf has open, which must read
// with tfrecord.SkipCorrupt, passes each good one to each, and notes in v
// every stretch of corrupt records the reader skipped. It returns nil at
// the file's end, each's error, or the error that ended the reading (a
// truncated file, a broken compressed stream, a failed read, a cancelled
// ctx), which it leaves to the caller to report.
func scanRecords(ctx context.Context, rf *recordFiles, v *fileVerdict, each func(rec []byte) error) error {
	name := rf.name
	v.compressed = rf.c != tfrecord.None
	for {
		// The reader skips corrupt records and only counts them, so a
		// skip is seen as a jump in the count: the damage starts where
		// the previous record ended.
		start, skipped := rf.r.NextOffset(), rf.r.Stats().Skipped
		rec, err := rf.next(ctx)
		if k := int(rf.r.Stats().Skipped - skipped); k > 0 {
			end := rf.r.NextOffset()
			if err == nil {
				end = rf.r.Offset()
			}
			p := verifyProblem{Offset: &start, End: &end, Records: k}
			switch {
			case v.compressed:
				// Records there are the reader's reading of garbage.
				p.Error = "damaged stretch of compressed data"
				p.line = fmt.Sprintf("%s: damaged stretch of compressed data at offsets %d to %d of the uncompressed stream (%d bytes skipped)", name, start, end, end-start)
				v.stretches++
				v.lost += end - start
			case k == 1:
				p.Error = "corrupt record"
				p.line = fmt.Sprintf("%s: corrupt record at offset %d (%d bytes skipped)", name, start, end-start)
			default:
				p.Error = fmt.Sprintf("%d corrupt records", k)
				p.line = fmt.Sprintf("%s: %d corrupt records at offsets %d to %d", name, k, start, end)
			}
			v.Problems = append(v.Problems, p)
			v.Bad += k
			for range k {
				rf.tally.failed()
			}
		}
		switch {
		case err == nil:
			v.Records++
			if err := each(rec); err != nil {
				return err
			}
		case err == io.EOF:
			if v.Bad > 0 {
				v.Hint = rf.hint
			}
			return nil
		default:
			return err
		}
	}
}
