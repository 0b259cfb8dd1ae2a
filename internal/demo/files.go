package demo

import (
	"bufio"
	"context"
	"fmt"
	"path/filepath"

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

// writeShards creates shards files named prefix-0000k-of-0000n followed by
// ext and calls write for each with the range of images that shard holds,
// in order.
func writeShards(ctx context.Context, dir, prefix, ext string, shards int, s Split, write func(f *bufio.Writer, lo, hi int) error) ([]string, error) {
	names := recordio.ShardNames(filepath.Join(dir, prefix), max(1, min(shards, s.Len())), ext)
	n := s.Len()
	files := make([]*storage.Pending, 0, len(names))
	defer func() {
		for _, f := range files {
			f.Abort() // does nothing once committed
		}
	}()
	for k, name := range names {
		f, err := storage.CreatePending(ctx, name)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
		w := bufio.NewWriterSize(f, 1<<16)
		err = write(w, k*n/len(names), (k+1)*n/len(names))
		if err == nil {
			err = w.Flush()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	if err := storage.CommitAll(files); err != nil {
		return nil, err
	}
	return names, nil
}

// writeTFRecordShards writes s as tf.train.Example records into shards
// files named prefix-0000k-of-0000n.tfrecord[.gz], image i in file i mod
// shards.
func writeTFRecordShards(ctx context.Context, dir, prefix string, shards int, c tfrecord.Compression, l cifar10.Layout, s Split) ([]string, error) {
	ext := ".tfrecord"
	if c == tfrecord.Gzip {
		ext += ".gz"
	}
	w, err := recordio.NewShardedWriter(ctx, recordio.ShardNames(filepath.Join(dir, prefix), max(1, min(shards, s.Len())), ext), c)
	if err != nil {
		return nil, err
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
		if err := w.Write(buf); err != nil {
			w.Abort()
			return nil, err
		}
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return w.Names(), nil
}

// writeFixedLength writes s as CIFAR-10-style fixed-length records (a label
// byte, then the image in channel-major order) into shards files named
// prefix-0000k-of-0000n.bin.
func writeFixedLength(ctx context.Context, dir, prefix string, shards int, l cifar10.Layout, s Split) ([]string, error) {
	ib := l.ImageBytes()
	return writeShards(ctx, dir, prefix, ".bin", shards, s, func(f *bufio.Writer, lo, hi int) error {
		w, err := cifar10.NewWriter(f, l)
		if err != nil {
			return err
		}
		for i := lo; i < hi; i++ {
			if err := w.Write(s.Labels[i:i+1], s.Images[i*ib:(i+1)*ib]); err != nil {
				return err
			}
		}
		return nil
	})
}
