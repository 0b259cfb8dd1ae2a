package tfrecord_test

import (
	"bytes"
	stdgzip "compress/gzip"
	stdzlib "compress/zlib"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"testing"

	kgzip "github.com/klauspost/compress/gzip"
	kzlib "github.com/klauspost/compress/zlib"

	"github.com/sluiceml/sluice/tfrecord"
)

// benchStream returns a stream of records of the given size, about 32 MiB
// uncompressed, with compressible but not trivial contents.
func benchStream(b testing.TB, c tfrecord.Compression, size int) []byte {
	b.Helper()
	n := max(1, (32<<20)/(size+16))
	rec := make([]byte, size)
	for i := range rec {
		rec[i] = byte(i*i>>3) & 0x3f
	}
	var buf bytes.Buffer
	w := tfrecord.NewWriter(&buf, c)
	for i := range n {
		if size > 0 {
			rec[0] = byte(i)
		}
		w.Write(rec)
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}

// benchRead reads one record per iteration, starting the stream over at
// its end.
func benchRead(b *testing.B, data []byte, size int, opts ...tfrecord.Option) {
	b.ReportAllocs()
	b.SetBytes(int64(size))
	br := bytes.NewReader(data)
	r := tfrecord.NewReader(br, opts...)
	b.ResetTimer()
	for b.Loop() {
		_, err := r.Next()
		if err == io.EOF {
			r.Close()
			br.Reset(data)
			r = tfrecord.NewReader(br, opts...)
			_, err = r.Next()
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	r.Close()
}

var benchSizes = []struct {
	name string
	size int
}{{"100B", 100}, {"1KB", 1000}, {"100KB", 100_000}}

func BenchmarkRead(b *testing.B) {
	for _, s := range benchSizes {
		b.Run(s.name, func(b *testing.B) {
			benchRead(b, benchStream(b, tfrecord.None, s.size), s.size)
		})
	}
	b.Run("100KB/SkipDataCRC", func(b *testing.B) {
		benchRead(b, benchStream(b, tfrecord.None, 100_000), 100_000, tfrecord.SkipDataCRC())
	})
}

func BenchmarkReadCompressed(b *testing.B) {
	for _, c := range []tfrecord.Compression{tfrecord.Gzip, tfrecord.Zlib, tfrecord.Zstd} {
		for _, s := range benchSizes[1:] {
			b.Run(fmt.Sprintf("%v/%s", c, s.name), func(b *testing.B) {
				benchRead(b, benchStream(b, c, s.size), s.size, c)
			})
		}
	}
}

// BenchmarkSmallStreams reads many small compressed streams, 10 records
// of 1 KB each, through one Reader: a data set of many small files, where
// setting up each stream's decompressor is a share of the work.
func BenchmarkSmallStreams(b *testing.B) {
	for _, c := range []tfrecord.Compression{tfrecord.Gzip, tfrecord.Zlib, tfrecord.Zstd} {
		b.Run(c.String(), func(b *testing.B) {
			var buf bytes.Buffer
			w := tfrecord.NewWriter(&buf, c)
			rec := make([]byte, 1000)
			for i := range 10 {
				rec[0] = byte(i)
				w.Write(rec)
			}
			w.Close()
			data := buf.Bytes()
			b.ReportAllocs()
			b.SetBytes(10 * 1000)
			r := tfrecord.NewReader(bytes.NewReader(nil), c)
			for b.Loop() {
				r.ResetBytes(data, c)
				for {
					if _, err := r.Next(); err == io.EOF {
						break
					} else if err != nil {
						b.Fatal(err)
					}
				}
			}
			r.Close()
		})
	}
}

func BenchmarkWrite(b *testing.B) {
	for _, c := range compressions {
		for _, s := range benchSizes {
			b.Run(fmt.Sprintf("%v/%s", c, s.name), func(b *testing.B) {
				rec := make([]byte, s.size)
				for i := range rec {
					rec[i] = byte(i*i>>3) & 0x3f
				}
				b.ReportAllocs()
				b.SetBytes(int64(s.size))
				w := tfrecord.NewWriter(io.Discard, c)
				for b.Loop() {
					if err := w.Write(rec); err != nil {
						b.Fatal(err)
					}
				}
				w.Close()
			})
		}
	}
}

// BenchmarkCodec compares klauspost/compress with the standard library on
// a TFRecord stream of 1 KB records, to justify the choice in compress.go.
func BenchmarkCodec(b *testing.B) {
	// Real data compresses like real data: MNIST Examples (float pixels)
	// when the interop file is present, else skewed pseudo-random bytes.
	raw, err := os.ReadFile("../../shared/interop/mnist-1000.tfrecord")
	if err != nil {
		rng := rand.New(rand.NewPCG(3, 4))
		raw = make([]byte, 4<<20)
		for i := range raw {
			raw[i] = byte(rng.ExpFloat64() * 12)
		}
	}
	type codec struct {
		name string
		enc  func(io.Writer) io.WriteCloser
		dec  func(io.Reader) (io.Reader, error)
	}
	codecs := []codec{
		{"gzip/klauspost", func(w io.Writer) io.WriteCloser { return kgzip.NewWriter(w) }, func(r io.Reader) (io.Reader, error) { return kgzip.NewReader(r) }},
		{"gzip/stdlib", func(w io.Writer) io.WriteCloser { return stdgzip.NewWriter(w) }, func(r io.Reader) (io.Reader, error) { return stdgzip.NewReader(r) }},
		{"zlib/klauspost", func(w io.Writer) io.WriteCloser { return kzlib.NewWriter(w) }, func(r io.Reader) (io.Reader, error) { return kzlib.NewReader(r) }},
		{"zlib/stdlib", func(w io.Writer) io.WriteCloser { return stdzlib.NewWriter(w) }, func(r io.Reader) (io.Reader, error) { return stdzlib.NewReader(r) }},
	}
	for _, c := range codecs {
		var comp bytes.Buffer
		w := c.enc(&comp)
		w.Write(raw)
		w.Close()
		b.Run("decode/"+c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(raw)))
			for b.Loop() {
				r, err := c.dec(bytes.NewReader(comp.Bytes()))
				if err != nil {
					b.Fatal(err)
				}
				if _, err := io.Copy(io.Discard, r); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("encode/"+c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(raw)))
			for b.Loop() {
				w := c.enc(io.Discard)
				w.Write(raw)
				w.Close()
			}
			b.ReportMetric(float64(comp.Len())/float64(len(raw)), "ratio")
		})
	}
}

// TestWriteBenchFiles writes the files tools/tfref/tfrecord_bench.py times
// TensorFlow on, when SLUICE_BENCH_OUT names a directory.
func TestWriteBenchFiles(t *testing.T) {
	dir := os.Getenv("SLUICE_BENCH_OUT")
	if dir == "" {
		t.Skip("SLUICE_BENCH_OUT not set")
	}
	for _, s := range []struct {
		name string
		size int
		c    tfrecord.Compression
	}{{"bench_100B.tfrecord", 100, tfrecord.None}, {"bench_100KB.tfrecord", 100_000, tfrecord.None}, {"bench_1KB.tfrecord.gz", 1000, tfrecord.Gzip}} {
		if err := os.WriteFile(dir+"/"+s.name, benchStream(t, s.c, s.size), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// BenchmarkReadFile reads the files of TestWriteBenchFiles from disk (the
// page cache), as TensorFlow's TFRecordDataset does, for the comparison in
// tools/tfref/tfrecord_bench.py. One iteration reads the whole file.
func BenchmarkReadFile(b *testing.B) {
	dir := os.Getenv("SLUICE_BENCH_OUT")
	if dir == "" {
		b.Skip("SLUICE_BENCH_OUT not set")
	}
	for _, s := range []struct {
		name string
		c    tfrecord.Compression
	}{{"bench_100B.tfrecord", tfrecord.None}, {"bench_100KB.tfrecord", tfrecord.None}, {"bench_1KB.tfrecord.gz", tfrecord.Gzip}} {
		b.Run(s.name, func(b *testing.B) {
			b.ReportAllocs()
			var n int
			for b.Loop() {
				f, err := os.Open(dir + "/" + s.name)
				if err != nil {
					b.Fatal(err)
				}
				r := tfrecord.NewReader(f, s.c)
				n = 0
				for _, err := range r.All() {
					if err != nil {
						b.Fatal(err)
					}
					n++
				}
				r.Close()
				f.Close()
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
		})
	}
}
