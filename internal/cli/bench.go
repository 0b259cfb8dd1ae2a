package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/sluiceml/sluice/dataerr"
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
that stays full means the consumer is.

Each reader reads --batch records at a time. With --parse it parses them
together into tensors with a compiled parser, as a training job's
pipeline does (tf.io.parse_example after batching), using the spec that
sluice schema infers from the first file's first 100 records (the first
file that is not a pipe, which the run could not read again): FixedLen
where they agree on a feature's number of values, VarLen otherwise. The
output names that spec; a later record it does not fit is an error naming
the record.`,
		Example: "  sluice bench 'data/train-*.tfrecord.gz' --readers 4 --parse",
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := atLeast(cmd, 1, "readers", "batch", "epochs"); err != nil {
				return err
			}
			if err := atMost(cmd, maxReaders, "readers"); err != nil {
				return err
			}
			if err := atMost(cmd, maxBatch, "batch"); err != nil {
				return err
			}
			return bench(cmd, args, readers, batch, epochs, parse, comp)
		},
	}
	f := cmd.Flags()
	f.IntVar(&readers, "readers", 2, "parallel readers sharing the filename queue")
	f.IntVar(&batch, "batch", 128, "batch size")
	f.IntVar(&epochs, "epochs", 1, "passes over the files")
	f.BoolVar(&parse, "parse", false, "parse the records as tf.train.Examples into tensors, a batch at a time, with the spec the first file's first records show (as sluice schema infers it)")
	f.StringVar(&comp, "compression", "auto", compressionUsage)
	return cmd
}

func bench(cmd *cobra.Command, patterns []string, readers, batchSize, epochs int, parse bool, comp string) error {
	ctx := cmd.Context()
	names, err := expand(ctx, patterns)
	if err != nil {
		return err
	}
	for _, n := range names {
		if isStdin(n) {
			return fmt.Errorf("%s: bench reads its files by name, through a filename queue, so not standard input: name a file, or a pipe (<(...))", n)
		}
		if epochs > 1 && isStream(n) {
			// Its second epoch would find it empty, and the figures
			// describe less than was asked (audit 81).
			return fmt.Errorf("%s can be read only once, and --epochs %d reads each file %d times: name a file", n, epochs, epochs)
		}
	}
	c, auto, err := parseCompression(comp, "--compression")
	if err != nil {
		return err
	}
	ropts := []recordio.Option{recordOptions(ctx)}
	if auto {
		// Each file as its first bytes say, as every other command reads.
		ropts = append(ropts, recordio.DetectCompression())
	}
	var spec benchParseSpec
	if parse {
		// The spec comes from a file read before the run: not a stream,
		// which the run could not then read from its start.
		sample := ""
		for _, n := range names {
			if !isStream(n) {
				sample = n
				break
			}
		}
		if sample == "" {
			return fmt.Errorf("--parse learns its spec from a file's first records before the run, and %s can be read only once: name a file as well", names[0])
		}
		if spec, err = benchSpec(ctx, sample, comp); err != nil {
			return err
		}
	}
	p := input.NewPipeline()
	files := p.StringInputProducer(names, input.NumEpochs(epochs), input.Shuffle(false), input.Name("filenames"))
	var bytesRead atomic.Int64
	steps := make([]input.Step, readers)
	for i := range steps {
		r := recordio.NewTFRecordReader(files, c, ropts...)
		var parser *example.Parser
		if parse {
			// Compiled once per reader, and reused batch after batch.
			if parser, err = example.NewParser(spec.spec); err != nil {
				return err
			}
			parser.ReuseOutputs()
		}
		// Each step reads a batch of records (TensorFlow's read_up_to)
		// and parses them together (parse_example after batching), the
		// fast form of a training job's pipeline; the batcher takes the
		// batch as it is (enqueue_many). The parsed tensors are dropped:
		// what is measured is reading and parsing, not a consumer.
		var (
			pending error // the error that ended the last batch, for the next step
			arena   []byte
			recs    [][]byte
			keys    []string
		)
		steps[i] = func(ctx context.Context) (queue.Element, error) {
			if pending != nil {
				return nil, pending
			}
			// The records are copied into one buffer, reused from batch
			// to batch: the parser copies out what it keeps.
			arena, recs, keys = arena[:0], recs[:0], keys[:0]
			ends := make([]int64, 0, min(batchSize, 1<<10)) // also the element: each record's size
			for len(recs) < batchSize {
				key, rec, err := r.Read(ctx)
				if err != nil {
					if !auto {
						err = notCompressedAs(ctx, err, c)
					}
					pending = err
					break
				}
				arena = append(arena, rec...)
				ends = append(ends, int64(len(arena)))
				keys = append(keys, key)
				recs = append(recs, nil)
			}
			if len(recs) == 0 {
				return nil, pending
			}
			var start int64
			for j, end := range ends {
				recs[j] = arena[start:end:end]
				ends[j], start = end-start, end
			}
			bytesRead.Add(start)
			if parser != nil {
				if _, err := parser.Parse(recs, keys); err != nil {
					// err names the record and the feature.
					return nil, fmt.Errorf("%w (--parse's spec is the one the first %d records of %s show: %s)", err, benchRecordsSampled, spec.file, spec)
				}
			}
			return queue.Element{tensor.New(ends, len(ends))}, nil
		}
	}
	batches := p.BatchJoin(steps, batchSize, input.EnqueueMany(), input.AllowSmallerFinalBatch(), input.Name("batch"))
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
	compression := c.String()
	if auto {
		compression = "compression detected per file"
	}
	fmt.Fprintf(out, "%d records, %.1f MB in %.2fs: %.0f records/s, %.1f MB/s (%d readers, %s)\n",
		records, float64(bytesRead.Load())/1e6, elapsed.Seconds(), float64(records)/elapsed.Seconds(),
		float64(bytesRead.Load())/1e6/elapsed.Seconds(), readers, compression)
	if parse {
		fmt.Fprintf(out, "parsed into tensors, %d records at a time: %s\n", batchSize, spec)
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

// A benchParseSpec is the spec bench --parse parses with, and its
// description.
type benchParseSpec struct {
	file  string // the file whose records show it
	spec  example.Spec
	names []string // in order
	specs map[string]featureSpec
}

// String lists the features and their specs in name order.
func (s benchParseSpec) String() string {
	parts := make([]string, len(s.names))
	for i, n := range s.names {
		parts[i] = n + " " + s.specs[n].String()
	}
	return strings.Join(parts, ", ")
}

// benchSpec returns the spec bench --parse parses with: the spec schema
// infers from the first records of name, as a training job's spec would
// be (FixedLen where those records agree on a feature's count of values,
// VarLen otherwise). Features of mixed kind are left out: no one spec
// parses them.
func benchSpec(ctx context.Context, name, comp string) (benchParseSpec, error) {
	bs := benchParseSpec{file: name, spec: example.Spec{}, specs: map[string]featureSpec{}}
	rf, err := newRecordFiles(comp, newTally())
	if err != nil {
		return bs, err
	}
	s := newSchema()
	err = eachRecord(ctx, []string{name}, rf, benchRecordsSampled, func(_ string, _ int64, rec []byte) error {
		return s.add(rec) // no bound: only benchRecordsSampled records
	})
	if err != nil {
		return bs, err
	}
	for _, st := range sorted(s.features) {
		sp := st.spec(s.holders(), false)
		var dt tensor.DType
		switch sp.dtype {
		case "string":
			dt = tensor.String
		case "float32":
			dt = tensor.Float32
		case "int64":
			dt = tensor.Int64
		}
		switch sp.how {
		case "fixed":
			bs.spec[st.name] = example.FixedLen(dt, sp.shape...)
		case "varlen":
			bs.spec[st.name] = example.VarLen(dt)
		default:
			continue
		}
		bs.names = append(bs.names, st.name)
		bs.specs[st.name] = sp
	}
	if len(bs.spec) == 0 {
		return bs, fmt.Errorf("%s: --parse: the first records hold no tf.train.Example features", name)
	}
	return bs, nil
}

// notCompressedAs returns, for err, a failed read of a file --compression
// named c for, the error every other command gives when the file's first
// bytes say it is not c (that of checkCompression); err otherwise. It looks
// only once a read has failed, so a run over many files costs no extra
// opens; a stream, which cannot be read from its start again, keeps err.
func notCompressedAs(ctx context.Context, err error, c tfrecord.Compression) error {
	de, ok := errors.AsType[*dataerr.Error](err)
	if !ok || de.File == "" || isStream(de.File) {
		return err
	}
	f, oerr := storage.Open(ctx, de.File)
	if oerr != nil {
		return err
	}
	defer f.Close()
	prefix := make([]byte, 16)
	n, _ := f.ReadAt(prefix, 0)
	if cerr := checkCompression(de.File, prefix[:n], c, "--compression"); cerr != nil {
		return cerr
	}
	return err
}
