package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sluiceml/sluice/example"
	"github.com/sluiceml/sluice/tfrecord"
)

// mnistLike is an Example shaped like TFX's MNIST records: one label and
// 784 float pixels.
func mnistLike(i int) []byte {
	pix := make([]float32, 784)
	for j := range pix {
		pix[j] = float32((i+j)%256)/255 - 0.5
	}
	return example.New().Int64("image_class", int64(i%10)).Floats("image_floats", pix).Marshal()
}

// Rendering one Example as cat does, without I/O.
func BenchmarkRenderExample(b *testing.B) {
	rec := mnistLike(1)
	r := &recordRenderer{format: formatAuto}
	b.ReportAllocs()
	b.SetBytes(int64(len(rec)))
	for b.Loop() {
		if _, err := r.render([]byte("file.tfrecord:12345"), rec); err != nil {
			b.Fatal(err)
		}
	}
}

func benchFile(b *testing.B, n int, c tfrecord.Compression) (string, int64) {
	recs := make([][]byte, n)
	for i := range recs {
		recs[i] = mnistLike(i)
	}
	p := writeRecords(b, b.TempDir(), "bench.tfrecord", c, recs...)
	st, _ := os.Stat(p)
	return p, st.Size()
}

// Whole commands through Main, output discarded; bytes are the file's.
func BenchmarkCommand(b *testing.B) {
	p, size := benchFile(b, 2000, tfrecord.None)
	for _, args := range [][]string{{"count"}, {"verify"}, {"cat"}, {"cat", "--keys", "--format", "raw"}} {
		b.Run(strings.Join(args, "_"), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(size)
			for b.Loop() {
				if code := Main(b.Context(), append(args, p), io.Discard, io.Discard); code != 0 {
					b.Fatal(code)
				}
			}
		})
	}
}

// CSV → GZIP TFRecord, bytes of CSV input.
func BenchmarkConvertCSV(b *testing.B) {
	dir := b.TempDir()
	var sb strings.Builder
	sb.WriteString("id,score,name,count\n")
	for i := range 20000 {
		fmt.Fprintf(&sb, "%d,%g,name-%d,%d\n", i, float64(i)/7, i%97, i*3)
	}
	in := filepath.Join(dir, "in.csv")
	os.WriteFile(in, []byte(sb.String()), 0o644)
	b.ReportAllocs()
	b.SetBytes(int64(sb.Len()))
	for b.Loop() {
		if code := Main(b.Context(), []string{"convert", "--from", "csv", "--header", in, "--out", filepath.Join(dir, "out")}, io.Discard, io.Discard); code != 0 {
			b.Fatal(code)
		}
	}
}

// JSON lines → GZIP TFRecord, the same rows as BenchmarkConvertCSV's as
// objects, bytes of JSON input.
func BenchmarkConvertJSONL(b *testing.B) {
	dir := b.TempDir()
	var sb strings.Builder
	for i := range 20000 {
		fmt.Fprintf(&sb, `{"id": %d, "score": %g, "name": "name-%d", "count": %d}`+"\n", i, float64(i)/7, i%97, i*3)
	}
	in := filepath.Join(dir, "in.jsonl")
	os.WriteFile(in, []byte(sb.String()), 0o644)
	b.ReportAllocs()
	b.SetBytes(int64(sb.Len()))
	for b.Loop() {
		if code := Main(b.Context(), []string{"convert", "--from", "jsonl", in, "--out", filepath.Join(dir, "out")}, io.Discard, io.Discard); code != 0 {
			b.Fatal(code)
		}
	}
}

// TFRecord Examples → Parquet (convert --to parquet, SNAPPY pages): both
// passes, bytes of TFRecord input. Rows of an id, a score, a name and a
// list of eight floats.
func BenchmarkConvertToParquet(b *testing.B) {
	dir := b.TempDir()
	recs := make([][]byte, 20000)
	for i := range recs {
		recs[i] = example.New().Int64("id", int64(i)).Float("score", float32(i)/7).
			Strings("name", fmt.Sprint("name-", i%97)).Floats("v", make([]float32, 8)).Marshal()
	}
	in := writeRecords(b, dir, "in.tfrecord", tfrecord.None, recs...)
	st, _ := os.Stat(in)
	b.ReportAllocs()
	b.SetBytes(st.Size())
	for b.Loop() {
		if code := Main(b.Context(), []string{"convert", "--to", "parquet", in, "--out", filepath.Join(dir, "out")}, io.Discard, io.Discard); code != 0 {
			b.Fatal(code)
		}
	}
}

// bench --parse parses a batch of records at a time with a parser
// compiled once, as a training job's pipeline does, so parsing adds next
// to no allocation per record to reading: rendering records as text, or
// parsing them one at a time, would add several.
func TestBenchParseAllocations(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 20000 records four times")
	}
	recs := make([][]byte, 2000)
	for i := range recs {
		recs[i] = mnistLike(i)
	}
	p := writeRecords(t, t.TempDir(), "mnist.tfrecord", tfrecord.None, recs...)
	const epochs = 10
	perRecord := func(args ...string) float64 {
		args = append(append([]string{"bench", "--readers", "1", "--epochs", fmt.Sprint(epochs)}, args...), p)
		allocs := testing.AllocsPerRun(1, func() {
			if code := Main(t.Context(), args, io.Discard, io.Discard); code != 0 {
				t.Fatalf("%q: exit %d", args, code)
			}
		})
		return allocs / float64(epochs*len(recs))
	}
	read, parse := perRecord(), perRecord("--parse")
	t.Logf("allocations per record: %.2f reading, %.2f reading and parsing", read, parse)
	if parse-read > 0.5 {
		t.Errorf("parsing adds %.2f allocations per record to reading's %.2f; want under 0.5", parse-read, read)
	}
}

// bench --parse through Main, output discarded; bytes are the file's.
func BenchmarkBenchParse(b *testing.B) {
	p, size := benchFile(b, 2000, tfrecord.None)
	b.ReportAllocs()
	b.SetBytes(size)
	for b.Loop() {
		if code := Main(b.Context(), []string{"bench", "--parse", p}, io.Discard, io.Discard); code != 0 {
			b.Fatal(code)
		}
	}
}
