package cli

import (
	"github.com/spf13/cobra"

	"github.com/sluiceml/sluice/internal/seqdemo"
)

func init() { demoCmds = append(demoCmds, newDemoSequenceCmd) }

func newDemoSequenceCmd() *cobra.Command {
	cfg := seqdemo.DefaultConfig()
	cmd := &cobra.Command{
		Use:   "sequence",
		Short: "Bucket variable-length sequences and carry a model's state through the state saver",
		Long: `demo sequence runs the contrib side of the input pipeline on data it
generates: AR(1) time series x[t] = φ·x[t-1] + noise, each with its own φ and
length, written as GZIP TFRecord shards of tf.train.SequenceExample. Two file
pipelines read them back. The first batches whole series by length
(bucket_by_sequence_length, dynamic padding) and estimates each φ from its
whole series. The second cuts the series into segments of --num-unroll steps
and batches segments of different series (batch_sequences_with_states); a
tiny stateful model carries its statistics from segment to segment with
SaveState and estimates φ at each series' last segment.

The run fails unless every series comes out of the state saver exactly once,
its segments in order, with an estimate equal bit for bit to the
whole-series one.`,
		Example: "  sluice demo sequence\n" +
			"  sluice demo sequence --series 500 --num-unroll 20 --dir /tmp/series",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg.Out = cmd.OutOrStdout()
			cfg.Live = isTerminal(cfg.Out)
			add, stop, err := pipelineMetrics(cmd)
			if err != nil {
				return err
			}
			defer stop()
			cfg.OnPipeline = add
			res, err := seqdemo.Run(cmd.Context(), cfg)
			if err != nil {
				return err
			}
			res.Summary(cfg.Out)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&cfg.Dir, "dir", "", "folder for the SequenceExample files (default: a new temporary folder)")
	f.IntVar(&cfg.Series, "series", cfg.Series, "series to generate")
	f.IntVar(&cfg.MinLen, "min-len", cfg.MinLen, "shortest series")
	f.IntVar(&cfg.MaxLen, "max-len", cfg.MaxLen, "longest series")
	f.IntVar(&cfg.Shards, "shards", cfg.Shards, "TFRecord files")
	f.IntVar(&cfg.Readers, "readers", cfg.Readers, "parallel readers in each pipeline")
	f.IntVar(&cfg.NumUnroll, "num-unroll", cfg.NumUnroll, "steps per segment in the state saver")
	f.IntVar(&cfg.BatchSize, "batch", cfg.BatchSize, "segments per state saver batch")
	f.IntSliceVar(&cfg.Boundaries, "boundaries", cfg.Boundaries, "bucket boundaries on the series length")
	f.IntSliceVar(&cfg.BucketBatch, "bucket-batch", cfg.BucketBatch, "batch size of each bucket (one more than the boundaries)")
	f.Uint64Var(&cfg.Seed, "seed", cfg.Seed, "random seed for data and shuffling")
	f.BoolVar(&cfg.Quiet, "quiet", false, "print no progress: only what the data is, where it is written, and the summary")
	return cmd
}
