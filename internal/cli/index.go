package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"

	"github.com/sluiceml/sluice/index"
	"github.com/sluiceml/sluice/storage"
	"github.com/sluiceml/sluice/tfrecord"
	"github.com/spf13/cobra"
)

func init() { rootCmds = append(rootCmds, newIndexCmd) }

func newIndexCmd() *cobra.Command {
	var (
		beside   bool
		parallel int
	)
	cmd := &cobra.Command{
		Use:   "index FILE...",
		Short: "Build the record-offset indexes that a global shuffle reads TFRecord files through",
		Long: `index reads each uncompressed TFRecord file once, checking every record's
CRCs, and stores the offset of every record: in sluice's cache folder
(SLUICE_INDEX_DIR, or sluice/index in the user's cache folder), or with
--beside next to the file as FILE.idx. A Go program reading the files with
sluice.GlobalShuffle() then goes straight to any record; it would build a
missing index itself, on its first run. An index records the file's size and
modification time, and an object's ETag or generation, and is rebuilt when
any of them changes. index prints each
file's record count and where its index is, or "index current". A file whose
index is current is not read again; with --beside, that means a current
FILE.idx: a stale or damaged one is rebuilt (or the current index in the
cache written there), and its path printed. Whatever stands as FILE.idx that
cannot be an index (a named pipe, a device, a file larger than an index of
FILE can be) is not read, and is replaced with --beside. A record longer than --max-record-size is an error, as in the
commands that read records; standard input and other streams cannot be
indexed, since an index is read back later, at offsets into the same file.
A file that cannot be indexed does not stop the others: its error goes to
standard error as its turn comes, the other files are indexed and printed,
and index exits 1 naming how many failed.`,
		Example: "  sluice index 'data/train-*.tfrecord'\n  sluice index --beside data/train-00000-of-00008.tfrecord",
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := atLeast(cmd, 1, "parallel"); err != nil {
				return err
			}
			names, err := expand(cmd.Context(), args)
			if err != nil {
				return err
			}
			for _, name := range names {
				if isStdin(name) {
					return fmt.Errorf("%s: index reads files at offsets, not standard input: an index holds where each record of a file is, to be read there later", name)
				}
			}
			maxRecord := index.MaxRecordSize(settingsFrom(cmd.Context()).maxRecord)
			w := bufio.NewWriter(cmd.OutOrStdout())
			defer w.Flush()
			// A file's failure is its result, not forEachFile's error,
			// which would cancel the files being indexed beside it and
			// leave those done after it unprinted; a cancelled context
			// still stops them all.
			type indexed struct {
				records int
				where   string
				err     error
			}
			// What killed saves left beside the indexes goes first, one
			// listing a folder, not one a file (index.LeftoversRemoved);
			// a failure to remove it leaves it for the next run.
			if beside {
				besides := make([]string, len(names))
				for i, name := range names {
					besides[i] = index.Beside(name)
				}
				storage.RemoveAllDeadLeftovers(cmd.Context(), besides)
			}
			var failed []error
			err = forEachFile(cmd.Context(), names, parallel, func(ctx context.Context, name string) (indexed, error) {
				n, where, err := indexOne(ctx, name, beside, maxRecord)
				if err != nil && ctx.Err() == nil {
					return indexed{err: err}, nil
				}
				return indexed{records: n, where: where}, err
			}, func(name string, x indexed) error {
				if x.err != nil {
					failed = append(failed, x.err)
					if len(names) == 1 {
						return nil
					}
					if err := w.Flush(); err != nil {
						return err
					}
					_, err := fmt.Fprintf(cmd.ErrOrStderr(), "sluice: %v\n", withHint(x.err))
					return err
				}
				_, err := fmt.Fprintf(w, "%d\t%s\t%s\n", x.records, name, x.where)
				return err
			})
			switch {
			case err != nil:
				return err
			case len(failed) == 0:
				return nil
			case len(names) == 1:
				return failed[0]
			}
			return fmt.Errorf("index: %d of %s not indexed; the errors above say why", len(failed), plural(len(names), "file"))
		},
	}
	cmd.Flags().BoolVar(&beside, "beside", false, "store each index next to its file, as FILE.idx, instead of in the cache")
	cmd.Flags().IntVar(&parallel, "parallel", defaultParallel, "files indexed at once")
	return cmd
}

// indexOne loads name's index, or builds and saves it, and says where it is.
func indexOne(ctx context.Context, name string, beside bool, maxRecord index.BuildOption) (records int, where string, err error) {
	x, err := index.Load(ctx, name)
	if err == nil && (!beside || x.Stored() == index.Beside(name)) {
		// What killed saves of it left beside it goes, as a save's would
		// (index.Index.Save; the cache's go in its daily trim), if not
		// gone already; a failure to remove it leaves it for the next run.
		if x.Stored() == index.Beside(name) && !beside {
			storage.RemoveDeadLeftovers(ctx, x.Stored())
		}
		return x.Len(), "index current", nil
	}
	// With --beside, a current index in the cache is copied beside the
	// file, not built again; a stale or damaged FILE.idx is replaced.
	if err != nil {
		x, err = index.Build(ctx, name, maxRecord)
	}
	if errors.Is(err, tfrecord.ErrTooLarge) {
		return 0, "", fmt.Errorf("%w; --max-record-size raises the limit", err)
	}
	if err != nil {
		// A compressed file's hint names text inside it, or text whose
		// first bytes only look like a compression's.
		if isDamage(err) || errors.Is(err, index.ErrCompressed) {
			if hint := formatHint(ctx, name); hint != "" {
				err = fmt.Errorf("%w (%s)", err, hint)
			}
		}
		return 0, "", err
	}
	path, err := x.Save(ctx, beside, index.LeftoversRemoved())
	if err != nil {
		return 0, "", err
	}
	return x.Len(), path, nil
}
