package demo

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/sluiceml/sluice/datasets/cifar10"
	"github.com/sluiceml/sluice/datasets/mnist"
	"github.com/sluiceml/sluice/example"
	"github.com/sluiceml/sluice/input"
	"github.com/sluiceml/sluice/internal/model"
	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/recordio"
	"github.com/sluiceml/sluice/storage"
	"github.com/sluiceml/sluice/tensor"
	"github.com/sluiceml/sluice/tfrecord"
)

// Config sets the size and shape of a demo run.
type Config struct {
	Dir string // where the data files go; a new temporary folder if empty

	// DataDir, if set, holds real data to train and test on instead of
	// generated digits (see Load); Load says how to read it.
	DataDir string
	Load    LoadOptions

	// Train and Test are the numbers of images to generate; with DataDir,
	// the most to use of each split (0: all).
	Train, Test int

	Epochs       int
	Shards       int // files per split
	Readers      int // parallel TFRecord readers in the training pipeline
	BatchSize    int
	Hidden       int     // hidden units of the classifier; 0: softmax regression
	LearningRate float32 // of the classifier's SGD
	Momentum     float32
	Seed         uint64
	Out          io.Writer // progress and summary
	Live         bool      // rewrite one progress line (a terminal) instead of printing lines
	Quiet        bool      // no progress lines: only the data, where it goes, and the summary
	MinAfter     int       // the shuffle queue's min_after_dequeue (at most the training images)
	NoiseLevel   float32   // standard deviation of the noise added in preprocessing

	// OnPipeline, if set, is called with each pipeline before it starts,
	// for example to serve its metrics.
	OnPipeline func(name string, p *input.Pipeline)

	// CheckpointDir, if set, makes the training resumable: it reads
	// through package sluice's deterministic pipeline, saves the model and
	// the pipeline there every CheckpointEvery steps, and a run started
	// again with the same configuration goes on from the last checkpoint.
	// The data goes to CheckpointDir/data unless Dir is set.
	CheckpointDir   string
	CheckpointEvery int
	// Deterministic trains through package sluice's deterministic
	// pipeline without saving checkpoints: a run with a seed reproduces
	// itself bit for bit (CheckpointDir implies it).
	Deterministic bool

	onCheckpoint func(step int) // after each checkpoint saved, for tests
}

// DefaultConfig is the configuration of `sluice demo`.
func DefaultConfig() Config {
	return Config{Train: 20000, Test: 4000, Epochs: 3, Shards: 8, Readers: 4, BatchSize: 128,
		Hidden: 16, LearningRate: 0.01, Momentum: 0.9, Seed: 42, Out: os.Stdout, MinAfter: 2000, NoiseLevel: 0.02}
}

// Result is what a run measured.
type Result struct {
	Dir            string // where the pipelines' input files are
	Removed        bool   // Dir was a temporary folder, removed when Run returned
	Kind           string // what the data is: KindGenerated, KindMNIST, ...
	Source         string // the files read with DataDir
	Layout         cifar10.Layout
	HeldOut        bool // the test images were held out of the training data
	TrainFiles     []string
	TestFiles      []string
	TrainExamples  int // in all, with those before a resume
	TestExamples   int
	Accuracy       float64
	TrainTime      time.Duration        // of this run
	ExamplesPerSec float64              // of this run
	Queues         []input.QueueMetrics // of the training pipeline
	EvalQueues     []input.QueueMetrics // of the evaluation pipeline
	PrepareTime    time.Duration        // generating or reading, and writing, the data
	FinalTrainLoss float32

	// Written is every file the run wrote to Dir. OtherFiles are the files
	// in Dir named as the demo names its files that it did not write: an
	// earlier run's with another --shards or with --data, left alone.
	Written, OtherFiles []string
	// RemovedLeftovers are the temporaries that killed runs had left
	// beside the files, removed before writing.
	RemovedLeftovers []string

	// With Config.CheckpointDir: the SHA-256 of the final weights, the
	// step the run resumed at (0: it did not), and, if it resumed, the
	// digest of an uninterrupted run's weights, which must be the same.
	Digest, UninterruptedDigest string
	ResumedAt                   int
	ResumedExamples             int // trained on before the resume, of TrainExamples
}

// Run prepares the data (generating it, or reading cfg.DataDir), writes it
// in the pipelines' input formats, trains through a file pipeline and
// evaluates through a second one, reporting progress to cfg.Out.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	if cfg.Epochs <= 0 || cfg.Shards <= 0 || cfg.Readers <= 0 || cfg.BatchSize <= 0 {
		return nil, fmt.Errorf("--epochs, --shards, --readers and --batch must be positive")
	}
	out := cfg.Out
	if out == nil {
		out = io.Discard
	}
	start := time.Now()
	var data *Data
	var err error
	if cfg.DataDir != "" {
		fmt.Fprintf(out, "reading %s...\n", cfg.DataDir)
		if data, err = Load(ctx, cfg.DataDir, cfg.Load); err != nil {
			return nil, err
		}
		ib := data.Layout.ImageBytes()
		data.Train, data.Test = data.Train.limit(cfg.Train, ib), data.Test.limit(cfg.Test, ib)
		held := ""
		if data.HeldOut {
			held = " (no test files: every sixth image held out for testing)"
		}
		fmt.Fprintf(out, "%s: %d training and %d test images of %d×%d×%d, %d classes%s\n", data.Kind,
			data.Train.Len(), data.Test.Len(), data.Layout.Height, data.Layout.Width, data.Layout.Depth, data.Layout.Classes, held)
	} else {
		fmt.Fprintf(out, "generating %d training and %d test images of digits (fonts, affine distortions, noise)...\n", cfg.Train, cfg.Test)
		if data, err = Generate(ctx, cfg.Train, cfg.Test, cfg.Seed); err != nil {
			return nil, err
		}
	}

	res := &Result{Dir: cfg.Dir, Kind: data.Kind, Source: data.Source, Layout: data.Layout, HeldOut: data.HeldOut}
	if res.Dir == "" && cfg.CheckpointDir != "" {
		// A resumed run must read the files the first one read.
		res.Dir = filepath.Join(cfg.CheckpointDir, "data")
	}
	if cfg.DataDir != "" && res.Dir != "" && sameDir(cfg.DataDir, res.Dir) {
		// Its shards have the names a converted data set's often have
		// (train-0000k-of-N.tfrecord.gz): they would replace the data.
		return nil, fmt.Errorf("the demo's folder %s is the --data folder, whose files it would write over: choose another (nothing was written)", res.Dir)
	}
	if res.Dir == "" {
		// Generated files nobody asked to keep go when the demo ends,
		// however it ends.
		if res.Dir, err = os.MkdirTemp("", "sluice-demo-"); err != nil {
			return nil, err
		}
		defer os.RemoveAll(res.Dir)
		res.Removed = true
	} else if err := os.MkdirAll(res.Dir, 0o755); err != nil {
		return nil, err
	}
	if err := writeData(ctx, cfg, res, data); err != nil {
		return nil, err
	}
	res.PrepareTime = time.Since(start)
	fmt.Fprintf(out, "wrote GZIP TFRecord shards of tf.train.Example and CIFAR-style fixed-length records to %s (%.1fs)\n",
		res.Dir, res.PrepareTime.Seconds())

	mcfg := model.Config{Inputs: data.Layout.ImageBytes(), Classes: data.Layout.Classes, Hidden: cfg.Hidden,
		LearningRate: cfg.LearningRate, Momentum: cfg.Momentum, Seed: cfg.Seed}
	m, err := model.New(mcfg)
	if err != nil {
		return nil, err
	}
	if cfg.CheckpointDir != "" {
		if err := os.MkdirAll(cfg.CheckpointDir, 0o755); err != nil {
			return nil, err
		}
		if res.ResumedAt, err = trainResumable(ctx, cfg, cfg.CheckpointDir, res, data.Train.Len(), m, out); err != nil {
			return nil, err
		}
		res.Digest = m.Digest()
		if res.ResumedAt > 0 {
			// Check the promise: the same weights as a run that was never
			// interrupted.
			fmt.Fprintf(out, "training again without interruption, to compare the weights...\n")
			ref, _ := model.New(mcfg)
			quiet := cfg
			quiet.Quiet = true
			if _, err := trainResumable(ctx, quiet, "", &Result{Dir: res.Dir, Layout: res.Layout, TrainFiles: res.TrainFiles}, data.Train.Len(), ref, io.Discard); err != nil {
				return nil, err
			}
			res.UninterruptedDigest = ref.Digest()
			if res.UninterruptedDigest != res.Digest {
				return nil, fmt.Errorf("demo: the resumed run's weights (sha256 %s) differ from an uninterrupted run's (%s)", res.Digest, res.UninterruptedDigest)
			}
		}
	} else if cfg.Deterministic {
		if _, err := trainResumable(ctx, cfg, "", res, data.Train.Len(), m, out); err != nil {
			return nil, err
		}
		res.Digest = m.Digest()
	} else if err := train(ctx, cfg, res, data.Train.Len(), m, out); err != nil {
		return nil, err
	}
	if err := evaluate(ctx, cfg, res, data.Test.Len(), m); err != nil {
		return nil, err
	}
	return res, nil
}

// writeData writes the training split as GZIP TFRecord shards for the
// training pipeline and the test split as fixed-length records for the
// evaluation pipeline. Generated data is also written the other way round
// (plain TFRecord test shards, fixed-length training records), so that
// both splits exist in both formats. All of them appear together or not at
// all: a failure or a cancelled ctx before the last file is complete
// leaves dir as it was, but for the temporaries that killed runs had left
// there, which go first (removeLeftovers). A run beside another writing
// the same files refuses.
func writeData(ctx context.Context, cfg Config, res *Result, d *Data) error {
	o := &outputSet{ctx: ctx}
	defer o.abort()
	var err error
	if res.RemovedLeftovers, err = removeLeftovers(ctx, res.Dir); err != nil {
		return err
	}
	if res.TrainFiles, err = writeTFRecordShards(o, res.Dir, "train", cfg.Shards, tfrecord.Gzip, d.Layout, d.Train); err != nil {
		return err
	}
	if res.TestFiles, err = writeFixedLength(o, res.Dir, "test", cfg.Shards, d.Layout, d.Test); err != nil {
		return err
	}
	written := slices.Concat(res.TrainFiles, res.TestFiles)
	if cfg.DataDir == "" {
		names, err := writeTFRecordShards(o, res.Dir, "test", cfg.Shards, tfrecord.None, d.Layout, d.Test)
		if err != nil {
			return err
		}
		written = append(written, names...)
		if names, err = writeFixedLength(o, res.Dir, "train", cfg.Shards, d.Layout, d.Train); err != nil {
			return err
		}
		written = append(written, names...)
	}
	if err := o.refuseOtherWriters(res.Dir); err != nil {
		return err
	}
	if err := o.commit(); err != nil {
		return err
	}
	res.Written = written
	if !res.Removed {
		res.OtherFiles = otherFiles(res.Dir, written)
	}
	return nil
}

// train runs the seed guide's input_pipeline: MatchFilenamesOnce →
// StringInputProducer(num_epochs, shuffle) → several TFRecord readers →
// parse_single_example → decode and preprocess → shuffle_batch_join.
func train(ctx context.Context, cfg Config, res *Result, nTrain int, m *model.Model, out io.Writer) error {
	p := input.NewPipeline(input.Seed(cfg.Seed))
	// The pattern names this run's shard count, so that a reused --dir
	// holding another run's shards does not mix them in.
	pattern := fmt.Sprintf("train-*-of-%05d.tfrecord.gz", len(res.TrainFiles))
	files, err := input.MatchFilenamesOnce(ctx, filepath.Join(storage.QuoteMeta(res.Dir), pattern))
	if err != nil {
		return err
	}
	names := p.StringInputProducer(files, input.NumEpochs(cfg.Epochs), input.Name("filenames"))
	spec := example.Spec{
		mnist.FeatureImageRaw: example.FixedLen(tensor.String),
		mnist.FeatureLabel:    example.FixedLen(tensor.Int64),
	}
	imageBytes := res.Layout.ImageBytes()
	steps := make([]input.Step, cfg.Readers)
	for i := range steps {
		r := recordio.NewTFRecordReader(names, tfrecord.Gzip, recordio.Name(fmt.Sprintf("reader%d", i)))
		parser, err := example.NewParser(spec)
		if err != nil {
			return err
		}
		rng := rand.New(rand.NewPCG(cfg.Seed, uint64(i)))
		steps[i] = func(ctx context.Context) (queue.Element, error) {
			key, rec, err := r.Read(ctx)
			if err != nil {
				return nil, err
			}
			parsed, err := parser.ParseSingle(rec, key)
			if err != nil {
				return nil, err
			}
			raw, _ := parsed.Dense(mnist.FeatureImageRaw)
			label, _ := parsed.Dense(mnist.FeatureLabel)
			img, err := preprocess(raw.Strings()[0], imageBytes, key, rng, cfg.NoiseLevel)
			if err != nil {
				return nil, err
			}
			return queue.Element{img, label}, nil
		}
	}
	minAfter := max(0, min(cfg.MinAfter, nTrain))
	batches := p.ShuffleBatchJoin(steps, cfg.BatchSize,
		input.Capacity(minAfter+3*cfg.BatchSize), input.MinAfterDequeue(minAfter),
		input.Names("image", "label"), input.Name("shuffle_batch"))
	if cfg.OnPipeline != nil {
		cfg.OnPipeline("train", p)
	}

	if err := p.Start(ctx); err != nil {
		return err
	}
	defer p.Stop(ctx)
	total := nTrain * cfg.Epochs
	var seen atomic.Int64
	var lastLoss atomic.Value
	lastLoss.Store(float32(0))
	stopProgress := startProgress(out, cfg, p, total, &seen, &lastLoss)
	start := time.Now()
	for b, err := range batches.All(ctx) {
		if err != nil {
			stopProgress()
			return err
		}
		loss := m.Train(b.Float32("image"), b.Int64("label"))
		lastLoss.Store(loss)
		seen.Add(int64(b.Len()))
	}
	res.TrainTime = time.Since(start)
	res.Queues = p.Metrics()
	stopProgress()
	if err := p.Join(ctx); err != nil {
		return err
	}
	res.TrainExamples = int(seen.Load())
	res.ExamplesPerSec = float64(res.TrainExamples) / res.TrainTime.Seconds()
	res.FinalTrainLoss = lastLoss.Load().(float32)
	if res.TrainExamples != total-total%cfg.BatchSize {
		return fmt.Errorf("demo: trained on %d examples, want %d", res.TrainExamples, total-total%cfg.BatchSize)
	}
	return nil
}

// preprocess is the guide's "optional preprocessing" stage: raw pixel
// bytes become a standardised float image with a little noise.
func preprocess(raw []byte, size int, key string, rng *rand.Rand, noise float32) (tensor.Tensor, error) {
	if len(raw) != size {
		return tensor.Tensor{}, fmt.Errorf("%s: image has %d bytes, want %d", key, len(raw), size)
	}
	img := make([]float32, size)
	for i, v := range raw {
		img[i] = float32(v) / 255
	}
	standardize(img)
	for i := range img {
		img[i] += noise * float32(rng.NormFloat64())
	}
	return tensor.New(img), nil
}

// standardize scales an image to mean 0 and variance 1, as TensorFlow's
// per_image_standardization (which its CIFAR-10 tutorial applies): the
// standard deviation is at least 1/sqrt(pixels), so a uniform image stays
// finite. Dark digits on black and light photographs then train alike.
func standardize(img []float32) {
	var sum, sq float64
	for _, v := range img {
		sum += float64(v)
		sq += float64(v) * float64(v)
	}
	n := float64(len(img))
	mean := sum / n
	std := math.Sqrt(max(sq/n-mean*mean, 0))
	std = max(std, 1/math.Sqrt(n))
	m, inv := float32(mean), float32(1/std)
	for i, v := range img {
		img[i] = (v - m) * inv
	}
}

// evaluate reads the fixed-length test copy through a second pipeline.
func evaluate(ctx context.Context, cfg Config, res *Result, nTest int, m *model.Model) error {
	p := input.NewPipeline()
	names := p.StringInputProducer(res.TestFiles, input.NumEpochs(1), input.Shuffle(false), input.Name("test_filenames"))
	l := res.Layout
	steps := make([]input.Step, 2)
	for i := range steps {
		r, err := recordio.NewFixedLengthRecordReader(names, l.RecordBytes())
		if err != nil {
			return err
		}
		steps[i] = func(ctx context.Context) (queue.Element, error) {
			key, rec, err := r.Read(ctx)
			if err != nil {
				return nil, err
			}
			parsed, err := l.Parse(rec)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", key, err)
			}
			// The record holds channel planes; training saw the image
			// channels-last, as the Examples store it.
			img := make([]float32, l.ImageBytes())
			cifar10.ToHWC(img, parsed.Image, l.Height, l.Width, l.Depth, 1.0/255)
			standardize(img)
			return queue.Element{tensor.New(img), tensor.Scalar(int64(parsed.Label()))}, nil
		}
	}
	batches := p.BatchJoin(steps, 256, input.AllowSmallerFinalBatch(), input.Names("image", "label"), input.Name("eval_batch"))
	if cfg.OnPipeline != nil {
		cfg.OnPipeline("eval", p)
	}
	if err := p.Start(ctx); err != nil {
		return err
	}
	defer p.Stop(ctx)
	correct, n := 0, 0
	var pred []int64
	for b, err := range batches.All(ctx) {
		if err != nil {
			return err
		}
		pred = m.Predict(pred[:0], b.Float32("image"))
		for i, y := range b.Int64("label") {
			if pred[i] == y {
				correct++
			}
		}
		n += b.Len()
	}
	res.EvalQueues = p.Metrics()
	if err := p.Join(ctx); err != nil {
		return err
	}
	if n != nTest {
		return fmt.Errorf("demo: evaluated %d examples, want %d", n, nTest)
	}
	res.TestExamples = n
	res.Accuracy = float64(correct) / float64(n)
	return nil
}

// Progress lines when the output is not a terminal: one at each fifth of
// the training examples, and at least every logInterval on a long run.
const (
	logSteps    = 5
	logInterval = 10 * time.Second
)

// startProgress reports training progress until the returned func is
// called: on a terminal, a bar and a live line rewritten five times a
// second; otherwise plain lines (see logSteps). Each shows examples/s,
// the loss and how full each queue is. seen may start above 0, counting
// the examples a resumed run trained on before; they count towards the
// progress but not the rate, which is this run's.
func startProgress(out io.Writer, cfg Config, p *input.Pipeline, total int, seen *atomic.Int64, loss *atomic.Value) func() {
	if cfg.Quiet {
		return func() {}
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	tick := 100 * time.Millisecond
	if cfg.Live {
		tick = 200 * time.Millisecond
	}
	go func() {
		defer close(finished)
		start, base := time.Now(), seen.Load()
		lastLine, nextStep := start, 1
		t := time.NewTicker(tick)
		defer t.Stop()
		for {
			select {
			case <-done:
				if cfg.Live {
					fmt.Fprintln(out)
				}
				return
			case <-t.C:
			}
			n := seen.Load()
			now := time.Now()
			if !cfg.Live {
				if n < int64(nextStep*total/logSteps) && now.Sub(lastLine) < logInterval {
					continue
				}
				for nextStep <= logSteps && n >= int64(nextStep*total/logSteps) {
					nextStep++
				}
				lastLine = now
			}
			line := progressLine(p, n, total, float64(n-base)/now.Sub(start).Seconds(), loss.Load().(float32))
			if cfg.Live {
				const width = 20
				filled := width * int(n) / max(total, 1)
				bar := strings.Repeat("#", filled) + strings.Repeat(".", width-filled)
				fmt.Fprintf(out, "\r\x1b[K[%s] %s", bar, line) // erase the previous line
			} else {
				fmt.Fprintln(out, line)
			}
		}
	}()
	return func() {
		select {
		case <-done:
		default:
			close(done)
		}
		<-finished
	}
}

// progressLine describes the training so far.
func progressLine(p *input.Pipeline, n int64, total int, rate float64, loss float32) string {
	var fill []string
	line := fmt.Sprintf("train %6d/%d examples  %7.0f ex/s  loss %.3f", n, total, rate, loss)
	if p == nil {
		return line
	}
	for _, m := range p.Metrics() {
		fill = append(fill, fmt.Sprintf("%s %3.0f%%", m.Name, 100*float64(m.Size)/float64(m.Capacity)))
	}
	return line + "  queues: " + strings.Join(fill, ", ")
}

// Summary writes the run's results for a person.
func (r *Result) Summary(w io.Writer) {
	fmt.Fprintf(w, "\ntest accuracy     %.2f%% on %d images (fixed-length records, second pipeline)\n", 100*r.Accuracy, r.TestExamples)
	if r.ResumedExamples > 0 {
		fmt.Fprintf(w, "training          %d examples, %d before the resume and %d in %.1fs: %.0f examples/s, final loss %.3f\n",
			r.TrainExamples, r.ResumedExamples, r.TrainExamples-r.ResumedExamples, r.TrainTime.Seconds(), r.ExamplesPerSec, r.FinalTrainLoss)
	} else {
		fmt.Fprintf(w, "training          %d examples in %.1fs: %.0f examples/s, final loss %.3f\n",
			r.TrainExamples, r.TrainTime.Seconds(), r.ExamplesPerSec, r.FinalTrainLoss)
	}
	for _, q := range []struct {
		what string
		m    []input.QueueMetrics
	}{{"training", r.Queues}, {"evaluation", r.EvalQueues}} {
		if len(q.m) == 0 {
			continue
		}
		fmt.Fprintf(w, "queues (%s):\n", q.what)
		for _, m := range q.m {
			fmt.Fprintf(w, "  %-16s in %7d  out %7d  producers blocked %6.2fs  consumers blocked %6.2fs\n",
				m.Name, m.Enqueued, m.Dequeued, m.EnqueueBlocked.Seconds(), m.DequeueBlocked.Seconds())
		}
	}
	switch {
	case r.ResumedAt > 0:
		fmt.Fprintf(w, "weights           sha256 %s: resumed at step %d, equal bit for bit to an uninterrupted run's\n", r.Digest[:16], r.ResumedAt)
	case r.Digest != "":
		fmt.Fprintf(w, "weights           sha256 %s (deterministic: a run killed and resumed ends with the same)\n", r.Digest[:16])
	}
	if r.Source != "" {
		fmt.Fprintf(w, "data              %s: %s\n", r.Kind, r.Source)
	}
	if r.Removed {
		fmt.Fprintf(w, "files             removed at exit (--dir DIR keeps them)\n")
		return
	}
	fmt.Fprintf(w, "files             %s (%s)\n", r.Dir, strings.Join(filePatterns(r.Written), ", "))
	if len(r.RemovedLeftovers) > 0 {
		fmt.Fprintf(w, "note              removed %d temporaries that interrupted runs had left in %s\n", len(r.RemovedLeftovers), r.Dir)
	}
	if len(r.OtherFiles) > 0 {
		fmt.Fprintf(w, "note              %s also holds %d files named like these that this run did not write (%s), left as they were\n",
			r.Dir, len(r.OtherFiles), strings.Join(filePatterns(r.OtherFiles), ", "))
	}
}

// filePatterns describes shard files by one pattern per output, naming
// the shard count so that the pattern matches no other run's shards:
// train-0000k-of-00008.bin becomes train-*-of-00008.bin.
func filePatterns(names []string) []string {
	var pats []string
	for _, n := range names {
		b := filepath.Base(n)
		p := b
		if i := strings.Index(b, "-of-"); i > 0 {
			if j := strings.LastIndexByte(b[:i], '-'); j >= 0 {
				p = b[:j+1] + "*" + b[i:]
			}
		}
		if !slices.Contains(pats, p) {
			pats = append(pats, p)
		}
	}
	return pats
}

// sameDir reports whether a and b name the same folder: the same path,
// or the same folder through a link.
func sameDir(a, b string) bool {
	pa, erra := filepath.Abs(a)
	pb, errb := filepath.Abs(b)
	if erra == nil && errb == nil && pa == pb {
		return true
	}
	sa, err := os.Stat(a)
	if err != nil {
		return false
	}
	sb, err := os.Stat(b)
	return err == nil && os.SameFile(sa, sb)
}
