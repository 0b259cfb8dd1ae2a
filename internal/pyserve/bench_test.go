package pyserve

import (
	"os"
	"testing"
)

// BenchmarkServeMNIST reads MNIST-like Examples through the server, as
// the Python client does (a next per batch, the batch in a slot), from
// the files sluicebench writes (SLUICE_BENCH_MNIST names their pattern).
// Its CPU profile is the server's cost beyond the front door's.
//
//	SLUICE_BENCH_MNIST='build/bench-data/mnist/part-*' go test -run '^$' -bench ServeMNIST ./internal/pyserve
func BenchmarkServeMNIST(b *testing.B) {
	pat := os.Getenv("SLUICE_BENCH_MNIST")
	if pat == "" {
		b.Skip("SLUICE_BENCH_MNIST names no files")
	}
	c := startServer(b)
	open := map[string]any{"op": "open", "kind": "examples", "files": []string{pat}, "batch_size": 128, "forever": true, "readers": 2,
		"spec": map[string]any{"image": map[string]any{"kind": "fixed", "dtype": "float32", "shape": []int{784}},
			"label": map[string]any{"kind": "fixed", "dtype": "int64"}}}
	if r := c.call(open); r.Error != nil {
		b.Fatal(r.Error)
	}
	for b.Loop() {
		if r := c.call(map[string]string{"op": "next"}); r.Batch == nil {
			b.Fatalf("%+v", r)
		} else if r.Batch.File != "" {
			c.call(map[string]string{"op": "mapped", "file": r.Batch.File})
		}
	}
	b.ReportMetric(float64(128*b.N)/b.Elapsed().Seconds(), "examples/s")
}
