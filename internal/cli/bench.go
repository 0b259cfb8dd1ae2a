package cli

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/sluiceml/sluice/input"
	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/recordio"
	"github.com/sluiceml/sluice/storage"
	"github.com/sluiceml/sluice/tensor"
	"github.com/sluiceml/sluice/tfrecord"
	"github.com/spf13/cobra"
)

func newBenchCmd() *cobra.Command {
	var readers, batch, epochs int
	var parse bool
	var comp string
	cmd := &cobra.Command{
		Use:   "bench FILE...",
		Short: "Read TFRecord files through a real pipeline and report throughput and queue fullness",
		Long: `bench reads the files through the pipeline a training job would use — a
filename queue, parallel TFRecord readers, optionally Example parsing, and
batching — and reports records/s, MB/s and how full each queue was. A
batch queue that stays near empty means the readers are the bottleneck; one
that stays full means the consumer is.`,
		Example: "  sluice bench 'data/train-*.tfrecord.gz' --readers 4 --parse",
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := atLeast(cmd, 1, "readers", "batch", "epochs"); err != nil {
				return err
			}
			return bench(cmd, args, readers, batch, epochs, parse, compressionFlag(comp))
		},
	}
	f := cmd.Flags()
	f.IntVar(&readers, "readers", 2, "parallel readers sharing the filename queue")
	f.IntVar(&batch, "batch", 128, "batch size")
	f.IntVar(&epochs, "epochs", 1, "passes over the files")
	f.BoolVar(&parse, "parse", false, "parse each record as a tf.train.Example (all features, checked only)")
	f.StringVar(&comp, "compression", "auto", "auto, NONE, ZLIB, GZIP or ZSTD")
	return cmd
}

func bench(cmd *cobra.Command, patterns []string, readers, batchSize, epochs int, parse bool, comp compressionFlag) error {
	ctx := cmd.Context()
	names, err := expand(ctx, patterns)
	if err != nil {
		return err
	}
	c := tfrecord.None
	if comp == "" || comp == "auto" {
		f, err := storage.Open(ctx, names[0])
		if err != nil {
			return err
		}
		prefix := make([]byte, 16)
		n, _ := f.ReadAt(prefix, 0)
		f.Close()
		c = tfrecord.DetectCompression(prefix[:n])
	} else if c, err = tfrecord.ParseCompression(string(comp)); err != nil {
		return err
	}
	p := input.NewPipeline()
	files := p.StringInputProducer(names, input.NumEpochs(epochs), input.Shuffle(false), input.Name("filenames"))
	var bytesRead atomic.Int64
	steps := make([]input.Step, readers)
	for i := range steps {
		r := recordio.NewTFRecordReader(files, c, recordOptions(ctx))
		steps[i] = func(ctx context.Context) (queue.Element, error) {
			key, rec, err := r.Read(ctx)
			if err != nil {
				return nil, err
			}
			bytesRead.Add(int64(len(rec)))
			if parse {
				if _, err := recordJSON(rec, "example"); err != nil {
					return nil, fmt.Errorf("%s: %w", key, err)
				}
			}
			return queue.Element{tensor.Scalar(int64(len(rec)))}, nil
		}
	}
	batches := p.BatchJoin(steps, batchSize, input.AllowSmallerFinalBatch(), input.Name("batch"))
	add, stop, err := pipelineMetrics(cmd)
	if err != nil {
		return err
	}
	defer stop()
	add("bench", p)
	if err := p.Start(ctx); err != nil {
		return err
	}
	defer p.Stop()
	start := time.Now()
	var records int64
	fill := map[string]float64{}
	samples := 0
	next := time.Now()
	for b, err := range batches.All(ctx) {
		if err != nil {
			return err
		}
		records += int64(b.Len())
		if time.Now().After(next) {
			for _, m := range p.Metrics() {
				fill[m.Name] += float64(m.Size) / float64(m.Capacity)
			}
			samples++
			next = time.Now().Add(10 * time.Millisecond)
		}
	}
	elapsed := time.Since(start)
	if err := p.Join(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err // stopped early: the figures would describe part of the files
	}
	out := cmd.OutOrStdout()
	fmt.Fprintf(out, "%d records, %.1f MB in %.2fs: %.0f records/s, %.1f MB/s (%d readers, %v)\n",
		records, float64(bytesRead.Load())/1e6, elapsed.Seconds(), float64(records)/elapsed.Seconds(),
		float64(bytesRead.Load())/1e6/elapsed.Seconds(), readers, c)
	var parts []string
	for _, m := range p.Metrics() {
		if samples > 0 {
			parts = append(parts, fmt.Sprintf("%s %.0f%%", m.Name, 100*fill[m.Name]/float64(samples)))
		}
	}
	if len(parts) > 0 {
		fmt.Fprintf(out, "mean queue fullness: %s\n", strings.Join(parts, ", "))
	}
	return nil
}
