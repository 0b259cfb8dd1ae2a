package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/sluiceml/sluice"
	"github.com/sluiceml/sluice/decode"
	"github.com/sluiceml/sluice/example"
	"github.com/sluiceml/sluice/tensor"
	"github.com/sluiceml/sluice/tfrecord"
)

// The front-door workloads read the data as a user of the sluice package
// writes it: one data set, one range loop over batches of 128. With keep
// set (the headline rows), every batch has memory of its own, as every
// peer's batch has; without it the pipeline writes each batch into the
// last one's memory (sluice's default, the "reusing buffers" row).

// deterministic makes the Examples workloads' data sets Deterministic
// (-deterministic), as sluice from Python reads them with
// deterministic=True (bench/py/sluicepy.py --deterministic).
var deterministic bool

// pattern names a workload's files as a glob, the way a user names them.
func pattern(files []string) string {
	return filepath.Join(filepath.Dir(files[0]), "part-*")
}

// drain runs ds to its end in batches of batchSize, adding each batch's
// examples and the sum of the int64 (or int32, or uint8) feature check.
func drain(ctx context.Context, ds *sluice.Dataset, keep bool, check string, t *tally, use func(b *sluice.Batch)) error {
	var opts []sluice.BatchOption
	if keep {
		opts = append(opts, sluice.KeepBatches())
	}
	for b, err := range ds.Batches(ctx, batchSize, opts...) {
		if err != nil {
			return err
		}
		var sum int64
		switch v := b.Dense(check); v.DType() {
		case tensor.Int64:
			for _, x := range v.Int64s() {
				sum += x
			}
		case tensor.Int32:
			for _, x := range v.Int32s() {
				sum += int64(x)
			}
		case tensor.Uint8:
			for _, x := range v.Uint8s() {
				sum += int64(x)
			}
		default:
			return fmt.Errorf("check feature %q is %v", check, v.DType())
		}
		if use != nil {
			use(b)
		}
		t.examples.Add(int64(b.Len()))
		t.check.Add(sum)
	}
	return nil
}

// addFileBytes counts the bytes of the files read once: the data sets'
// records are the files less their framing, and MB/s for decoded workloads
// is of the input read.
func addFileBytes(files []string, passes int, t *tally) error {
	for _, f := range files {
		fi, err := os.Stat(f)
		if err != nil {
			return err
		}
		t.bytes.Add(int64(passes) * fi.Size())
	}
	return nil
}

// apiExamples reads Examples parsed by spec, for epochs epochs, shuffled as
// the seed pipeline is when shuffle is set.
func apiExamples(spec example.Spec, check string, epochs int, shuffle bool) func(ctx context.Context, files []string, keep bool, t *tally) error {
	return func(ctx context.Context, files []string, keep bool, t *tally) error {
		opts := []sluice.ExampleOption{sluice.Epochs(epochs)}
		if deterministic {
			opts = append(opts, sluice.Deterministic())
		}
		if shuffle {
			// The seed pipeline: files reshuffled per epoch, two readers
			// sharing them, a 10 000-example shuffle buffer.
			opts = append(opts, sluice.Shuffle(10000), sluice.Seed(42), sluice.Readers(2))
		}
		ds := sluice.Examples(pattern(files), spec, opts...)
		if err := drain(ctx, ds, keep, check, t, nil); err != nil {
			return err
		}
		return addFileBytes(files, epochs, t)
	}
}

func apiCSV(ctx context.Context, files []string, keep bool, t *tally) error {
	cols := []sluice.Column{
		sluice.Col("a", decode.Float32Column(0)), sluice.Col("b", decode.Float32Column(0)),
		sluice.Col("c", decode.Float32Column(0)), sluice.Col("d", decode.Float32Column(0)),
		sluice.Col("label", decode.Int32Column(0)),
	}
	if err := drain(ctx, sluice.CSV(pattern(files), cols), keep, "label", t, nil); err != nil {
		return err
	}
	return addFileBytes(files, 1, t)
}

// apiCIFAR reads CIFAR-10 records with the image's planes reordered into
// height × width × channels per record, as the peers' transpose does.
func apiCIFAR(ctx context.Context, files []string, keep bool, t *tally) error {
	fields := []sluice.Field{
		{Name: "label", Offset: 0, Size: 1, DType: tensor.Uint8, Shape: []int{}},
		{Name: "image", Offset: 1, Size: 3072, DType: tensor.Uint8, Shape: []int{3, 32, 32}, Transpose: []int{1, 2, 0}},
	}
	if err := drain(ctx, sluice.FixedLengthRecords(pattern(files), cifarRecord, fields), keep, "label", t, nil); err != nil {
		return err
	}
	return addFileBytes(files, 1, t)
}

// framingBatches is framing as the peers' batches of records are made:
// each record of a batch of 1024 copied into memory of its own (keep), as a
// Python bytes object or a string tensor's element is, or into one arena
// reused batch after batch.
func framingBatches(ctx context.Context, files []string, keep bool, t *tally) error {
	const framingBatch = 1024
	return parallelFiles(ctx, files, func() func(string) error {
		var r *tfrecord.Reader
		var arena []byte
		recs := make([][]byte, 0, framingBatch)
		return func(name string) error {
			f, err := os.Open(name)
			if err != nil {
				return err
			}
			defer f.Close()
			r = readerOn(r, f, name)
			flush := func() {
				var n int64
				for _, rec := range recs {
					n += int64(len(rec))
				}
				t.examples.Add(int64(len(recs)))
				t.bytes.Add(n)
				t.check.Add(n)
				recs, arena = recs[:0], arena[:0]
			}
			for rec, err := range r.All() {
				if err != nil {
					return err
				}
				if keep {
					recs = append(recs, bytes.Clone(rec))
				} else {
					if len(arena)+len(rec) > cap(arena) {
						// Records already in the batch keep the old arena
						// alive until the batch is flushed.
						arena = make([]byte, 0, max(2*cap(arena), len(arena)+len(rec), 64<<10))
					}
					start := len(arena)
					arena = append(arena, rec...)
					recs = append(recs, arena[start:len(arena):len(arena)])
				}
				if len(recs) == framingBatch {
					flush()
				}
			}
			if len(recs) > 0 {
				flush()
			}
			return nil
		}
	})
}
