package cli

import (
	"github.com/spf13/cobra"

	"github.com/sluiceml/sluice/internal/distdemo"
)

func init() { demoCmds = append(demoCmds, newDemoDistributedCmd) }

func newDemoDistributedCmd() *cobra.Command {
	cfg := distdemo.DefaultConfig()
	cmd := &cobra.Command{
		Use:   "distributed",
		Short: "Share one filename queue on NATS JetStream among workers reading from S3",
		Long: `demo distributed runs several trainers' input pipelines the way a team runs
them on many hosts, all in this process: it starts an embedded NATS server
with JetStream and an S3-protocol server, writes digit images as GZIP
TFRecord shards of tf.train.Example to a bucket, and for each epoch fills a
shared filename queue (queue/natsqueue) that --workers workers take files
from, reading them over s3:// names (storage/blobfs) and parsing every
Example. A worker acknowledges a file after its last record.

In the first epoch, the first worker to read --kill-after records of a file
is killed there, without acknowledging the file; the file goes to another
worker once --ack-wait has passed. The run fails
unless, in every epoch, the finished files are each file exactly once and
hold every example exactly once.

To use your own cluster and bucket in a program instead, see the packages
queue/natsqueue (natsqueue.Dial with a nats:// URL) and storage/blobfs
(blobfs.RegisterDefault, then s3://, gs:// or azblob:// names anywhere a
file name goes).`,
		Example: "  sluice demo distributed\n" +
			"  sluice demo distributed --workers 5 --shards 40 --ack-wait 1s",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg.Out = cmd.OutOrStdout()
			res, err := distdemo.Run(cmd.Context(), cfg)
			if err != nil {
				return err
			}
			res.Summary(cfg.Out)
			return nil
		},
	}
	f := cmd.Flags()
	f.IntVar(&cfg.Images, "images", cfg.Images, "digit images to write")
	f.IntVar(&cfg.Shards, "shards", cfg.Shards, "TFRecord files in the bucket")
	f.IntVar(&cfg.Workers, "workers", cfg.Workers, "worker pipelines sharing the queue (at least 2)")
	f.IntVar(&cfg.Epochs, "epochs", cfg.Epochs, "epochs, one shared queue each")
	f.IntVar(&cfg.KillAfter, "kill-after", cfg.KillAfter, "in the first epoch, the first worker to read this many records of a file is killed there (-1: no kill)")
	f.DurationVar(&cfg.AckWait, "ack-wait", cfg.AckWait, "how long an unacknowledged file stays with its worker")
	f.Uint64Var(&cfg.Seed, "seed", cfg.Seed, "random seed for data and file order")
	return cmd
}
