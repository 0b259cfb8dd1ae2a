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
		output      *outputFlag
	)
	cmd := &cobra.Command{
		Use:   "count FILE...",
		Short: "Count the records of TFRecord files",
		Long: `count prints the number of records of each file, then the total when there
is more than one file. It reads and checks every record (both CRCs), so a
corrupt file fails with the file and offset of the bad record; use verify to
list every bad record. --parallel files are read at once; the output keeps
the files' order. On a terminal, a progress bar on stderr shows the bytes
read of the files' total; piped or redirected, stderr stays quiet.

--json (or --output json) prints one JSON document instead, once every file
is counted:

  {"files": [{"name": "a.tfrecord", "records": 3}, ...], "records": 9}

where "records" at the top is the total. A name whose bytes are not UTF-8
comes with "name_base64", its bytes in base64.`,
		Example: "  sluice count 'data/*.tfrecord.gz'\n" +
			"  sluice count --compression GZIP data.tfrecord.gz\n" +
			"  sluice count --json 'data/*.tfrecord.gz' | jq .records",
		Args: cobra.MinimumNArgs(1),
		RunE: withTally(func(cmd *cobra.Command, args []string, t *tally) error {
			format, err := output.get()
			if err != nil {
				return err
			}
			if err := atLeast(cmd, 1, "parallel"); err != nil {
				return err
			}
			rf, err := newRecordFiles(compression, t)
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			names, err := expand(ctx, args)
			if err != nil {
				return err
			}
			prog := terminalProgress(ctx, cmd.ErrOrStderr(), "count", names)
			if prog != nil {
				rf.tee = prog
			}
			w := bufio.NewWriter(cmd.OutOrStdout())
			defer w.Flush()
			var report countReport
			err = forEachFile(ctx, names, parallel, func(ctx context.Context, name string) (int64, error) {
				rf := rf.clone()
				defer rf.close()
				return countFile(ctx, rf, name, prog)
			}, func(name string, n int64) error {
				report.Files = append(report.Files, fileCount{Name: name, NameBase64: nameBase64(name), Records: n})
				report.Records += n
				if format == "text" {
					fmt.Fprintf(w, "%d\t%s\n", n, name)
					return prog.showLines(w)
				}
				return nil
			})
			prog.finish()
			if err != nil {
				return err
			}
			switch {
			case format == "json":
				return writeJSON(w, report)
			case len(names) > 1:
				fmt.Fprintf(w, "%d\ttotal\n", report.Records)
			}
			return nil
		}),
	}
	cmd.Flags().StringVar(&compression, "compression", "auto", compressionUsage)
	cmd.Flags().IntVar(&parallel, "parallel", defaultParallel, "files read at once")
	output = addOutputFlag(cmd, "text", "json")
	return cmd
}

// A countReport is count's --json output.
type countReport struct {
	Files   []fileCount `json:"files"`
	Records int64       `json:"records"` // in all the files
}

type fileCount struct {
	Name string `json:"name"`
	// NameBase64 is the name's bytes when they are not UTF-8, which
	// "name" holds only with U+FFFD in their place, as schema's feature
	// names.
	NameBase64 string `json:"name_base64,omitempty"`
	Records    int64  `json:"records"`
}

// countFile returns the number of records of the file name, noting each
// on prog.
func countFile(ctx context.Context, rf *recordFiles, name string, prog *progress) (int64, error) {
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
		prog.record()
	}
}
