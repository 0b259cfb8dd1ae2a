package sluice

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sluiceml/sluice/example"
	"github.com/sluiceml/sluice/index"
	"github.com/sluiceml/sluice/input"
	"github.com/sluiceml/sluice/internal/cputime"
	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/recordio"
	"github.com/sluiceml/sluice/tensor"
	"github.com/sluiceml/sluice/tfrecord"
)

// The MNIST benchmark's data: as bench/cmd/sluicebench gen writes its
// "mnist" set (784 float32 pixels and an int64 label per Example, 4
// uncompressed files of 12 500), so that one op is one pass, as one
// sluicebench pass.
const (
	benchFiles   = 4
	benchPerFile = 12500
	benchBatch   = 128
)

var benchMNISTSpec = example.Spec{
	"image": example.FixedLen(tensor.Float32, 784),
	"label": example.FixedLen(tensor.Int64),
}

func writeMNIST(b *testing.B) (dir string, files []string, labelSum int64) {
	dir = b.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	eb := example.New()
	pix := make([]float32, 784)
	var rec []byte
	for i := range benchFiles {
		name := filepath.Join(dir, fmt.Sprintf("mnist-%05d-of-%05d.tfrecord", i, benchFiles))
		f, err := os.Create(name)
		if err != nil {
			b.Fatal(err)
		}
		w := tfrecord.NewWriter(f)
		for range benchPerFile {
			for j := range pix {
				pix[j] = rng.Float32()
			}
			label := rng.Int64N(10)
			labelSum += label
			rec = eb.Reset().Floats("image", pix).Int64("label", label).AppendMarshal(rec[:0])
			if err := w.Write(rec); err != nil {
				b.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
		f.Close()
		files = append(files, name)
	}
	return dir, files, labelSum
}

// BenchmarkMNIST compares the high-level layer with the fastest MNIST
// path of bench/cmd/sluicebench (workload "mnist": one goroutine per
// GOMAXPROCS taking whole files, tfrecord.Reader, records copied into a
// reused arena, example.Parser.Parse of 128 records with ReuseOutputs), on
// the same files. One op is one pass over every file.
func BenchmarkMNIST(b *testing.B) {
	dir, files, want := writeMNIST(b)
	examples := float64(benchFiles * benchPerFile)
	// CPU time per example is steadier than wall time on a shared
	// machine; both are reported.
	var cpu0 time.Duration
	start := func() { cpu0 = cputime.Process() }
	report := func(b *testing.B) {
		b.ReportMetric(examples*float64(b.N)/b.Elapsed().Seconds(), "examples/s")
		b.ReportMetric(float64(cputime.Process()-cpu0)/(examples*float64(b.N)), "cpu-ns/example")
	}
	b.Run("handtuned", func(b *testing.B) {
		start()
		for b.Loop() {
			sum, err := handTuned(b.Context(), files)
			if err != nil {
				b.Fatal(err)
			}
			if sum != want {
				b.Fatalf("label sum %d, want %d", sum, want)
			}
		}
		report(b)
	})
	// The TensorFlow-faithful shuffled pipeline, sluicebench's "seed"
	// workload with one epoch: the comparison for Shuffle. The first three
	// use the plain idiom (Read, ParseSingle, a new element per example);
	// the -recycle ones the allocation-free one (ReadValue,
	// ParseSingleInto an element from input.Recycled, Recycle, NextInto).
	for _, bc := range []struct {
		name string
		mode seedMode
	}{
		{"seedpipeline-shuffle10000", seedMode{}},
		// A consumer that reuses its batch (NextInto).
		{"seedpipeline-shuffle10000-nextinto", seedMode{into: true}},
		// A deterministic pipeline: readers in turn, the shuffle queue
		// drawing only when full.
		{"seedpipeline-shuffle10000-deterministic", seedMode{deterministic: true}},
		{"seedpipeline-shuffle10000-recycle", seedMode{into: true, recycle: true}},
		{"seedpipeline-shuffle10000-recycle-deterministic", seedMode{into: true, recycle: true, deterministic: true}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var steady steadyAllocs
			mode := bc.mode
			mode.steady = &steady
			start()
			for b.Loop() {
				sum, err := seedPipeline(b.Context(), files, mode)
				if err != nil {
					b.Fatal(err)
				}
				if sum != want {
					b.Fatalf("label sum %d, want %d", sum, want)
				}
			}
			report(b)
			// Allocations once the shuffle buffer is full and before it
			// drains: the cost of an example in a long run, which a pass
			// of 50 000 examples through a buffer of 10 000 hides.
			b.ReportMetric(float64(steady.mallocs)/float64(steady.examples), "steady-allocs/example")
			b.ReportMetric(float64(steady.bytes)/float64(steady.examples), "steady-B/example")
		})
	}
	for _, bc := range []struct {
		name  string
		opts  []ExampleOption
		bopts []BatchOption
	}{
		{"sluice", nil, nil},
		{"sluice-keep", nil, []BatchOption{KeepBatches()}},
		{"sluice-shuffle10000", []ExampleOption{Shuffle(10000)}, nil},
		// Deterministic mode's cost: the same reads, in an order fixed
		// by the seed, with one goroutine merging and shuffling.
		{"sluice-deterministic", []ExampleOption{Deterministic(), Readers(2)}, nil},
		{"sluice-deterministic-shuffle10000", []ExampleOption{Deterministic(), Readers(2), Shuffle(10000)}, nil},
		// Every record in a random order, read where it is.
		{"sluice-globalshuffle", []ExampleOption{GlobalShuffle()}, nil},
	} {
		b.Run(bc.name, func(b *testing.B) {
			// Indexes, built before the timing as `sluice index` would.
			b.Setenv("SLUICE_INDEX_DIR", b.TempDir())
			for _, name := range files {
				if _, err := index.LoadOrBuild(b.Context(), name); err != nil {
					b.Fatal(err)
				}
			}
			ds := Examples(filepath.Join(dir, "mnist-*"), benchMNISTSpec, bc.opts...)
			start()
			for b.Loop() {
				var sum int64
				for batch, err := range ds.Batches(b.Context(), benchBatch, bc.bopts...) {
					if err != nil {
						b.Fatal(err)
					}
					for _, l := range batch.Int64("label") {
						sum += l
					}
				}
				if sum != want {
					b.Fatalf("label sum %d, want %d", sum, want)
				}
			}
			report(b)
		})
	}
	// The front door's steady state: one op is one batch of a data set
	// that repeats the files without end, after enough batches to fill
	// the shuffle buffer and every free list: what a trainer's loop sees
	// batch after batch. steady-B/example against an example's 3 144
	// bytes (784 float32 and an int64) and steady-allocs/example are
	// issue 18's measures. Give them a few hundred ops:
	//
	//	go test -run '^$' -bench 'MNIST/steady$' -benchtime 400x -benchmem .
	for _, bc := range []struct {
		name  string
		opts  []ExampleOption
		bopts []BatchOption
	}{
		{"sluice-steady", nil, nil},
		{"sluice-keep-steady", nil, []BatchOption{KeepBatches()}},
		{"sluice-shuffle10000-steady", []ExampleOption{Shuffle(10000)}, nil},
		{"sluice-deterministic-steady", []ExampleOption{Deterministic(), Readers(2)}, nil},
		{"sluice-deterministic-shuffle10000-steady", []ExampleOption{Deterministic(), Readers(2), Shuffle(10000)}, nil},
		{"sluice-globalshuffle-steady", []ExampleOption{GlobalShuffle()}, nil},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.Setenv("SLUICE_INDEX_DIR", b.TempDir())
			for _, name := range files {
				if _, err := index.LoadOrBuild(b.Context(), name); err != nil {
					b.Fatal(err)
				}
			}
			benchSteady(b, Examples(filepath.Join(dir, "mnist-*"), benchMNISTSpec, append(bc.opts, Forever())...), bc.bopts...)
		})
	}
}

// seedMode selects seedPipeline's idiom.
type seedMode struct {
	deterministic bool // input.Deterministic
	into          bool // the consumer reuses its batch (NextInto)
	recycle       bool // ReadValue, ParseSingleInto(input.Recycled(ctx)), input.Recycle
	steady        *steadyAllocs
}

// steadyAllocs counts the allocations of the steady state of seedPipeline
// runs: from batch steadyFrom to batch steadyTo, when the shuffle queue is
// full and the input has not ended.
type steadyAllocs struct {
	mallocs, bytes, examples uint64
}

const steadyFrom, steadyTo = 120, 360

// seedStages builds the seed guide's stages on p: a shuffled filename
// queue of epochs over files, two TFRecord readers parsing Examples, and
// shuffle_batch_join of 128 with min_after_dequeue 10000; with recycle,
// in the allocation-free idiom (ReadValue, ParseSingleInto, Recycle).
func seedStages(p *input.Pipeline, files []string, epochs int, recycle bool) *input.Batches {
	names := p.StringInputProducer(files, input.NumEpochs(epochs))
	readers := make([]input.Step, 2)
	for i := range readers {
		r := recordio.NewTFRecordReader(names, tfrecord.None)
		parser, _ := example.NewParser(benchMNISTSpec)
		if recycle {
			readers[i] = func(ctx context.Context) (queue.Element, error) {
				rec, err := r.ReadValue(ctx)
				if err != nil {
					return nil, err
				}
				return parser.ParseSingleInto(input.Recycled(ctx), rec, "")
			}
			continue
		}
		readers[i] = func(ctx context.Context) (queue.Element, error) {
			key, rec, err := r.Read(ctx)
			if err != nil {
				return nil, err
			}
			ex, err := parser.ParseSingle(rec, key)
			if err != nil {
				return nil, err
			}
			return ex.Components(), nil
		}
	}
	bopts := []input.ShuffleBatchOption{input.Capacity(10000 + 3*benchBatch),
		input.MinAfterDequeue(10000), input.AllowSmallerFinalBatch(), input.Names("image", "label")}
	if recycle {
		bopts = append(bopts, input.Recycle())
	}
	return p.ShuffleBatchJoin(readers, benchBatch, bopts...)
}

// seedPipeline is bench/cmd/sluicebench's runSeed with one epoch: a
// shuffled filename queue, two TFRecord readers, Example parsing per
// record, shuffle_batch_join of 128 with min_after_dequeue 10000.
func seedPipeline(ctx context.Context, files []string, m seedMode) (int64, error) {
	opts := []input.PipelineOption{input.Seed(42)}
	if m.deterministic {
		opts = append(opts, input.Deterministic())
	}
	p := input.NewPipeline(opts...)
	batches := seedStages(p, files, 1, m.recycle)
	if err := p.Start(ctx); err != nil {
		return 0, err
	}
	var sum int64
	var b input.Batch
	var ms0, ms1 runtime.MemStats
	for n := 0; ; n++ {
		if m.steady != nil && (n == steadyFrom || n == steadyTo) {
			ms := &ms0
			if n == steadyTo {
				ms = &ms1
			}
			runtime.ReadMemStats(ms)
			if n == steadyTo {
				m.steady.mallocs += ms1.Mallocs - ms0.Mallocs
				m.steady.bytes += ms1.TotalAlloc - ms0.TotalAlloc
				m.steady.examples += (steadyTo - steadyFrom) * benchBatch
			}
		}
		var err error
		if m.into {
			b, err = batches.NextInto(ctx, b)
		} else {
			b, err = batches.Next(ctx)
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			p.Stop(ctx)
			return 0, err
		}
		for _, v := range b.Int64("label") {
			sum += v
		}
	}
	return sum, p.Join(ctx)
}

// handTuned is bench/cmd/sluicebench's parseBatches for the mnist
// workload, reproduced: it returns the sum of the labels.
func handTuned(ctx context.Context, files []string) (int64, error) {
	var total atomic.Int64
	err := parallelFiles(ctx, files, func() func(string) error {
		p, _ := example.NewParser(benchMNISTSpec)
		p.ReuseOutputs()
		var rb recordBatcher
		return func(name string) error {
			return rb.each(name, func(recs [][]byte, end int64) error {
				out, err := p.Parse(recs, nil)
				if err != nil {
					return fmt.Errorf("%s: batch of %d records ending at offset %d: %w", name, len(recs), end, err)
				}
				var sum int64
				labels, _ := out.Dense("label")
				for _, v := range labels.Int64s() {
					sum += v
				}
				total.Add(sum)
				return nil
			})
		}
	})
	return total.Load(), err
}

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
	if rb.r == nil {
		rb.r = tfrecord.NewReader(f, tfrecord.Name(name))
	} else {
		rb.r.Reset(f, tfrecord.Name(name))
	}
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
			rb.arena = make([]byte, 0, max(2*cap(rb.arena), len(rb.arena)+len(rec)))
		}
		start := len(rb.arena)
		rb.arena = append(rb.arena, rec...)
		rb.recs = append(rb.recs, rb.arena[start:len(rb.arena):len(rb.arena)])
		if len(rb.recs) == benchBatch {
			if err := flush(); err != nil {
				return err
			}
		}
	}
}
