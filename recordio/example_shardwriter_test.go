package recordio_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/sluiceml/sluice/recordio"
	"github.com/sluiceml/sluice/tfrecord"
)

// Writing a data set as three GZIP TFRecord shards, then reading it back
// through a filename queue: the records were dealt round-robin, so each
// file holds every third one.
func ExampleNewShardedWriter() {
	dir, _ := os.MkdirTemp("", "recordio")
	defer os.RemoveAll(dir)
	ctx := context.Background()

	names := recordio.ShardNames(filepath.Join(dir, "train"), 3, ".tfrecord.gz")
	w, err := recordio.NewShardedWriter(ctx, names, tfrecord.Gzip)
	if err != nil {
		fmt.Println(err)
		return
	}
	for i := range 7 {
		if err := w.Write(fmt.Appendf(nil, "example %d", i)); err != nil {
			fmt.Println(err)
			return
		}
	}
	// Close completes the files; only its error says they are whole.
	if err := w.Close(); err != nil {
		fmt.Println(err)
		return
	}

	r := recordio.NewTFRecordReader(filenameQueue(names...), tfrecord.Gzip)
	for {
		key, value, err := r.Read(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s %s\n", filepath.Base(key), value)
	}
	// Output:
	// train-00000-of-00003.tfrecord.gz:0 example 0
	// train-00000-of-00003.tfrecord.gz:25 example 3
	// train-00000-of-00003.tfrecord.gz:50 example 6
	// train-00001-of-00003.tfrecord.gz:0 example 1
	// train-00001-of-00003.tfrecord.gz:25 example 4
	// train-00002-of-00003.tfrecord.gz:0 example 2
	// train-00002-of-00003.tfrecord.gz:25 example 5
}
