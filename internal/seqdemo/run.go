package seqdemo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sluiceml/sluice/example"
	"github.com/sluiceml/sluice/input"
	"github.com/sluiceml/sluice/recordio"
	"github.com/sluiceml/sluice/sequence"
	"github.com/sluiceml/sluice/storage"
	"github.com/sluiceml/sluice/tensor"
	"github.com/sluiceml/sluice/tfrecord"
)

// Config sets the size and shape of a run.
type Config struct {
	Dir            string // where the files go; a new temporary folder if empty
	Series         int    // how many series to generate
	MinLen, MaxLen int    // their lengths
	Shards         int    // TFRecord files
	Readers        int    // parallel readers in each pipeline
	NumUnroll      int    // segment length in the state saver
	BatchSize      int    // segments per state saver batch
	Boundaries     []int  // bucket boundaries on the sequence length
	BucketBatch    []int  // batch size of each bucket, len(Boundaries)+1
	Seed           uint64
	Out            io.Writer // progress and summary
	Live           bool      // rewrite one progress line (a terminal)
	Quiet          bool      // no progress: only where the data goes, and the summary

	// OnPipeline, if set, is called with each pipeline before it starts.
	OnPipeline func(name string, p *input.Pipeline)
}

// DefaultConfig is the configuration of `sluice demo sequence`.
func DefaultConfig() Config {
	return Config{Series: 20000, MinLen: 16, MaxLen: 400, Shards: 8, Readers: 2, NumUnroll: 10, BatchSize: 32,
		Boundaries: []int{50, 100, 200}, BucketBatch: []int{64, 32, 16, 8}, Seed: 42, Out: os.Stdout}
}

// A Result is what a run measured and checked.
type Result struct {
	Dir     string
	Removed bool // Dir was a temporary folder, removed when Run returned
	Files   []string

	Series, Steps int

	// The bucketed pipeline.
	BucketBatches   int
	BucketTime      time.Duration
	PaddedSteps     int // steps in the bucketed batches, padding included
	UnbucketedSteps int // the same, had the series been batched in arrival order
	BucketQueues    []input.QueueMetrics

	// The state saver pipeline.
	Segments       int
	SegmentBatches int
	StateTime      time.Duration
	SegmentsPerSec float64
	StateQueues    []input.QueueMetrics

	// The check: series whose carried-state estimate equals the direct
	// one bit for bit, and the estimates' error against the true φ.
	Matched      int
	MeanAbsError float64 // mean |φ̂ - φ|
	MaxAbsError  float64
}

// Run generates the series, writes them, reads them through the bucketed
// and the state saver pipelines, and checks the state saver's carried state
// against the direct estimates. A failed check is an error.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	if cfg.Series <= 0 || cfg.Shards <= 0 || cfg.Readers <= 0 || cfg.NumUnroll <= 0 || cfg.BatchSize <= 0 ||
		cfg.MinLen < 2 || cfg.MaxLen < cfg.MinLen {
		return nil, fmt.Errorf("demo sequence: --series, --shards, --readers, --num-unroll and --batch must be positive, and 2 <= --min-len <= --max-len")
	}
	// Numbers beyond any use size files, channels, series and batches
	// before a series is read: --shards 2147483647 ended the process
	// (audit 115), and --series or --max-len as well (audit 116). The
	// bounds of shards, readers and batches are sluice convert's and
	// bench's.
	for _, b := range []struct {
		flag   string
		v, max int
	}{
		{"--series", cfg.Series, 1_000_000}, {"--max-len", cfg.MaxLen, 1_000_000}, {"--shards", cfg.Shards, 10000},
		{"--readers", cfg.Readers, 1024}, {"--batch", cfg.BatchSize, 1 << 20}, {"--num-unroll", cfg.NumUnroll, 1 << 20},
	} {
		if b.v > b.max {
			return nil, fmt.Errorf("demo sequence: %s must be at most %d, not %d", b.flag, b.max, b.v)
		}
	}
	// Every series is generated before one is written: as many as
	// --series of --max-len steps, which both in bounds can make
	// terabytes (audit 117).
	if err := tensor.CheckMemory(tensor.Float32, tensor.Shape{cfg.Series, cfg.MaxLen}); err != nil {
		return nil, fmt.Errorf("demo sequence: %d series of up to %d steps: %w", cfg.Series, cfg.MaxLen, err)
	}
	if len(cfg.BucketBatch) != len(cfg.Boundaries)+1 {
		return nil, fmt.Errorf("demo sequence: %d bucket batch sizes for %d boundaries, want %d",
			len(cfg.BucketBatch), len(cfg.Boundaries), len(cfg.Boundaries)+1)
	}
	out := cfg.Out
	if out == nil {
		out = io.Discard
	}
	res := &Result{Dir: cfg.Dir}
	var err error
	if res.Dir == "" {
		// Generated files nobody asked to keep go when the demo ends,
		// however it ends.
		if res.Dir, err = os.MkdirTemp("", "sluice-demo-sequence-"); err != nil {
			return nil, err
		}
		defer os.RemoveAll(res.Dir)
		res.Removed = true
	}
	start := time.Now()
	series := Generate(cfg.Series, cfg.MinLen, cfg.MaxLen, cfg.Seed)
	if res.Files, err = Write(ctx, res.Dir, series, cfg.Shards); err != nil {
		return nil, err
	}
	res.Series = len(series)
	for _, s := range series {
		res.Steps += len(s.X)
	}
	fmt.Fprintf(out, "wrote %d AR(1) series (%d steps, lengths %d–%d) as GZIP TFRecord SequenceExamples to %s (%.1fs)\n",
		res.Series, res.Steps, cfg.MinLen, cfg.MaxLen, res.Dir, time.Since(start).Seconds())

	direct, err := runBucketed(ctx, cfg, res, out)
	if err != nil {
		return nil, err
	}
	if err := runStateful(ctx, cfg, res, direct, series, out); err != nil {
		return nil, err
	}
	return res, nil
}

// estimate is what the pipelines learned about one series.
type estimate struct {
	phi    float64 // the estimate
	truth  float32 // the true φ, from the record's context
	length int
}

// seriesSpecs are the SequenceExample specs both pipelines parse with.
func seriesSpecs() (context, lists example.Spec) {
	return example.Spec{
			featureID:     example.FixedLen(tensor.Int64),
			featurePhi:    example.FixedLen(tensor.Float32),
			featureLength: example.FixedLen(tensor.Int64),
		}, example.Spec{
			featureX: example.FixedLenSequence(tensor.Float32),
		}
}

// parsedSeries is one parsed record.
type parsedSeries struct {
	key string
	id  int64
	phi float32
	x   tensor.Tensor // [length] float32
}

// seriesSource reads and parses records for the stages of one pipeline:
// a filename queue over the files, cfg.Readers TFRecord readers and as
// many parsers, each used by one caller at a time. A reader that reaches
// end of input is retired; the source ends when all are, so that no
// reader is abandoned with a file half read.
type seriesSource struct {
	slots chan *slot
	live  atomic.Int64
	done  chan struct{} // closed when the last reader is retired
}

type slot struct {
	r *recordio.Reader
	p *example.SequenceParser
}

func newSeriesSource(ctx context.Context, p *input.Pipeline, cfg Config, res *Result) (*seriesSource, error) {
	files, err := input.MatchFilenamesOnce(ctx, filepath.Join(storage.QuoteMeta(res.Dir), fmt.Sprintf("series-*-of-%05d.tfrecord.gz", cfg.Shards)))
	if err != nil {
		return nil, err
	}
	names := p.StringInputProducer(files, input.NumEpochs(1), input.Name("filenames"))
	src := &seriesSource{slots: make(chan *slot, cfg.Readers), done: make(chan struct{})}
	cs, ls := seriesSpecs()
	for i := range cfg.Readers {
		sp, err := example.NewSequenceParser(cs, ls)
		if err != nil {
			return nil, err
		}
		src.slots <- &slot{recordio.NewTFRecordReader(names, tfrecord.Gzip, recordio.Name(fmt.Sprintf("reader%d", i))), sp}
	}
	src.live.Store(int64(cfg.Readers))
	return src, nil
}

// next reads and parses one record; io.EOF at end of input.
func (s *seriesSource) next(ctx context.Context) (parsedSeries, error) {
	var sl *slot
	select {
	case sl = <-s.slots:
	case <-s.done:
		return parsedSeries{}, io.EOF
	case <-ctx.Done():
		return parsedSeries{}, ctx.Err()
	}
	key, rec, err := sl.r.Read(ctx)
	if errors.Is(err, io.EOF) {
		if s.live.Add(-1) == 0 {
			close(s.done)
		}
		return parsedSeries{}, err
	}
	// The record is valid, and the parser free for others, only until
	// the slot goes back; the parsed tensors are new allocations.
	defer func() { s.slots <- sl }()
	if err != nil {
		return parsedSeries{}, err
	}
	c, l, err := sl.p.ParseSingle(rec, key)
	if err != nil {
		return parsedSeries{}, err
	}
	id, _ := c.Dense(featureID)
	phi, _ := c.Dense(featurePhi)
	n, _ := c.Dense(featureLength)
	x, _ := l.Dense(featureX)
	if int64(x.Len()) != n.Int64s()[0] {
		return parsedSeries{}, fmt.Errorf("%s: %d steps, but the context says %d", key, x.Len(), n.Int64s()[0])
	}
	return parsedSeries{key: key, id: id.Int64s()[0], phi: phi.Float32s()[0], x: x}, nil
}

// runStateful runs the state saver pipeline and checks its estimates
// against direct.
func runStateful(ctx context.Context, cfg Config, res *Result, direct map[int64]estimate, series []Series, out io.Writer) error {
	p := input.NewPipeline(input.Seed(cfg.Seed))
	src, err := newSeriesSource(ctx, p, cfg, res)
	if err != nil {
		return err
	}
	step := func(ctx context.Context) (sequence.Input, error) {
		s, err := src.next(ctx)
		if err != nil {
			return sequence.Input{}, err
		}
		return sequence.Input{
			Key:       s.key,
			Length:    s.x.Len(),
			Sequences: map[string]tensor.Tensor{featureX: s.x},
			Context: map[string]tensor.Tensor{
				featureID:  tensor.Scalar(s.id),
				featurePhi: tensor.Scalar(s.phi),
			},
		}, nil
	}
	initial := map[string]tensor.Tensor{
		"sxy": tensor.Scalar(0.0), "sxx": tensor.Scalar(0.0), "prev": tensor.Scalar(0.0), "steps": tensor.Scalar[int64](0),
	}
	saver := sequence.BatchSequencesWithStates(p, step, initial, cfg.NumUnroll, cfg.BatchSize,
		sequence.Threads(cfg.Readers), sequence.Capacity(4*cfg.BatchSize), sequence.Name("state_saver"))
	if cfg.OnPipeline != nil {
		cfg.OnPipeline("sequence", p)
	}
	if err := p.Start(ctx); err != nil {
		return err
	}
	defer p.Stop(ctx)

	totalSegments := 0
	for _, s := range series {
		totalSegments += (len(s.X) + cfg.NumUnroll - 1) / cfg.NumUnroll
	}
	var done atomic.Int64
	stop := startProgress(out, cfg, p, "state saver", "segments", totalSegments, &done)
	defer stop()

	got := map[int64]estimate{}
	start := time.Now()
	for b, err := range saver.All(ctx) {
		if err != nil {
			return err
		}
		if err := stepModel(ctx, b, got); err != nil {
			return err
		}
		res.SegmentBatches++
		res.Segments += b.BatchSize()
		done.Add(int64(b.BatchSize()))
	}
	res.StateTime = time.Since(start)
	stop()
	res.StateQueues = p.Metrics()
	if err := p.Join(ctx); err != nil {
		return err
	}
	res.SegmentsPerSec = float64(res.Segments) / res.StateTime.Seconds()
	return check(res, direct, got, series, totalSegments)
}

// stepModel runs the model on one batch of segments: each row updates its
// series' carried statistics, saved back for the next segment, and a
// series' last segment yields its estimate.
func stepModel(ctx context.Context, b *sequence.Batch, got map[int64]estimate) error {
	n := b.BatchSize()
	sxy, sxx := slices.Clone(b.State("sxy").Float64s()), slices.Clone(b.State("sxx").Float64s())
	prev, steps := slices.Clone(b.State("prev").Float64s()), slices.Clone(b.State("steps").Int64s())
	x := b.Sequences(featureX)
	ids, phis := b.Context(featureID).Int64s(), b.Context(featurePhi).Float32s()
	for i := range n {
		s := stats{sxy: sxy[i], sxx: sxx[i], prev: prev[i], steps: steps[i]}
		if want := int64(b.Sequence()[i]) * int64(x.Shape()[1]); s.steps != want {
			return fmt.Errorf("demo sequence: %s: carried state has seen %d steps, want %d", b.Key()[i], s.steps, want)
		}
		s.update(x.Row(i).Float32s()[:b.Length()[i]])
		sxy[i], sxx[i], prev[i], steps[i] = s.sxy, s.sxx, s.prev, s.steps
		if strings.HasPrefix(b.NextKey()[i], "STOP:") {
			if _, dup := got[ids[i]]; dup {
				return fmt.Errorf("demo sequence: series %d finished twice", ids[i])
			}
			got[ids[i]] = estimate{phi: s.phi(), truth: phis[i], length: int(s.steps)}
		}
	}
	for name, v := range map[string]tensor.Tensor{
		"sxy": tensor.New(sxy), "sxx": tensor.New(sxx), "prev": tensor.New(prev), "steps": tensor.New(steps),
	} {
		if err := b.SaveState(ctx, name, v); err != nil {
			return err
		}
	}
	return nil
}

// check compares the state saver's estimates with the direct ones and
// with the generated series.
func check(res *Result, direct, got map[int64]estimate, series []Series, totalSegments int) error {
	if res.Segments != totalSegments {
		return fmt.Errorf("demo sequence: %d segments came out of the state saver, want %d", res.Segments, totalSegments)
	}
	if len(got) != len(series) || len(direct) != len(series) {
		return fmt.Errorf("demo sequence: %d series finished in the state saver and %d in the bucketed pipeline, want %d",
			len(got), len(direct), len(series))
	}
	var sum float64
	for _, s := range series {
		g, ok := got[s.ID]
		d, dok := direct[s.ID]
		if !ok || !dok {
			return fmt.Errorf("demo sequence: series %d missing", s.ID)
		}
		if g.length != len(s.X) {
			return fmt.Errorf("demo sequence: series %d: state saw %d steps, want %d", s.ID, g.length, len(s.X))
		}
		if g.phi != d.phi || d.phi != directPhi(s.X) {
			return fmt.Errorf("demo sequence: series %d: carried-state estimate %v, direct %v, from the generated data %v",
				s.ID, g.phi, d.phi, directPhi(s.X))
		}
		res.Matched++
		e := math.Abs(g.phi - float64(s.Phi))
		sum += e
		res.MaxAbsError = max(res.MaxAbsError, e)
	}
	res.MeanAbsError = sum / float64(len(series))
	return nil
}

// startProgress reports a pipeline's progress until the returned func is
// called (it may be called more than once).
func startProgress(out io.Writer, cfg Config, p *input.Pipeline, what, unit string, total int, done *atomic.Int64) func() {
	if cfg.Quiet {
		return func() {}
	}
	quit := make(chan struct{})
	finished := make(chan struct{})
	tick := 500 * time.Millisecond
	if cfg.Live {
		tick = 200 * time.Millisecond
	}
	go func() {
		defer close(finished)
		start := time.Now()
		t := time.NewTicker(tick)
		defer t.Stop()
		for {
			select {
			case <-quit:
				if cfg.Live {
					fmt.Fprintln(out)
				}
				return
			case <-t.C:
			}
			n := done.Load()
			var fill []string
			for _, m := range p.Metrics() {
				fill = append(fill, fmt.Sprintf("%s %3.0f%%", m.Name, 100*float64(m.Size)/float64(max(m.Capacity, 1))))
			}
			line := fmt.Sprintf("%s %7d/%d %s  %8.0f/s  queues: %s", what, n, total, unit,
				float64(n)/time.Since(start).Seconds(), strings.Join(fill, ", "))
			if cfg.Live {
				fmt.Fprintf(out, "\r\x1b[K%s", line)
			} else {
				fmt.Fprintln(out, line)
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() { close(quit) })
		<-finished
	}
}

// Summary writes the run's results for a person.
func (r *Result) Summary(w io.Writer) {
	fmt.Fprintf(w, "\ncarried state     %d of %d series: the state saver's estimate equals the whole-sequence one bit for bit\n",
		r.Matched, r.Series)
	fmt.Fprintf(w, "estimates         mean |φ̂ - φ| %.4f, max %.4f (least squares over each series)\n", r.MeanAbsError, r.MaxAbsError)
	fmt.Fprintf(w, "state saver       %d segments in %d batches in %.2fs: %.0f segments/s\n",
		r.Segments, r.SegmentBatches, r.StateTime.Seconds(), r.SegmentsPerSec)
	fmt.Fprintf(w, "bucketing         %d batches in %.2fs; padded steps %d (%.0f%% real) vs %d (%.0f%% real) batched in arrival order\n",
		r.BucketBatches, r.BucketTime.Seconds(), r.PaddedSteps, 100*float64(r.Steps)/float64(max(r.PaddedSteps, 1)),
		r.UnbucketedSteps, 100*float64(r.Steps)/float64(max(r.UnbucketedSteps, 1)))
	for _, q := range []struct {
		what string
		m    []input.QueueMetrics
	}{{"bucketed", r.BucketQueues}, {"state saver", r.StateQueues}} {
		fmt.Fprintf(w, "queues (%s):\n", q.what)
		for _, m := range q.m {
			fmt.Fprintf(w, "  %-32s in %7d  out %7d  producers blocked %6.2fs  consumers blocked %6.2fs\n",
				m.Name, m.Enqueued, m.Dequeued, m.EnqueueBlocked.Seconds(), m.DequeueBlocked.Seconds())
		}
	}
	if r.Removed {
		fmt.Fprintf(w, "files             removed at exit (--dir DIR keeps them)\n")
		return
	}
	fmt.Fprintf(w, "files             %s (series-*.tfrecord.gz)\n", r.Dir)
}
