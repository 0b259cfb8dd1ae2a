package cli

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/sluiceml/sluice/storage"
	"github.com/sluiceml/sluice/tfrecord"
	"github.com/spf13/cobra"
)

// A corruptError is verify's result when something was wrong; its message
// is the summary.
type corruptError struct{ bad, files, leftovers int }

func (e *corruptError) Error() string {
	var parts []string
	if e.bad > 0 || e.leftovers == 0 {
		parts = append(parts, fmt.Sprintf("%s in %s", plural(e.bad, "bad record"), plural(e.files, "file")))
	}
	if e.leftovers > 0 {
		parts = append(parts, plural(e.leftovers, "incomplete file")+" left by interrupted writes")
	}
	return strings.Join(parts, "; ")
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func newVerifyCmd() *cobra.Command {
	var (
		compression string
		parallel    int
	)
	cmd := &cobra.Command{
		Use:   "verify FILE...",
		Short: "Check every record's CRCs; report each corrupt record's file and offset",
		Long: `verify reads every record of the given TFRecord files and checks both CRCs of
each. It prints one line per corrupt record with its file and byte offset
(in the uncompressed stream, as in TensorFlow's record keys), goes on with the
next record where the framing allows — after a bad length it scans for the
next valid record header — and ends with a summary line. A truncated file or
a broken compressed stream ends that file's check. The exit code is non-zero
if anything was wrong. --parallel files are checked at once; the output keeps
the files' order.

A file named .NAME.sluice-tmp-… is the leftover of a write that never
finished (sluice convert, or a Go program's recordio.ShardedWriter, killed
mid-write): verify reports each one it is given or finds beside a file it
checks, and exits non-zero. Remove them, or run the writer again (convert
removes those of its own outputs).`,
		Example: "  sluice verify 'data/train-*.tfrecord.gz'",
		Args:    cobra.MinimumNArgs(1),
		RunE: withTally(func(cmd *cobra.Command, args []string, t *tally) error {
			if err := atLeast(cmd, 1, "parallel"); err != nil {
				return err
			}
			rf, err := newRecordFiles(compression, t, tfrecord.SkipCorrupt())
			if err != nil {
				return err
			}
			names, err := expand(cmd.Context(), args)
			if err != nil {
				return err
			}
			w := bufio.NewWriter(cmd.OutOrStdout())
			defer w.Flush()
			var records int64
			bad, badFiles, leftovers := 0, 0, 0
			type verdict struct {
				good      int64
				bad       int
				leftovers int
				report    bytes.Buffer
			}
			given := make(map[string]bool, len(names))
			for _, n := range names {
				given[n] = true
			}
			err = forEachFile(cmd.Context(), names, parallel, func(ctx context.Context, name string) (*verdict, error) {
				v := new(verdict)
				if storage.IsTemp(name) {
					fmt.Fprintf(&v.report, "%s: %s\n", name, leftoverNote)
					v.leftovers++
					return v, nil
				}
				rf := rf.clone()
				defer rf.close()
				var err error
				if v.good, v.bad, err = verifyFile(ctx, rf, name, &v.report); err != nil {
					return v, err
				}
				left, err := storage.Leftovers(ctx, name)
				for _, l := range left {
					if !given[l] {
						fmt.Fprintf(&v.report, "%s: %s\n", l, leftoverNote)
						v.leftovers++
					}
				}
				return v, err
			}, func(name string, v *verdict) error {
				w.Write(v.report.Bytes())
				records += v.good
				bad += v.bad
				leftovers += v.leftovers
				if v.bad > 0 {
					badFiles++
				}
				return nil
			})
			if err != nil {
				return err
			}
			fmt.Fprintf(w, "%s in %s: %s", plural(int(records), "good record"), plural(len(names)-countTemps(names), "file"), plural(bad, "bad record"))
			if leftovers > 0 {
				fmt.Fprintf(w, ", %s left by interrupted writes", plural(leftovers, "incomplete file"))
			}
			fmt.Fprintln(w)
			if bad > 0 || leftovers > 0 {
				return &corruptError{bad, badFiles, leftovers}
			}
			return nil
		}),
	}
	cmd.Flags().StringVar(&compression, "compression", "auto", compressionUsage)
	cmd.Flags().IntVar(&parallel, "parallel", defaultParallel, "files checked at once")
	return cmd
}

// leftoverNote is what verify says of a temporary file (storage.IsTemp).
const leftoverNote = "incomplete: left by a write that never finished (remove it, or run the writer again)"

func countTemps(names []string) int {
	n := 0
	for _, name := range names {
		if storage.IsTemp(name) {
			n++
		}
	}
	return n
}

// verifyFile checks one file, printing a line for each problem, and
// returns its counts of good and bad records. Only a cancelled context is
// returned as an error: anything wrong with the file is reported and
// counted, and the check goes on with the next file.
func verifyFile(ctx context.Context, rf *recordFiles, name string, w io.Writer) (good int64, bad int, err error) {
	if err := rf.open(ctx, name); err != nil {
		fmt.Fprintf(w, "%v\n", err)
		rf.tally.failed()
		return 0, 1, nil
	}
	for {
		// The reader skips corrupt records and only counts them, so a
		// skip is seen as a jump in the count: the damage starts where
		// the previous record ended.
		start, skipped := rf.r.NextOffset(), rf.r.Stats().Skipped
		_, err := rf.next(ctx)
		if k := int(rf.r.Stats().Skipped - skipped); k > 0 {
			end := rf.r.NextOffset()
			if err == nil {
				end = rf.r.Offset()
			}
			if k == 1 {
				fmt.Fprintf(w, "%s: corrupt record at offset %d (%d bytes skipped)\n", name, start, end-start)
			} else {
				fmt.Fprintf(w, "%s: %d corrupt records at offsets %d to %d\n", name, k, start, end)
			}
			bad += k
			for range k {
				rf.tally.failed()
			}
		}
		switch {
		case err == nil:
			good++
		case err == io.EOF:
			if bad > 0 && rf.hint != "" {
				fmt.Fprintf(w, "%s: %s\n", name, rf.hint)
			}
			return good, bad, nil
		case ctx.Err() != nil:
			return good, bad, ctx.Err()
		default:
			fmt.Fprintf(w, "%v\n", err)
			return good, bad + 1, nil
		}
	}
}
