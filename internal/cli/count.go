package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"
)

func newCountCmd() *cobra.Command {
	var (
		compression string
		parallel    int
	)
	cmd := &cobra.Command{
		Use:   "count FILE...",
		Short: "Count the records of TFRecord files",
		Long: `count prints the number of records of each file, then the total when there
is more than one file. It reads and checks every record (both CRCs), so a
corrupt file fails with the file and offset of the bad record; use verify to
list every bad record. --parallel files are read at once; the output keeps
the files' order.`,
		Example: "  sluice count 'data/*.tfrecord.gz'\n  sluice count --compression GZIP data.tfrecord.gz",
		Args:    cobra.MinimumNArgs(1),
		RunE: withTally(func(cmd *cobra.Command, args []string, t *tally) error {
			if err := atLeast(cmd, 1, "parallel"); err != nil {
				return err
			}
			rf, err := newRecordFiles(compression, t)
			if err != nil {
				return err
			}
			names, err := expand(cmd.Context(), args)
			if err != nil {
				return err
			}
			w := bufio.NewWriter(cmd.OutOrStdout())
			defer w.Flush()
			var total int64
			err = forEachFile(cmd.Context(), names, parallel, func(ctx context.Context, name string) (int64, error) {
				rf := rf.clone()
				defer rf.close()
				if err := rf.open(ctx, name); err != nil {
					return 0, err
				}
				var n int64
				for {
					_, err := rf.next(ctx)
					if err == io.EOF {
						return n, nil
					}
					if err != nil {
						return n, err
					}
					n++
				}
			}, func(name string, n int64) error {
				fmt.Fprintf(w, "%d\t%s\n", n, name)
				total += n
				return nil
			})
			if err != nil {
				return err
			}
			if len(names) > 1 {
				fmt.Fprintf(w, "%d\ttotal\n", total)
			}
			return nil
		}),
	}
	cmd.Flags().StringVar(&compression, "compression", "auto", compressionUsage)
	cmd.Flags().IntVar(&parallel, "parallel", defaultParallel, "files read at once")
	return cmd
}
