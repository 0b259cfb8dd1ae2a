package recordio_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/recordio"
	"github.com/sluiceml/sluice/tensor"
	"github.com/sluiceml/sluice/tfrecord"
)

// filenameQueue returns a closed queue of file names, as an input
// producer would fill it.
func filenameQueue(names ...string) queue.Queue {
	q, err := queue.NewFIFO(max(len(names), 1), []tensor.DType{tensor.String}, queue.Shapes(tensor.Shape{}))
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	q.EnqueueMany(ctx, queue.Element{tensor.Strings(names...)})
	q.Close(ctx)
	return q
}

// writeExampleFile writes records to a GZIP-compressed TFRecord file.
func writeExampleFile(dir, name string, records ...string) string {
	f, err := os.Create(filepath.Join(dir, name))
	if err != nil {
		panic(err)
	}
	w := tfrecord.NewWriter(f, tfrecord.Gzip)
	for _, r := range records {
		w.Write([]byte(r))
	}
	if err := w.Close(); err != nil {
		panic(err)
	}
	f.Close()
	return f.Name()
}

// Reading TFRecord files through a filename queue: the reader takes a file
// when it needs one, and Read returns io.EOF once the queue is closed and
// drained. Keys are "file:offset", offsets in the uncompressed stream.
func ExampleNewTFRecordReader() {
	dir, _ := os.MkdirTemp("", "recordio")
	defer os.RemoveAll(dir)
	a := writeExampleFile(dir, "a.tfrecord.gz", "first", "second")
	b := writeExampleFile(dir, "b.tfrecord.gz", "third")

	ctx := context.Background()
	r := recordio.NewTFRecordReader(filenameQueue(a, b), tfrecord.Gzip)
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
	fmt.Println(r.NumRecordsProduced(), "records,", r.NumWorkUnitsCompleted(), "files")
	// Output:
	// a.tfrecord.gz:0 first
	// a.tfrecord.gz:21 second
	// b.tfrecord.gz:0 third
	// 3 records, 2 files
}

// ReadUpTo batches records but never mixes two files in one batch.
func ExampleReader_ReadUpTo() {
	dir, _ := os.MkdirTemp("", "recordio")
	defer os.RemoveAll(dir)
	a := filepath.Join(dir, "a.txt")
	b := filepath.Join(dir, "b.txt")
	os.WriteFile(a, []byte("id,name\n1,ada\n2,bob\n3,cy\n"), 0o644)
	os.WriteFile(b, []byte("id,name\n4,dee\r\n5,eve"), 0o644)

	r, _ := recordio.NewTextLineReader(filenameQueue(a, b), recordio.SkipHeaderLines(1))
	for {
		keys, values, err := r.ReadUpTo(context.Background(), 2)
		if err != nil {
			break
		}
		fmt.Printf("%d: %s ... %q\n", len(keys), filepath.Base(keys[0]), values)
	}
	// Output:
	// 2: a.txt:2 ... ["1,ada" "2,bob"]
	// 1: a.txt:4 ... ["3,cy"]
	// 2: b.txt:2 ... ["4,dee" "5,eve"]
}

// A saved state resumes at the exact next record, here in the middle of a
// file of fixed-length records.
func ExampleReader_SerializeState() {
	dir, _ := os.MkdirTemp("", "recordio")
	defer os.RemoveAll(dir)
	name := filepath.Join(dir, "records.bin")
	os.WriteFile(name, []byte("HDRaaabbbcccddd"), 0o644)
	ctx := context.Background()

	r, _ := recordio.NewFixedLengthRecordReader(filenameQueue(name), 3, recordio.HeaderBytes(3))
	r.Read(ctx)
	r.Read(ctx)
	state, _ := r.SerializeState()

	// Later, perhaps in another process: the unit in progress is part of
	// the state, so the new reader's queue does not hold it.
	r2, _ := recordio.NewFixedLengthRecordReader(filenameQueue(), 3, recordio.HeaderBytes(3))
	if err := r2.RestoreState(ctx, state); err != nil {
		fmt.Println(err)
		return
	}
	for {
		key, value, err := r2.Read(ctx)
		if err != nil {
			break
		}
		fmt.Println(filepath.Base(key), string(value))
	}
	fmt.Println(r2.NumRecordsProduced(), "records in all")
	// Output:
	// records.bin:2 ccc
	// records.bin:3 ddd
	// 4 records in all
}
