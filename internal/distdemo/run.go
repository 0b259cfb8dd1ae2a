package distdemo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/sluiceml/sluice/datasets/digits"
	"github.com/sluiceml/sluice/example"
	"github.com/sluiceml/sluice/queue/natsqueue"
	"github.com/sluiceml/sluice/recordio"
	"github.com/sluiceml/sluice/storage"
	"github.com/sluiceml/sluice/storage/blobfs"
	"github.com/sluiceml/sluice/tensor"
	"github.com/sluiceml/sluice/tfrecord"
)

// Config sets the size and shape of a run.
type Config struct {
	Images    int           // digit images to write
	Shards    int           // TFRecord files in the bucket
	Workers   int           // worker pipelines sharing the queue
	Epochs    int           // one shared queue each
	KillAfter int           // in the first epoch, the first worker to read this many records of a file dies; <0: no one
	AckWait   time.Duration // how long an unacknowledged file stays with its worker
	Seed      uint64
	Out       io.Writer
}

// DefaultConfig is the configuration of sluice-demo-distributed without flags.
func DefaultConfig() Config {
	return Config{Images: 12000, Shards: 12, Workers: 3, Epochs: 2, KillAfter: 300,
		AckWait: 2 * time.Second, Seed: 42, Out: os.Stdout}
}

const (
	bucketName = "sluice-demo"
	queueName  = "demo-filenames"
	batchSize  = 64
)

// Feature names of the Examples written to the bucket.
const (
	featureID    = "id"
	featureLabel = "label"
	featureImage = "image_raw"
)

// A Result is what a run measured and checked.
type Result struct {
	Files    []string // s3:// names
	Examples int
	Epochs   []EpochResult
	S3Gets   int64 // GET requests the S3 server served while the workers read
	Elapsed  time.Duration
}

// An EpochResult is one epoch's ledger.
type EpochResult struct {
	Epoch     int
	Finished  map[string]int // file → the worker that finished it
	PerWorker []int          // examples in the files each worker finished
	Killed    *Killed        // the worker that died this epoch, if any
	Time      time.Duration
	Examples  int // examples in finished files
	Batches   int

	ids map[string]finishedFile
}

// Killed describes a worker killed mid-file.
type Killed struct {
	Worker     int
	File       string
	Read       int // records it had read of File
	FinishedBy int // the worker the file was redelivered to
}

// Run starts the servers, writes the data set to the bucket, runs the
// workers for every epoch and checks the ledgers. A failed check is an
// error.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	if cfg.Images <= 0 || cfg.Shards <= 0 || cfg.Workers < 2 || cfg.Epochs <= 0 || cfg.AckWait <= 0 {
		return nil, fmt.Errorf("demo distributed: --images, --shards, --epochs and --ack-wait must be positive and --workers at least 2")
	}
	// Numbers beyond any use would size images, files and goroutines
	// first (audits 115 and 116); the bounds of shards and workers are
	// sluice convert's and bench's.
	for _, b := range []struct {
		flag   string
		v, max int
	}{{"--images", cfg.Images, 10_000_000}, {"--shards", cfg.Shards, 10000}, {"--workers", cfg.Workers, 1024}} {
		if b.v > b.max {
			return nil, fmt.Errorf("demo distributed: %s must be at most %d, not %d", b.flag, b.max, b.v)
		}
	}
	if cfg.KillAfter >= cfg.Images/cfg.Shards {
		return nil, fmt.Errorf("demo distributed: --kill-after %d must be less than the %d records of a file", cfg.KillAfter, cfg.Images/cfg.Shards)
	}
	out := cfg.Out
	if out == nil {
		out = io.Discard
	}
	start := time.Now()
	s3srv, err := startS3(bucketName)
	if err != nil {
		return nil, err
	}
	defer s3srv.close()
	natsDir, err := os.MkdirTemp("", "sluice-demo-nats-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(natsDir)
	ns, err := startNATS(natsDir)
	if err != nil {
		return nil, err
	}
	defer stopNATS(ns)
	fmt.Fprintf(out, "started NATS JetStream at %s and an S3-protocol server at %s\n", ns.ClientURL(), s3srv.srv.URL)

	// The FS serves s3:// names for every reader in the process, as
	// blobfs.RegisterDefault would for Amazon S3.
	fsys := blobfs.New(blobfs.Opener(s3srv.opener()), blobfs.BlockSize(1<<20))
	defer fsys.Close()
	prev, hadPrev := storage.Registered("s3")
	blobfs.Register(fsys, "s3")
	defer func() { // the process's own s3:// FS, if it had one, comes back
		if hadPrev {
			storage.Register("s3", prev)
		} else {
			storage.Unregister("s3")
		}
	}()

	res := &Result{}
	ids, err := writeData(ctx, cfg, res)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(out, "wrote %d digit images as %d GZIP TFRecord shards to s3://%s (%.1fs)\n",
		res.Examples, len(res.Files), bucketName, time.Since(start).Seconds())

	getsBefore := s3srv.gets.Load()
	for e := range cfg.Epochs {
		er, err := runEpoch(ctx, cfg, ns.ClientURL(), e, res.Files)
		if err != nil {
			return nil, err
		}
		if err := er.check(res.Files, ids); err != nil {
			return nil, err
		}
		res.Epochs = append(res.Epochs, *er)
		fmt.Fprintf(out, "epoch %d: %d files, %d examples in %.1fs, each exactly once; examples per worker %v\n",
			e+1, len(er.Finished), er.Examples, er.Time.Seconds(), er.PerWorker)
		if k := er.Killed; k != nil {
			fmt.Fprintf(out, "  worker %d was killed after %d records of %s; the file went to worker %d after the %v ack wait\n",
				k.Worker, k.Read, k.File, k.FinishedBy, cfg.AckWait)
		}
	}
	res.S3Gets = s3srv.gets.Load() - getsBefore
	res.Elapsed = time.Since(start)
	return res, nil
}

// writeData renders the images and writes them to the bucket, an id
// feature numbering the examples. It returns the ids of each file.
func writeData(ctx context.Context, cfg Config, res *Result) (map[string][]int64, error) {
	images, labels, err := digits.GenerateContext(ctx, cfg.Images, cfg.Seed)
	if err != nil {
		return nil, err
	}
	names := recordio.ShardNames(fmt.Sprintf("s3://%s/train", bucketName), cfg.Shards, ".tfrecord.gz")
	w, err := recordio.NewShardedWriter(ctx, names, tfrecord.Gzip)
	if err != nil {
		return nil, err
	}
	ids := map[string][]int64{}
	b := example.New()
	var buf []byte
	for i := range cfg.Images {
		buf = b.Reset().
			Int64(featureID, int64(i)).
			Int64(featureLabel, int64(labels[i])).
			Bytes(featureImage, images[i*digits.ImageBytes:(i+1)*digits.ImageBytes]).
			AppendMarshal(buf[:0])
		if err := w.Write(buf); err != nil {
			w.Abort()
			return nil, err
		}
		name := names[i%len(names)] // the writer deals records round-robin
		ids[name] = append(ids[name], int64(i))
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	res.Files, err = storage.Glob(ctx, fmt.Sprintf("s3://%s/train-*-of-%05d.tfrecord.gz", bucketName, cfg.Shards))
	if err != nil {
		return nil, err
	}
	if len(res.Files) != cfg.Shards {
		return nil, fmt.Errorf("demo distributed: the bucket lists %d files, want %d", len(res.Files), cfg.Shards)
	}
	res.Examples = cfg.Images
	return ids, nil
}

// ledger collects, for one epoch, which worker finished which file with
// which examples.
type ledger struct {
	mu       sync.Mutex
	finished map[string]finishedFile
	killed   *Killed
}

// kill reports whether worker id is the one to die, at its read of
// unit; only one worker of an epoch is.
func (l *ledger) kill(id int, unit string, read int) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.killed != nil {
		return false
	}
	l.killed = &Killed{Worker: id, File: unit, Read: read}
	return true
}

type finishedFile struct {
	worker int
	ids    []int64
}

// runEpoch fills the epoch's shared queue and runs the workers until its
// end of input.
func runEpoch(ctx context.Context, cfg Config, url string, epoch int, files []string) (*EpochResult, error) {
	start := time.Now()
	// The queue holds the whole epoch: the producer fills it before any
	// worker starts, so a smaller capacity (the default is 32) would block
	// it for good.
	opts := []natsqueue.Option{natsqueue.Epoch(epoch), natsqueue.AckWait(cfg.AckWait), natsqueue.Capacity(max(len(files), 1))}

	// The producer: the epoch's files, shuffled, then the closed flag.
	prod, err := natsqueue.Dial(ctx, url, queueName, opts...)
	if err != nil {
		return nil, err
	}
	order := slices.Clone(files)
	rand.New(rand.NewPCG(cfg.Seed, uint64(epoch))).Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	err = prod.EnqueueStrings(ctx, order...)
	if err == nil {
		err = prod.Close(ctx)
	}
	prod.Stop(context.WithoutCancel(ctx))
	if err != nil {
		return nil, err
	}

	l := &ledger{finished: map[string]finishedFile{}}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make(chan error, cfg.Workers)
	batches := make([]int, cfg.Workers)
	kill := -1
	if epoch == 0 {
		kill = cfg.KillAfter
	}
	for w := range cfg.Workers {
		go func() {
			n, err := runWorker(ctx, url, w, kill, opts, l)
			batches[w] = n
			if err != nil {
				cancel() // one failed worker fails the run
			}
			errs <- err
		}()
	}
	var first error
	for range cfg.Workers {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	if first != nil {
		return nil, first
	}
	er := &EpochResult{Epoch: epoch + 1, Finished: map[string]int{}, PerWorker: make([]int, cfg.Workers),
		Killed: l.killed, Time: time.Since(start)}
	for _, n := range batches {
		er.Batches += n
	}
	for f, ff := range l.finished {
		er.Finished[f] = ff.worker
		er.PerWorker[ff.worker] += len(ff.ids)
		er.Examples += len(ff.ids)
	}
	if k := er.Killed; k != nil {
		k.FinishedBy = er.Finished[k.File]
	}
	er.ids = l.finished
	return er, nil
}

// ackObserver passes a worker's acknowledgements to the shared queue and,
// once the queue has taken one, records the file as finished.
type ackObserver struct {
	*natsqueue.Queue
	done func(unit string)
}

func (a ackObserver) WorkDone(ctx context.Context, unit string) error {
	if err := a.Queue.WorkDone(ctx, unit); err != nil {
		return err
	}
	a.done(unit)
	return nil
}

// runWorker is one trainer's input pipeline: the shared queue, a TFRecord
// reader over s3:// names, Example parsing and batches of batchSize. With
// killAfter >= 0, the first worker of the epoch to read killAfter records
// of a file dies there. It returns the number of batches.
func runWorker(ctx context.Context, url string, id, killAfter int, opts []natsqueue.Option, l *ledger) (int, error) {
	q, err := natsqueue.Dial(ctx, url, queueName, opts...)
	if err != nil {
		return 0, err
	}
	defer q.Stop(context.WithoutCancel(ctx))
	cur := map[string][]int64{} // unit → ids read, until it is acknowledged
	obs := ackObserver{Queue: q, done: func(unit string) {
		l.mu.Lock()
		defer l.mu.Unlock()
		if prev, dup := l.finished[unit]; dup {
			// Recorded, and failed by the check: a file finished twice.
			unit = fmt.Sprintf("%s (again, after worker %d)", unit, prev.worker)
		}
		l.finished[unit] = finishedFile{worker: id, ids: cur[unit]}
		delete(cur, unit)
	}}
	r := recordio.NewTFRecordReader(obs, tfrecord.Gzip, recordio.Name(fmt.Sprintf("worker%d", id)))
	defer r.Reset() // closes a file left open by an error or the kill
	parser, err := example.NewParser(example.Spec{
		featureID:    example.FixedLen(tensor.Int64),
		featureLabel: example.FixedLen(tensor.Int64),
		featureImage: example.FixedLen(tensor.String),
	})
	if err != nil {
		return 0, err
	}
	batch, batches := 0, 0
	for {
		key, rec, err := r.Read(ctx)
		if errors.Is(err, io.EOF) {
			if batch > 0 {
				batches++ // the smaller final batch
			}
			return batches, nil
		}
		if err != nil {
			return batches, fmt.Errorf("worker %d: %w", id, err)
		}
		parsed, err := parser.ParseSingle(rec, key)
		if err != nil {
			return batches, fmt.Errorf("worker %d: %w", id, err)
		}
		exID, _ := parsed.Dense(featureID)
		unit := unitOf(key)
		cur[unit] = append(cur[unit], exID.Int64s()[0])
		if batch++; batch == batchSize {
			batch = 0
			batches++ // a training step would run here
		}
		if killAfter >= 0 && len(cur[unit]) == killAfter && l.kill(id, unit, killAfter) {
			// Killed: the connection goes away with the file
			// unacknowledged, as when a process dies.
			return batches, nil
		}
	}
}

// check holds the epoch's ledger to the data written: every file finished
// exactly once, by one worker, with exactly its examples.
func (er *EpochResult) check(files []string, ids map[string][]int64) error {
	if len(er.ids) != len(files) {
		var extra []string
		for f := range er.ids {
			if _, ok := ids[f]; !ok {
				extra = append(extra, f)
			}
		}
		return fmt.Errorf("demo distributed: epoch %d: %d files finished, want %d (unexpected: %q)",
			er.Epoch, len(er.ids), len(files), extra)
	}
	seen := map[int64]bool{}
	for _, f := range files {
		ff, ok := er.ids[f]
		if !ok {
			return fmt.Errorf("demo distributed: epoch %d: %s was never finished", er.Epoch, f)
		}
		if !slices.Equal(ff.ids, ids[f]) {
			return fmt.Errorf("demo distributed: epoch %d: worker %d finished %s with %d examples, want its %d in order",
				er.Epoch, ff.worker, f, len(ff.ids), len(ids[f]))
		}
		for _, id := range ff.ids {
			if seen[id] {
				return fmt.Errorf("demo distributed: epoch %d: example %d delivered twice", er.Epoch, id)
			}
			seen[id] = true
		}
	}
	if k := er.Killed; k != nil && er.ids[k.File].worker == k.Worker {
		return fmt.Errorf("demo distributed: epoch %d: %s was finished by worker %d, which was killed", er.Epoch, k.File, k.Worker)
	}
	return nil
}

// Summary writes the run's results for a person.
func (r *Result) Summary(w io.Writer) {
	fmt.Fprintf(w, "\nevery example of every epoch delivered exactly once among finished files: %d epochs × %d examples in %d files\n",
		len(r.Epochs), r.Examples, len(r.Files))
	for _, e := range r.Epochs {
		fmt.Fprintf(w, "epoch %d           %.1fs, %.0f examples/s, %d batches of up to %d\n",
			e.Epoch, e.Time.Seconds(), float64(e.Examples)/e.Time.Seconds(), e.Batches, batchSize)
	}
	fmt.Fprintf(w, "object store      %d GET requests for %d file reads (ranged reads, not a request per record)\n",
		r.S3Gets, len(r.Files)*len(r.Epochs))
	fmt.Fprintf(w, "total             %.1fs\n", r.Elapsed.Seconds())
}
