// Command sluice-demo-distributed runs several trainers' input pipelines
// the way a team runs them on many hosts, all in one process: workers
// share one filename queue on NATS JetStream and read their files from an
// object store over s3:// names.
//
//	go run github.com/sluiceml/sluice/cmd/sluice-demo-distributed
//	go run ./cmd/sluice-demo-distributed --workers 5 --shards 40 --ack-wait 1s
//
// It is a command of its own, not a subcommand of sluice, because it
// embeds a NATS server and an S3-protocol server (internal/distdemo): the
// everyday sluice binary should not build or carry test servers. Run it
// with --help for its flags.
package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/sluiceml/sluice/internal/distdemo"
	"github.com/sluiceml/sluice/internal/interrupt"
)

func main() {
	ctx, stop := interrupt.Context(context.Background())
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run runs the command line args (without the program name) and returns
// the exit code: 0 on success, 1 on an error, printed to stderr as one
// line, and 128 plus the signal's number when a signal cancelled ctx.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cmd := newCmd()
	cmd.SetArgs(args)
	cmd.SetOut(stdout)
	cmd.SetErr(stderr)
	err := cmd.ExecuteContext(ctx)
	if in, ok := interrupt.Cause(ctx); ok {
		fmt.Fprintln(stderr, "sluice-demo-distributed: interrupted")
		return in.ExitCode()
	}
	if err != nil {
		fmt.Fprintf(stderr, "sluice-demo-distributed: %v\n", err)
		return 1
	}
	return 0
}

func newCmd() *cobra.Command {
	cfg := distdemo.DefaultConfig()
	cmd := &cobra.Command{
		Use:   "sluice-demo-distributed",
		Short: "Share one filename queue on NATS JetStream among workers reading from S3",
		Long: `sluice-demo-distributed runs several trainers' input pipelines the way a
team runs them on many hosts, all in this process: it starts an embedded
NATS server with JetStream and an S3-protocol server, writes digit images as
GZIP TFRecord shards of tf.train.Example to a bucket, and for each epoch
fills a shared filename queue (queue/natsqueue) that --workers workers take
files from, reading them over s3:// names (storage/blobfs) and parsing every
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
		Example: "  go run ./cmd/sluice-demo-distributed\n" +
			"  go run ./cmd/sluice-demo-distributed --workers 5 --shards 40 --ack-wait 1s",
		Args:          cobra.NoArgs,
		SilenceUsage:  true,
		SilenceErrors: true,
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
