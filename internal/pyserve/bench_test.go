//go:build unix

package pyserve

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sluiceml/sluice"
	"github.com/sluiceml/sluice/example"
	"github.com/sluiceml/sluice/internal/cputime"
	"github.com/sluiceml/sluice/tensor"
)

// BenchmarkServeMNIST reads MNIST-like Examples through the server, as
// the Python client does (a next per batch, the batch in a slot), from
// the files sluicebench writes (SLUICE_BENCH_MNIST names their pattern),
// and, as "direct", through sluice's Iterator alone: the difference is
// the server's own cost. Both report examples/s and CPU ns per example
// (of the whole process: the readers' goroutines too).
//
//	SLUICE_BENCH_MNIST='build/bench-data/mnist/part-*' go test -run '^$' -bench ServeMNIST ./internal/pyserve
func BenchmarkServeMNIST(b *testing.B) {
	pat := os.Getenv("SLUICE_BENCH_MNIST")
	if pat == "" {
		b.Skip("SLUICE_BENCH_MNIST names no files")
	}
	if m, _ := filepath.Glob(pat); len(m) == 0 {
		b.Skipf("SLUICE_BENCH_MNIST %q matches no file", pat)
	}
	const batch, readers = 128, 2
	b.Run("direct", func(b *testing.B) {
		ds := sluice.Examples(pat, example.Spec{"image": example.FixedLen(tensor.Float32, 784),
			"label": example.FixedLen(tensor.Int64)}, sluice.Forever(), sluice.Readers(readers))
		it, err := ds.Iterator(b.Context(), batch)
		if err != nil {
			b.Fatal(err)
		}
		defer it.Close()
		cpu := startCPU(b)
		for b.Loop() {
			if _, err := it.Next(); err != nil {
				b.Fatal(err)
			}
		}
		cpu.report(b, batch)
	})
	b.Run("serve", func(b *testing.B) {
		// Anonymous slot files, as the Python client's: named ones in the
		// test's temporary directory are on disk here, where writing
		// mapped pages costs their writeback too.
		c := startServerIn(b, "")
		open := map[string]any{"op": "open", "kind": "examples", "files": []string{pat}, "batch_size": batch, "forever": true, "readers": readers,
			"spec": map[string]any{"image": map[string]any{"kind": "fixed", "dtype": "float32", "shape": []int{784}},
				"label": map[string]any{"kind": "fixed", "dtype": "int64"}}}
		if r := c.call(open); r.Error != nil {
			b.Fatal(r.Error)
		}
		cpu := startCPU(b)
		for b.Loop() {
			if r := c.call(map[string]string{"op": "next"}); r.Batch == nil {
				b.Fatalf("%+v", r)
			} else if r.Batch.File != "" {
				c.call(map[string]string{"op": "mapped", "file": r.Batch.File})
			}
		}
		cpu.report(b, batch)
	})
}

type cpuClock struct{ start time.Duration }

func startCPU(b *testing.B) cpuClock { return cpuClock{cputime.Process()} }

func (c cpuClock) report(b *testing.B, batch int) {
	n := float64(batch * b.N)
	b.ReportMetric(n/b.Elapsed().Seconds(), "examples/s")
	b.ReportMetric(float64(cputime.Process()-c.start)/n, "cpu-ns/ex")
}
