package cli

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/sluiceml/sluice/example"
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
	f.BoolVar(&parse, "parse", false, "parse each record as a tf.train.Example into tensors, every feature as a VarLen of the type the first file's first records show")
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
	var spec example.Spec
	if parse {
		if spec, err = benchSpec(ctx, names[0], c); err != nil {
			return err
		}
	}
	p := input.NewPipeline()
	files := p.StringInputProducer(names, input.NumEpochs(epochs), input.Shuffle(false), input.Name("filenames"))
	var bytesRead atomic.Int64
	steps := make([]input.Step, readers)
	for i := range steps {
		r := recordio.NewTFRecordReader(files, c, recordOptions(ctx))
		var parser *example.Parser
		if parse {
			if parser, err = example.NewParser(spec); err != nil {
				return err
			}
			parser.ReuseOutputs()
		}
		steps[i] = func(ctx context.Context) (queue.Element, error) {
			key, rec, err := r.Read(ctx)
			if err != nil {
				return nil, err
			}
			bytesRead.Add(int64(len(rec)))
			if parser != nil {
				if _, err := parser.ParseSingle(rec, key); err != nil {
					return nil, err // names the key
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
	defer p.Stop(ctx)
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
	if err := p.Join(ctx); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err // stopped early: the figures would describe part of the files
	}
	out := cmd.OutOrStdout()
	fmt.Fprintf(out, "%d records, %.1f MB in %.2fs: %.0f records/s, %.1f MB/s (%d readers, %v)\n",
		records, float64(bytesRead.Load())/1e6, elapsed.Seconds(), float64(records)/elapsed.Seconds(),
		float64(bytesRead.Load())/1e6/elapsed.Seconds(), readers, c)
	if parse {
		fmt.Fprintf(out, "parsed into tensors: %s\n", specSummary(spec))
	}
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

// benchRecordsSampled is how many records of the first file bench --parse
// reads to learn the features it parses.
const benchRecordsSampled = 100

// benchSpec returns the spec bench --parse parses with: every feature the
// first records of name hold, as a VarLen of its type, so that any record
// of the same data parses whatever its lengths. Features of mixed type
// are left out (no one spec can parse them).
func benchSpec(ctx context.Context, name string, c tfrecord.Compression) (example.Spec, error) {
	rf, err := newRecordFiles(c.String(), newTally())
	if err != nil {
		return nil, err
	}
	s := newSchema()
	err = eachRecord(ctx, []string{name}, rf, benchRecordsSampled, func(_ string, _ int64, rec []byte) error {
		s.add(rec)
		return nil
	})
	if err != nil {
		return nil, err
	}
	spec := example.Spec{}
	for _, st := range sorted(s.features) {
		var dt tensor.DType
		switch st.kind() {
		case "bytes", "":
			dt = tensor.String
		case "float":
			dt = tensor.Float32
		case "int64":
			dt = tensor.Int64
		default:
			continue
		}
		spec[st.name] = example.VarLen(dt)
	}
	if len(spec) == 0 {
		return nil, fmt.Errorf("%s: --parse: the first records hold no tf.train.Example features", name)
	}
	return spec, nil
}

// specSummary lists the features of spec and their types, in name order.
func specSummary(spec example.Spec) string {
	names := make([]string, 0, len(spec))
	for n := range spec {
		names = append(names, n)
	}
	slices.Sort(names)
	for i, n := range names {
		names[i] = n + " " + spec[n].DType().String()
	}
	return strings.Join(names, ", ")
}
