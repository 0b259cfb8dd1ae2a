package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/sluiceml/sluice"
	"github.com/sluiceml/sluice/decode"
	"github.com/sluiceml/sluice/example"
	"github.com/sluiceml/sluice/tensor"
)

// The front-door workloads read the data as a user of the sluice package
// writes it: one data set, one range loop over batches of 128 (framing:
// sluice.Records, batches of 1024 records). With keep
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
// examples and the sum of the int64 (or int32, or uint8) feature check. It
// returns the examples of the pass.
func drain(ctx context.Context, ds *sluice.Dataset, keep bool, check string, t *tally, use func(b *sluice.Batch)) (int64, error) {
	var opts []sluice.BatchOption
	if keep {
		opts = append(opts, sluice.KeepBatches())
	}
	var n int64
	for b, err := range ds.Batches(ctx, batchSize, opts...) {
		if err != nil {
			return n, err
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
			return n, fmt.Errorf("check feature %q is %v", check, v.DType())
		}
		if use != nil {
			use(b)
		}
		n += int64(b.Len())
		t.examples.Add(int64(b.Len()))
		t.check.Add(sum)
	}
	return n, nil
}

// The bytes of framing around each record in the workloads' files: a
// TFRecord's length, its CRC and its data's CRC; a CSV line's newline.
// Fixed-length records have none.
const (
	tfrecordFraming = 16
	csvFraming      = 1
)

// addRecordBytes counts the bytes of the records of a pass that read
// the files epochs times and delivered examples records: the files' size
// less each record's framing. The MB/s of every system is of the records'
// bytes (the library path, tf.data and the TF queues count them as they
// read them), not of the files with their framing.
func addRecordBytes(files []string, epochs int, framing, examples int64, t *tally) error {
	var size int64
	for _, f := range files {
		fi, err := os.Stat(f)
		if err != nil {
			return err
		}
		size += fi.Size()
	}
	t.bytes.Add(int64(epochs)*size - framing*examples)
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
		n, err := drain(ctx, ds, keep, check, t, nil)
		if err != nil {
			return err
		}
		return addRecordBytes(files, epochs, tfrecordFraming, n, t)
	}
}

func apiCSV(ctx context.Context, files []string, keep bool, t *tally) error {
	cols := []sluice.Column{
		sluice.Col("a", decode.Float32Column(0)), sluice.Col("b", decode.Float32Column(0)),
		sluice.Col("c", decode.Float32Column(0)), sluice.Col("d", decode.Float32Column(0)),
		sluice.Col("label", decode.Int32Column(0)),
	}
	n, err := drain(ctx, sluice.CSV(pattern(files), cols), keep, "label", t, nil)
	if err != nil {
		return err
	}
	return addRecordBytes(files, 1, csvFraming, n, t)
}

// apiCIFAR reads CIFAR-10 records with the image's planes reordered into
// height × width × channels per record, as the peers' transpose does.
func apiCIFAR(ctx context.Context, files []string, keep bool, t *tally) error {
	fields := []sluice.Field{
		{Name: "label", Offset: 0, Size: 1, DType: tensor.Uint8, Shape: []int{}},
		{Name: "image", Offset: 1, Size: 3072, DType: tensor.Uint8, Shape: []int{3, 32, 32}, Transpose: []int{1, 2, 0}},
	}
	n, err := drain(ctx, sluice.FixedLengthRecords(pattern(files), cifarRecord, fields), keep, "label", t, nil)
	if err != nil {
		return err
	}
	return addRecordBytes(files, 1, 0, n, t)
}

// apiRecords is framing as a user of the sluice package writes it:
// sluice.Records over the files' glob, batches of 1024 records, each
// batch's records in memory of its own with keep (as a Python bytes object
// or a string tensor's element is), or written into the last batch's
// memory without it. Both CRCs of every record are checked; the check is
// the records' byte count.
func apiRecords(ctx context.Context, files []string, keep bool, t *tally) error {
	const framingBatch = 1024
	var opts []sluice.BatchOption
	if keep {
		opts = append(opts, sluice.KeepBatches())
	}
	for b, err := range sluice.Records(pattern(files)).Batches(ctx, framingBatch, opts...) {
		if err != nil {
			return err
		}
		var n int64
		for _, rec := range b.Bytes(sluice.RecordFeature) {
			n += int64(len(rec))
		}
		t.examples.Add(int64(b.Len()))
		t.bytes.Add(n)
		t.check.Add(n)
	}
	return nil
}
