package cli

import (
	"fmt"

	"github.com/sluiceml/sluice/internal/demo"
	"github.com/spf13/cobra"
)

// demoCmds builds the subcommands of `sluice demo`, one constructor each.
//
// This is the hook for the other demos (`sluice demo sequence`, and the
// pointer to the distributed one): a file demo_<name>.go in this package adds its
// constructor from its own init function,
//
//	func init() { demoCmds = append(demoCmds, newDemoSequenceCmd) }
//
// and `sluice demo` without a subcommand stays the classifier demo. A
// subcommand defines its own flags (the classifier's are local to `sluice
// demo`); --metrics-addr is inherited from the root. Constructors are
// called once per Main, so flag values never leak between runs.
var demoCmds []func() *cobra.Command

func newDemoCmd() *cobra.Command {
	cfg := demo.DefaultConfig()
	var minAccuracy float64
	cmd := &cobra.Command{
		Use:   "demo [--data DIR]",
		Short: "Train and evaluate a digit classifier through two file pipelines",
		Long: `demo runs the whole system on data it generates (no download): it renders
digit images with random distortions, writes them as GZIP TFRecord shards of
tf.train.Example and as CIFAR-style fixed-length records, trains a small
neural network through a file pipeline (filename queue with epochs and
shuffling, parallel TFRecord readers, Example parsing, preprocessing,
shuffle_batch_join), and evaluates it through a second pipeline over the
fixed-length copy.

--data DIR trains and tests on real data instead, recognised from the names
of the files in DIR:
  MNIST IDX        train-images-idx3-ubyte[.gz], train-labels-idx1-ubyte[.gz],
                   t10k-* (or *test*) for the test split; of a file there
                   both unpacked and gzipped, the unpacked one; labels 0-9
                   (EMNIST's emnist-* files: up to 61)
  CIFAR-10 binary  data_batch_*.bin and test_batch.bin (in DIR or in its
                   cifar-10-batches-bin folder)
  TFRecord         *.tfrecord, *.tfrecords, *.tfrec (any compression) of
                   tf.train.Example; names with test, eval or valid are the
                   test split
TFRecord Examples hold the image in --image-feature (default "image", else
"image_raw") as a float list, an int64 list, the raw uint8 pixels or one
encoded PNG, JPEG, GIF or BMP, and the label in --label-feature as one int64
(0-255). Float pixels are scaled from the data's range to 0-255. The data is
written to --dir in the pipelines' formats (GZIP TFRecord shards for
training, fixed-length records for testing), which the pipelines then read. Without
test files, every sixth image is held out for testing; --train and --test
then limit how many images are used (default: all).`,
		Example: "  sluice demo\n" +
			"  sluice demo --train 5000 --epochs 1 --dir /tmp/digits\n" +
			"  sluice demo --data ~/data/mnist --epochs 2\n" +
			"  sluice demo --data ~/data/records --image-feature image_floats --label-feature image_class",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := atLeast(cmd, 1, "readers", "batch", "epochs", "shards", "checkpoint-every"); err != nil {
				return err
			}
			if err := atLeast(cmd, 0, "train", "test", "hidden"); err != nil {
				return err
			}
			if err := atMost(cmd, maxReaders, "readers"); err != nil {
				return err
			}
			if err := atMost(cmd, maxBatch, "batch"); err != nil {
				return err
			}
			if err := atMost(cmd, maxShards, "shards"); err != nil {
				return err
			}
			if cfg.DataDir == "" {
				// Generated, 784 bytes an image: 10 million are 7.8 GB.
				// With --data they only limit what is read.
				if err := atMost(cmd, 10_000_000, "train", "test"); err != nil {
					return err
				}
			}
			if cfg.DataDir != "" {
				// Sizes limit the real data rather than set what to generate.
				if !cmd.Flags().Changed("train") {
					cfg.Train = 0
				}
				if !cmd.Flags().Changed("test") {
					cfg.Test = 0
				}
			} else if cmd.Flags().Changed("image-feature") || cmd.Flags().Changed("label-feature") {
				return fmt.Errorf("--image-feature and --label-feature go with --data")
			}
			cfg.Out = cmd.OutOrStdout()
			cfg.Live = isTerminal(cfg.Out)
			add, stop, err := pipelineMetrics(cmd)
			if err != nil {
				return err
			}
			defer stop()
			cfg.OnPipeline = add
			res, err := demo.Run(cmd.Context(), cfg)
			if err != nil {
				return err
			}
			res.Summary(cfg.Out)
			if res.Accuracy < minAccuracy {
				return fmt.Errorf("test accuracy %.2f%% is below --min-accuracy %.2f%%", 100*res.Accuracy, 100*minAccuracy)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&cfg.DataDir, "data", "", "train and test on the MNIST, CIFAR-10 or TFRecord data in this folder instead of generated digits")
	f.StringVar(&cfg.Load.ImageFeature, "image-feature", "", `with --data of TFRecord Examples: the image's feature (default "image", or "image_raw" when there is no "image")`)
	f.StringVar(&cfg.Load.LabelFeature, "label-feature", demo.DefaultLabelFeature, "with --data of TFRecord Examples: the label's feature")
	f.StringVar(&cfg.Dir, "dir", "", "folder for the pipelines' input files (default: a new temporary folder)")
	f.IntVar(&cfg.Train, "train", cfg.Train, "training images to generate; with --data, the most to use, and all of them unless it is given")
	f.IntVar(&cfg.Test, "test", cfg.Test, "test images to generate; with --data, the most to use, and all of them unless it is given")
	f.IntVar(&cfg.Epochs, "epochs", cfg.Epochs, "training epochs (num_epochs of the filename producer)")
	f.IntVar(&cfg.Shards, "shards", cfg.Shards, "files per split")
	f.IntVar(&cfg.Readers, "readers", cfg.Readers, "parallel TFRecord readers")
	f.IntVar(&cfg.BatchSize, "batch", cfg.BatchSize, "batch size")
	f.IntVar(&cfg.Hidden, "hidden", cfg.Hidden, "hidden units of the classifier (0: softmax regression)")
	f.Float32Var(&cfg.LearningRate, "learning-rate", cfg.LearningRate, "SGD step size")
	f.Uint64Var(&cfg.Seed, "seed", cfg.Seed, "random seed for data, shuffling and weights")
	f.BoolVar(&cfg.Quiet, "quiet", false, "print no progress: only what the data is, where it is written, and the summary")
	f.Float64Var(&minAccuracy, "min-accuracy", 0, "fail if the test accuracy is below this fraction")
	f.StringVar(&cfg.CheckpointDir, "checkpoint-dir", "", "train through a deterministic pipeline, saving the model and the pipeline in this folder (and the data in its data/ unless --dir); started again with the same flags after being killed, the demo resumes and checks that its final weights equal an uninterrupted run's, bit for bit")
	f.IntVar(&cfg.CheckpointEvery, "checkpoint-every", 20, "with --checkpoint-dir: steps between checkpoints")
	f.BoolVar(&cfg.Deterministic, "deterministic", false, "train through a deterministic pipeline: with the same --seed, every run delivers the same batches and ends with the same weights, bit for bit")
	for _, c := range demoCmds {
		cmd.AddCommand(c())
	}
	return cmd
}
