package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sluiceml/sluice/decode"
	"github.com/sluiceml/sluice/example"
	"github.com/sluiceml/sluice/input"
	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/recordio"
	"github.com/sluiceml/sluice/tensor"
	"github.com/sluiceml/sluice/tfrecord"
)

// batchSize is the batch every system assembles, the seed guide's 128.
const batchSize = 128

// A tally is what one run delivered: examples, bytes of record data, and a
// checksum over the values (label sums, or byte counts for framing) that
// every system computes the same way, so the report can tell a fast wrong
// answer from a fast right one.
type tally struct {
	examples, bytes, check atomic.Int64
}

// A workload names a data set and the function that consumes it once.
type workload struct {
	name, data string
	// run is the hand-tuned library path (sluicebench -mode lib): the
	// packages below the front door, with buffers reused.
	run func(ctx context.Context, files []string, t *tally) error
	// api reads the same data through the sluice package as a user writes
	// it (-mode api, the headline rows, with keep: a batch's memory is its
	// own, as every peer's is; -mode api-reuse without keep).
	api func(ctx context.Context, files []string, keep bool, t *tally) error
}

var workloads = []workload{
	{"framing-100B", "framing-100B", runFraming, apiRecords},
	{"framing-1KB", "framing-1KB", runFraming, apiRecords},
	{"framing-10KB", "framing-10KB", runFraming, apiRecords},
	{"framing-100KB", "framing-100KB", runFraming, apiRecords},
	{"files-1", "files-1", runFraming, apiRecords},
	{"files-4", "framing-1KB", runFraming, apiRecords},
	{"files-16", "files-16", runFraming, apiRecords},
	{"mnist", "mnist", runMNIST, apiExamples(mnistSpec, "label", 1, false)},
	{"small10", "small10", runSmall10, apiExamples(smallSpec(), "f5", 1, false)},
	{"csv", "csv", runCSV, apiCSV},
	{"cifar", "cifar", runCIFAR, apiCIFAR},
	{"seed", "mnist", runSeed, apiExamples(mnistSpec, "label", 2, true)},
}

func lookupWorkload(name string) (workload, bool) {
	for _, w := range workloads {
		if w.name == name {
			return w, true
		}
	}
	return workload{}, false
}

// parallelFiles runs one worker per GOMAXPROCS; each takes whole files from
// a shared list until none are left, as tf.data's interleave over files
// and the torch DataLoader's workers do. newWorker makes each worker's own
// state (a parser, buffers), which is not shared.
func parallelFiles(ctx context.Context, files []string, newWorker func() func(name string) error) error {
	n := min(runtime.GOMAXPROCS(0), len(files))
	var next atomic.Int64
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			work := newWorker()
			for {
				j := int(next.Add(1)) - 1
				if j >= len(files) || ctx.Err() != nil {
					return
				}
				if err := work(files[j]); err != nil {
					errs[i] = err
					return
				}
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	return ctx.Err()
}

// recordBatcher reads TFRecords from one file at a time and hands them on
// in batches of batchSize, copied into one reused arena, because the
// tfrecord.Reader's slices live only until its next call.
type recordBatcher struct {
	r     *tfrecord.Reader
	arena []byte
	recs  [][]byte
}

func (rb *recordBatcher) each(name string, batch func(recs [][]byte, end int64) error) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	rb.r = readerOn(rb.r, f, name)
	flush := func() error {
		if len(rb.recs) == 0 {
			return nil
		}
		err := batch(rb.recs, rb.r.Offset())
		rb.recs, rb.arena = rb.recs[:0], rb.arena[:0]
		return err
	}
	for {
		rec, err := rb.r.Next()
		if err == io.EOF {
			return flush()
		}
		if err != nil {
			return err
		}
		if len(rb.arena)+len(rec) > cap(rb.arena) {
			// A new arena: earlier slices in rb.recs keep the old one alive
			// until the batch is flushed; later batches reuse the larger one.
			rb.arena = make([]byte, 0, max(2*cap(rb.arena), len(rb.arena)+len(rec)))
		}
		start := len(rb.arena)
		rb.arena = append(rb.arena, rec...)
		rb.recs = append(rb.recs, rb.arena[start:len(rb.arena):len(rb.arena)])
		if len(rb.recs) == batchSize {
			if err := flush(); err != nil {
				return err
			}
		}
	}
}

// readerOn returns a reader of f, named name: r reset, or a new reader
// when r is nil, so that a worker reuses its buffers file after file.
func readerOn(r *tfrecord.Reader, f io.Reader, name string) *tfrecord.Reader {
	if r == nil {
		return tfrecord.NewReader(f, tfrecord.Name(name))
	}
	r.Reset(f, tfrecord.Name(name))
	return r
}

// runFraming is workload 1: TFRecord framing only, both CRCs checked.
func runFraming(ctx context.Context, files []string, t *tally) error {
	return parallelFiles(ctx, files, func() func(string) error {
		var r *tfrecord.Reader
		return func(name string) error {
			f, err := os.Open(name)
			if err != nil {
				return err
			}
			defer f.Close()
			r = readerOn(r, f, name)
			var n, bytes int64
			for rec, err := range r.All() {
				if err != nil {
					return err
				}
				n++
				bytes += int64(len(rec))
			}
			t.examples.Add(n)
			t.bytes.Add(bytes)
			t.check.Add(bytes)
			return nil
		}
	})
}

var mnistSpec = example.Spec{
	"image": example.FixedLen(tensor.Float32, 784),
	"label": example.FixedLen(tensor.Int64),
}

// runMNIST is workload 2: MNIST-like Examples parsed to dense batches.
func runMNIST(ctx context.Context, files []string, t *tally) error {
	return parseBatches(ctx, files, t, mnistSpec, "label")
}

func smallSpec() example.Spec {
	s := example.Spec{}
	for i, name := range smallNames {
		if i < 5 {
			s[name] = example.FixedLen(tensor.Float32)
		} else {
			s[name] = example.FixedLen(tensor.Int64)
		}
	}
	return s
}

// runSmall10 is workload 3: small Examples of ten scalar features.
func runSmall10(ctx context.Context, files []string, t *tally) error {
	return parseBatches(ctx, files, t, smallSpec(), "f5")
}

// parseBatches parses each batch of records with spec (parse_example after
// batching, the fast form in both TensorFlow and sluice) and sums the int64
// feature checkName.
func parseBatches(ctx context.Context, files []string, t *tally, spec example.Spec, checkName string) error {
	if _, err := example.NewParser(spec); err != nil {
		return err
	}
	return parallelFiles(ctx, files, func() func(string) error {
		p, _ := example.NewParser(spec)
		p.ReuseOutputs()
		var rb recordBatcher
		return func(name string) error {
			return rb.each(name, func(recs [][]byte, end int64) error {
				out, err := p.Parse(recs, nil)
				if err != nil {
					return fmt.Errorf("%s: batch of %d records ending at offset %d: %w", name, len(recs), end, err)
				}
				var sum, bytes int64
				labels, _ := out.Dense(checkName)
				for _, v := range labels.Int64s() {
					sum += v
				}
				for _, r := range recs {
					bytes += int64(len(r))
				}
				t.examples.Add(int64(len(recs)))
				t.bytes.Add(bytes)
				t.check.Add(sum)
				return nil
			})
		}
	})
}

// runCSV is workload 4: lines of four floats and an int label, decoded in
// batches into reused column tensors.
func runCSV(ctx context.Context, files []string, t *tally) error {
	cols := []decode.Column{
		decode.Float32Column(0), decode.Float32Column(0), decode.Float32Column(0),
		decode.Float32Column(0), decode.Int32Column(0),
	}
	if _, err := decode.NewCSV(cols); err != nil {
		return err
	}
	return parallelFiles(ctx, files, func() func(string) error {
		d, _ := decode.NewCSV(cols)
		full := d.NewBatch(batchSize)
		arena := make([]byte, 0, 64*batchSize)
		var lines [][]byte
		return func(name string) error {
			f, err := os.Open(name)
			if err != nil {
				return err
			}
			defer f.Close()
			s := recordio.NewLineSplitter(bufio.NewReaderSize(f, 1<<16))
			lineNo := 0
			flush := func() error {
				if len(lines) == 0 {
					return nil
				}
				dst := full
				if len(lines) < batchSize {
					dst = d.NewBatch(len(lines))
				}
				if err := d.DecodeBatchInto(dst, lines, nil); err != nil {
					return fmt.Errorf("%s: lines %d to %d: %w", name, lineNo-len(lines)+1, lineNo, err)
				}
				var sum int64
				for _, v := range dst[4].Int32s() {
					sum += int64(v)
				}
				t.examples.Add(int64(len(lines)))
				t.bytes.Add(int64(len(arena)))
				t.check.Add(sum)
				lines, arena = lines[:0], arena[:0]
				return nil
			}
			for {
				line, err := s.Next()
				if err == io.EOF {
					return flush()
				}
				if err != nil {
					return fmt.Errorf("%s: line %d: %w", name, lineNo+1, err)
				}
				lineNo++
				if len(arena)+len(line) > cap(arena) {
					arena = make([]byte, 0, max(2*cap(arena), len(arena)+len(line)))
				}
				start := len(arena)
				arena = append(arena, line...)
				lines = append(lines, arena[start:len(arena):len(arena)])
				if len(lines) == batchSize {
					if err := flush(); err != nil {
						return err
					}
				}
			}
		}
	})
}

// runCIFAR is workload 5: CIFAR-10 fixed-length records, each decoded to a
// uint8 image in height × width × channels order and an int32 label, as
// the seed's cifar10_input.py does (decode_raw, slice, reshape, transpose).
func runCIFAR(ctx context.Context, files []string, t *tally) error {
	return parallelFiles(ctx, files, func() func(string) error {
		images := make([]uint8, batchSize*32*32*3)
		labels := make([]int32, batchSize)
		buf := make([]byte, cifarRecord*batchSize)
		return func(name string) error {
			f, err := os.Open(name)
			if err != nil {
				return err
			}
			defer f.Close()
			var off int64
			for {
				n, err := io.ReadFull(f, buf)
				if err == io.EOF {
					return nil
				}
				if err != nil && err != io.ErrUnexpectedEOF {
					return fmt.Errorf("%s: offset %d: %w", name, off, err)
				}
				if n%cifarRecord != 0 {
					return fmt.Errorf("%s: offset %d: %d bytes left, not a whole %d-byte record", name, off+int64(n/cifarRecord*cifarRecord), n%cifarRecord, cifarRecord)
				}
				recs := n / cifarRecord
				var sum int64
				for i := range recs {
					rec := buf[i*cifarRecord : (i+1)*cifarRecord]
					labels[i] = int32(rec[0])
					sum += int64(rec[0])
					img := images[i*3072 : (i+1)*3072]
					planes := rec[1:]
					for c := range 3 {
						plane := planes[c*1024 : (c+1)*1024]
						for p, v := range plane {
							img[p*3+c] = v
						}
					}
				}
				// The batch as a consumer receives it; building the
				// tensors is part of the work the other systems do.
				_, _ = tensor.New(images[:recs*3072], recs, 32, 32, 3), tensor.New(labels[:recs], recs)
				t.examples.Add(int64(recs))
				t.bytes.Add(int64(n))
				t.check.Add(sum)
				off += int64(n)
				if err == io.ErrUnexpectedEOF {
					return nil
				}
			}
		}
	})
}

// runSeed is workload 6, the seed guide's input_pipeline: a shuffled
// filename queue with two epochs, two TFRecord readers sharing it, Example
// parsing per record, and shuffle_batch_join of 128 with
// min_after_dequeue 10000, through the input package's queues and runners.
// It uses the library's allocation-free idiom: readers that make no keys
// (ReadValue), parsing into the elements the batcher recycles
// (ParseSingleInto, input.Recycled, input.Recycle), and a consumer
// reusing its batch (NextInto).
// phaseLog makes runSeed print, for each pass, how long it took to fill
// the shuffle queue (the first batch), to run with the queue full, and to
// drain it once the readers ran out: a pass builds a new pipeline, and
// the fill and the drain use the cores differently from the rest.
var phaseLog bool

// fillProfile, when set, makes runSeed write a CPU profile of each pass's
// fill alone (from the pipeline's start to its first batch) to
// fillProfile.N, N counting passes: the fill runs for a tenth of a pass,
// and a profile of the whole run cannot tell its costs from the steady
// state's. go tool pprof merges the files given together.
var fillProfile string

var fillPasses int

// startFillProfile starts a pass's fill profile; the returned func stops
// it, and may be called more than once.
func startFillProfile() (stop func(), err error) {
	if fillProfile == "" {
		return func() {}, nil
	}
	fillPasses++
	f, err := os.Create(fmt.Sprintf("%s.%d", fillProfile, fillPasses))
	if err != nil {
		return nil, err
	}
	// A fill lasts 20-40 ms: the default 100 Hz would take 2 to 4
	// samples of it.
	runtime.SetCPUProfileRate(1000)
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			pprof.StopCPUProfile()
			f.Close()
		})
	}, nil
}

func runSeed(ctx context.Context, files []string, t *tally) error {
	stopFill, err := startFillProfile()
	if err != nil {
		return err
	}
	defer func() {
		if stopFill != nil {
			stopFill()
		}
	}()
	// The phases, marked in an execution trace (-trace) too: "start",
	// "first" batch, each reader's "eof", "done".
	trace.Log(ctx, "seed", "start")
	defer trace.Log(ctx, "seed", "done")
	t0, c0 := time.Now(), cpuSeconds()
	var endMu sync.Mutex
	var tEnd time.Time
	var cEnd float64
	var nEnd int64
	n0 := t.examples.Load()
	p := input.NewPipeline(input.Seed(42))
	names := p.StringInputProducer(files, input.NumEpochs(2))
	readers := make([]input.Step, 2)
	for i := range readers {
		r := recordio.NewTFRecordReader(names, tfrecord.None)
		parser, _ := example.NewParser(mnistSpec)
		readers[i] = func(ctx context.Context) (queue.Element, error) {
			rec, err := r.ReadValue(ctx)
			if err != nil {
				trace.Log(ctx, "seed", "eof")
				if phaseLog {
					endMu.Lock()
					tEnd, cEnd, nEnd = time.Now(), cpuSeconds(), t.examples.Load()
					endMu.Unlock()
				}
				return nil, err
			}
			t.bytes.Add(int64(len(rec)))
			return parser.ParseSingleInto(input.Recycled(ctx), rec, "")
		}
	}
	batches := p.ShuffleBatchJoin(readers, batchSize, input.Capacity(10000+3*batchSize),
		input.MinAfterDequeue(10000), input.AllowSmallerFinalBatch(), input.Names("image", "label"), input.Recycle())
	if err := p.Start(ctx); err != nil {
		return err
	}
	var b input.Batch
	var tFirst time.Time
	var cFirst float64
	for {
		var err error
		b, err = batches.NextInto(ctx, b)
		if stopFill != nil {
			stopFill()
			stopFill = nil
			trace.Log(ctx, "seed", "first")
		}
		if phaseLog && tFirst.IsZero() {
			tFirst, cFirst = time.Now(), cpuSeconds()
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			p.Stop(ctx)
			return err
		}
		var sum int64
		for _, v := range b.Int64("label") {
			sum += v
		}
		t.examples.Add(int64(b.Len()))
		t.check.Add(sum)
	}
	err = p.Join(ctx)
	if phaseLog {
		t2, c2 := time.Now(), cpuSeconds()
		endMu.Lock()
		// The full-queue phase runs from the first batch to the readers'
		// end; its examples are the batches delivered in it.
		steady := nEnd - n0 - batchSize
		fmt.Fprintf(os.Stderr, "pass %.1fms cpu %.1fms | fill %.1fms cpu %.1f | full %.1fms cpu %.1f, %d examples: %.0f examples/s %.0f CPU-ns/example | drain %.1fms cpu %.1f, %d examples\n",
			ms(t2.Sub(t0)), 1e3*(c2-c0), ms(tFirst.Sub(t0)), 1e3*(cFirst-c0),
			ms(tEnd.Sub(tFirst)), 1e3*(cEnd-cFirst), steady, float64(steady)/tEnd.Sub(tFirst).Seconds(), 1e9*(cEnd-cFirst)/float64(steady),
			ms(t2.Sub(tEnd)), 1e3*(c2-cEnd), t.examples.Load()-nEnd)
		endMu.Unlock()
	}
	return err
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }
