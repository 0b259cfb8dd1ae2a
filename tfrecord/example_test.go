package tfrecord_test

import (
	"bytes"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/sluiceml/sluice/tfrecord"
)

// Write a file of records, then read it back with the offsets TensorFlow
// uses in its "file:offset" keys.
func Example() {
	dir, err := os.MkdirTemp("", "tfrecord-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	name := filepath.Join(dir, "data.tfrecord")

	f, err := os.Create(name)
	if err != nil {
		log.Fatal(err)
	}
	w := tfrecord.NewWriter(f)
	for _, rec := range []string{"first", "second", "third"} {
		if err := w.Write([]byte(rec)); err != nil {
			log.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}

	f, err = os.Open(name)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	r := tfrecord.NewReader(f, tfrecord.Name(name))
	for rec, err := range r.All() {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("data.tfrecord:%d %s\n", r.Offset(), rec)
	}
	// Output:
	// data.tfrecord:0 first
	// data.tfrecord:21 second
	// data.tfrecord:43 third
}

// Read a GZIP-compressed stream; offsets count uncompressed bytes.
func ExampleNewReader_gzip() {
	var buf bytes.Buffer
	w := tfrecord.NewWriter(&buf, tfrecord.Gzip)
	w.Write([]byte("hello"))
	w.Write([]byte("world"))
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}

	c := tfrecord.DetectCompression(buf.Bytes()[:16])
	r := tfrecord.NewReader(&buf, c)
	defer r.Close()
	for {
		rec, err := r.Next()
		if err != nil {
			fmt.Println(c, err) // io.EOF at a clean end
			break
		}
		fmt.Println(r.Offset(), string(rec))
	}
	// Output:
	// 0 hello
	// 21 world
	// GZIP EOF
}

// Corrupt records can be skipped and counted instead of failing the read.
func ExampleSkipCorrupt() {
	var buf bytes.Buffer
	w := tfrecord.NewWriter(&buf)
	for _, s := range []string{"one", "two", "three"} {
		w.Write([]byte(s))
	}
	w.Close()
	data := buf.Bytes()
	data[19+12] ^= 1 // damage the data of the second record

	r := tfrecord.NewReader(bytes.NewReader(data), tfrecord.SkipCorrupt())
	for rec, err := range r.All() {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(string(rec))
	}
	fmt.Printf("%+v\n", r.Stats())
	// Output:
	// one
	// three
	// {Records:2 Skipped:1 SkippedBytes:19}
}

func ExampleParseCompression() {
	for _, s := range []string{"", "GZIP", "gzip"} {
		c, err := tfrecord.ParseCompression(s)
		fmt.Println(c, err)
	}
	// Output:
	// NONE <nil>
	// GZIP <nil>
	// NONE tfrecord: unknown compression type "gzip" (want "", NONE, ZLIB, GZIP or ZSTD)
}
