// Command sluice runs TensorFlow-style input pipelines and the everyday
// tools for TFRecord data:
//
//	sluice demo                  train and evaluate through two file pipelines
//	sluice demo sequence         bucketing and the state saver, checked end to end
//	sluice cat FILE...           records as JSON lines (--limit, --keys, --format)
//	sluice head FILE...          the first 10 records (-n N)
//	sluice count FILE...         records per file and in total (--json)
//	sluice schema FILE...        each feature's kind and counts, and the parse spec
//	sluice stats FILE...         each feature's values: range, mean, NaNs, most common
//	sluice verify FILE...        check every CRC (TFRecord) or page (Parquet); name each corrupt record
//	sluice convert IN... --out P CSV, JSON lines, Parquet, MNIST IDX, CIFAR-10 or TFRecord to
//	                             TFRecord, or Examples to Parquet (--to parquet)
//	sluice index FILE...         the record-offset indexes a global shuffle reads through
//	sluice bench FILE...         throughput through a real pipeline (--parse)
//	sluice --version             the release, or the commit it was built from
//
// FILE arguments are names or glob patterns, local or in object storage
// (s3://, gs://, azblob://, mem://); compression is detected from each
// file. Run `sluice COMMAND --help` for a command's flags and
// examples. The command line itself lives in internal/cli, whose Main
// this program calls with its arguments and standard streams.
//
// The distributed demo (workers sharing a JetStream queue over files in
// S3) is a command of its own, cmd/sluice-demo-distributed, so that this
// one neither builds nor carries the NATS and S3 servers it embeds.
package main

import (
	"os"

	"github.com/sluiceml/sluice/internal/cli"
	"github.com/sluiceml/sluice/storage/blobfs"
)

func main() {
	// Every command takes s3://, gs://, azblob:// and mem:// names
	// (credentials from each cloud's usual environment;
	// SLUICE_S3_PARAMS for an S3-compatible server).
	blobfs.RegisterDefault(blobfs.EnvParams())
	// cli.Run turns SIGINT and SIGTERM into a cancelled context, which
	// every command checks, so that files are closed, temporaries removed
	// and servers stopped before it exits 130 or 143.
	os.Exit(cli.Run(os.Args[1:]))
}
