package recordio

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tensor"
	"github.com/sluiceml/sluice/tfrecord"
)

// benchFiles writes n copies of data and returns a closed queue of names
// factory, one new queue per iteration.
func benchUnits(b *testing.B, data []byte, n int) func() queue.Queue {
	dir := b.TempDir()
	var names []string
	for i := range n {
		p := filepath.Join(dir, fmt.Sprint(i))
		if err := os.WriteFile(p, data, 0o644); err != nil {
			b.Fatal(err)
		}
		names = append(names, p)
	}
	return func() queue.Queue {
		q, _ := queue.NewFIFO(n, []tensor.DType{tensor.String}, queue.Shapes(tensor.Shape{}))
		q.EnqueueMany(bg, queue.Element{tensor.Strings(names...)})
		q.Close(bg)
		return q
	}
}

func drainReader(b *testing.B, r *Reader) int {
	n := 0
	for {
		_, _, err := r.Read(bg)
		if err != nil {
			return n
		}
		n++
	}
}

// Text lines per second through Read and through ReadUpTo(1024), the
// inputs of tools/tfref/readers.py bench.
func BenchmarkTextLine(b *testing.B) {
	line := "1.25,3.5,7,0.125,42\n"
	data := []byte(strings.Repeat(line, 100000))
	units := benchUnits(b, data, 4)
	b.Run("Read", func(b *testing.B) {
		b.SetBytes(int64(len(data) * 4))
		b.ReportAllocs()
		lines := 0
		for b.Loop() {
			r, _ := NewTextLineReader(units())
			lines += drainReader(b, r)
		}
		b.ReportMetric(float64(lines)/b.Elapsed().Seconds(), "lines/s")
	})
	b.Run("ReadUpTo1024", func(b *testing.B) {
		b.SetBytes(int64(len(data) * 4))
		b.ReportAllocs()
		lines := 0
		for b.Loop() {
			r, _ := NewTextLineReader(units())
			for {
				keys, _, err := r.ReadUpTo(bg, 1024)
				if err != nil {
					break
				}
				lines += len(keys)
			}
		}
		b.ReportMetric(float64(lines)/b.Elapsed().Seconds(), "lines/s")
	})
	// The same lines GZIP and ZSTD compressed; MB/s counts the text.
	for _, c := range []tfrecord.Compression{tfrecord.Gzip, tfrecord.Zstd} {
		var packed bytes.Buffer
		w, err := tfrecord.NewCompressor(c, &packed)
		if err == nil {
			_, err = w.Write(data)
		}
		if err == nil {
			err = w.Close()
		}
		if err != nil {
			b.Fatal(err)
		}
		units := benchUnits(b, packed.Bytes(), 4)
		b.Run("Read"+c.String(), func(b *testing.B) {
			b.SetBytes(int64(len(data) * 4))
			b.ReportAllocs()
			lines := 0
			for b.Loop() {
				r, _ := NewTextLineReader(units(), Compression(c))
				lines += drainReader(b, r)
			}
			b.ReportMetric(float64(lines)/b.Elapsed().Seconds(), "lines/s")
		})
	}
}

func BenchmarkFixedLength(b *testing.B) {
	data := make([]byte, 3073*2000)
	units := benchUnits(b, data, 4)
	b.SetBytes(int64(len(data) * 4))
	b.ReportAllocs()
	recs := 0
	for b.Loop() {
		r, _ := NewFixedLengthRecordReader(units(), 3073)
		recs += drainReader(b, r)
	}
	b.ReportMetric(float64(recs)/b.Elapsed().Seconds(), "records/s")
}

// The queue-driven TFRecord reader against tfrecord.Reader alone, for the
// reader protocol's overhead per record.
func BenchmarkTFRecord100B(b *testing.B) {
	var buf bytes.Buffer
	w := tfrecord.NewWriter(&buf, tfrecord.None)
	rec := make([]byte, 100)
	for range 100000 {
		w.Write(rec)
	}
	w.Close()
	data := buf.Bytes()
	b.Run("recordio", func(b *testing.B) {
		units := benchUnits(b, data, 1)
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		n := 0
		for b.Loop() {
			n += drainReader(b, NewTFRecordReader(units(), tfrecord.None))
		}
		b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "records/s")
	})
	b.Run("tfrecord", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		n := 0
		for b.Loop() {
			r := tfrecord.NewReader(bytes.NewReader(data))
			for {
				if _, err := r.Next(); err != nil {
					break
				}
				n++
			}
		}
		b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "records/s")
	})
}

// BenchmarkShardedWriter writes 1 KiB records into 4 local shards; the
// figure includes creating and closing the files each iteration.
func BenchmarkShardedWriter(b *testing.B) {
	rec := bytes.Repeat([]byte("sluice, "), 128)
	const records = 4096
	for _, c := range []tfrecord.Compression{tfrecord.None, tfrecord.Gzip} {
		b.Run(c.String(), func(b *testing.B) {
			names := ShardNames(filepath.Join(b.TempDir(), "part"), 4, ".tfrecord")
			b.SetBytes(records * int64(len(rec)))
			b.ReportAllocs()
			for b.Loop() {
				w, err := NewShardedWriter(bg, names, c)
				if err != nil {
					b.Fatal(err)
				}
				for range records {
					if err := w.Write(rec); err != nil {
						b.Fatal(err)
					}
				}
				if err := w.Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
