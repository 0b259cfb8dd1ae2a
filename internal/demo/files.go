package demo

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/sluiceml/sluice/datasets/cifar10"
	"github.com/sluiceml/sluice/datasets/mnist"
	"github.com/sluiceml/sluice/example"
	"github.com/sluiceml/sluice/recordio"
	"github.com/sluiceml/sluice/storage"
	"github.com/sluiceml/sluice/tfrecord"
)

// The training pipeline reads Examples with the features TensorFlow's
// convert_to_records.py writes for MNIST: height, width, depth, label and
// image_raw (the pixels in height, width, channel order).

// An outputSet holds the files of all the demo's outputs under their
// temporary names until commit gives them their names together. Committed
// one output at a time, a signal between two commits would leave some
// outputs under their final names beside an earlier run's others, which a
// reader could not tell from one complete set.
type outputSet struct {
	ctx   context.Context
	files []*storage.Pending
}

// create starts the file name under a temporary name.
func (o *outputSet) create(name string) (*storage.Pending, error) {
	f, err := storage.CreatePending(o.ctx, name)
	if err != nil {
		return nil, err
	}
	o.files = append(o.files, f)
	return f, nil
}

// commit gives every file its final name, or, if any failed to close or
// the context has ended, removes them all (see storage.CommitAll).
func (o *outputSet) commit() error { return storage.CommitAll(o.files) }

// abort removes the temporaries; it leaves committed files alone.
func (o *outputSet) abort() {
	for _, f := range o.files {
		f.Abort()
	}
}

// demoLeftovers returns the temporaries beside the files any run of the
// demo writes in dir, whatever its shard count (demoPatterns): those of
// this run's outputs, or left by earlier runs that were killed; sorted.
func demoLeftovers(ctx context.Context, dir string) ([]string, error) {
	var all []string
	for _, out := range []struct {
		prefix string
		exts   []string
	}{{"train", []string{".tfrecord.gz", ".bin"}}, {"test", []string{".tfrecord", ".bin"}}} {
		left, err := storage.LeftoversOf(ctx, filepath.Join(dir, out.prefix), out.exts...)
		if err != nil {
			return nil, err
		}
		all = append(all, left...)
	}
	slices.Sort(all)
	return all, nil
}

// removeLeftovers removes the temporaries that killed runs of the demo
// left in dir and returns them: they are incomplete by construction, and
// verify would report them for good. Those a running process writes (a
// demo writing to the same --dir) make it refuse instead, leaving dir as
// it was, as convert does: the two runs' commits would replace each
// other's files, and the outputs could come from both.
func removeLeftovers(ctx context.Context, dir string) ([]string, error) {
	left, err := demoLeftovers(ctx, dir)
	if err != nil {
		return nil, err
	}
	removed, _, err := storage.RemoveLeftovers(ctx, left)
	return removed, writerError(dir, err)
}

// refuseOtherWriters returns the error of removeLeftovers for a running
// writer of the demo's files other than o's. Called once o's temporaries
// exist, it makes at least one of two runs started together refuse.
func (o *outputSet) refuseOtherWriters(dir string) error {
	left, err := demoLeftovers(o.ctx, dir)
	if err != nil {
		return err
	}
	own := make([]string, len(o.files))
	for i, f := range o.files {
		own[i] = f.TempName()
	}
	return writerError(dir, storage.RefuseWriters(o.ctx, left, own))
}

// writerError says err, when a running process writes a temporary of the
// demo's files in dir, as that.
func writerError(dir string, err error) error {
	var running *storage.WriterRunningError
	if errors.As(err, &running) {
		return fmt.Errorf("demo: another run is writing the data in %s (a running process holds %s): let it finish, or stop it, or choose another --dir", dir, running.Temp)
	}
	return err
}

// shardNames returns the names of the shards of one output of s.
func shardNames(dir, prefix, ext string, shards int, s Split) []string {
	return recordio.ShardNames(filepath.Join(dir, prefix), max(1, min(shards, s.Len())), ext)
}

// writeTFRecordShards writes s as tf.train.Example records into shards
// files named prefix-0000k-of-0000n.tfrecord[.gz], image i in file i mod
// shards, under temporary names in o.
func writeTFRecordShards(o *outputSet, dir, prefix string, shards int, c tfrecord.Compression, l cifar10.Layout, s Split) ([]string, error) {
	ext := ".tfrecord"
	if c == tfrecord.Gzip {
		ext += ".gz"
	}
	names := shardNames(dir, prefix, ext, shards, s)
	files := make([]*storage.Pending, len(names))
	writers := make([]*tfrecord.Writer, len(names))
	for k, name := range names {
		f, err := o.create(name)
		if err != nil {
			return nil, err
		}
		files[k], writers[k] = f, tfrecord.NewWriter(f, c)
	}
	ib := l.ImageBytes()
	b := example.New()
	var buf []byte
	for i := range s.Len() {
		buf = b.Reset().
			Int64(mnist.FeatureHeight, int64(l.Height)).
			Int64(mnist.FeatureWidth, int64(l.Width)).
			Int64(mnist.FeatureDepth, int64(l.Depth)).
			Int64(mnist.FeatureLabel, int64(s.Labels[i])).
			Bytes(mnist.FeatureImageRaw, s.Images[i*ib:(i+1)*ib]).
			AppendMarshal(buf[:0])
		k := i % len(writers)
		if err := writers[k].Write(buf); err != nil {
			return nil, fmt.Errorf("%s: record %d: %w", names[k], i, err)
		}
	}
	for k, w := range writers {
		err := w.Close()
		if cerr := files[k].Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", names[k], err)
		}
	}
	return names, nil
}

// writeFixedLength writes s as CIFAR-10-style fixed-length records (a label
// byte, then the image in channel-major order) into shards files named
// prefix-0000k-of-0000n.bin, consecutive ranges of images, under temporary
// names in o.
func writeFixedLength(o *outputSet, dir, prefix string, shards int, l cifar10.Layout, s Split) ([]string, error) {
	ib := l.ImageBytes()
	names := shardNames(dir, prefix, ".bin", shards, s)
	n := s.Len()
	for k, name := range names {
		f, err := o.create(name)
		if err != nil {
			return nil, err
		}
		bw := bufio.NewWriterSize(f, 1<<16)
		w, err := cifar10.NewWriter(bw, l)
		for i := k * n / len(names); err == nil && i < (k+1)*n/len(names); i++ {
			err = w.Write(s.Labels[i:i+1], s.Images[i*ib:(i+1)*ib])
		}
		if err == nil {
			err = bw.Flush()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	return names, nil
}

// demoPatterns match the files any run of the demo writes, whatever its
// shard count.
var demoPatterns = []string{
	"train-[0-9]*-of-[0-9]*.tfrecord.gz",
	"test-[0-9]*-of-[0-9]*.tfrecord",
	"train-[0-9]*-of-[0-9]*.bin",
	"test-[0-9]*-of-[0-9]*.bin",
}

// otherFiles returns the files in dir named as the demo names its files
// that are not among written: those of an earlier run with another shard
// count or other data. They are left alone, since names of this form are
// also what converted data sets are often called, but reported, so that
// nobody takes them for part of this run's output.
func otherFiles(dir string, written []string) []string {
	var other []string
	for _, p := range demoPatterns {
		names, _ := filepath.Glob(filepath.Join(storage.QuoteMeta(dir), p))
		for _, n := range names {
			if !slices.Contains(written, n) {
				other = append(other, n)
			}
		}
	}
	slices.Sort(other)
	return other
}
