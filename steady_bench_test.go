package sluice

import (
	"runtime"
	"testing"

	"github.com/sluiceml/sluice/internal/cputime"
)

// benchSteady reads ds, a data set that never ends (Forever), in batches
// of benchBatch, one batch an op, once past its first 200 batches (the
// shuffle buffer's filling, buffers growing to their size), and reports
// examples/s, CPU time an example, and the allocations and bytes an
// example of the steady state: issue 18's measures.
func benchSteady(b *testing.B, ds *Dataset, opts ...BatchOption) {
	it, err := ds.Iterator(b.Context(), benchBatch, opts...)
	if err != nil {
		b.Fatal(err)
	}
	defer it.Close()
	for range 200 {
		if _, err := it.Next(); err != nil {
			b.Fatal(err)
		}
	}
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	cpu0 := cputime.Process()
	for b.Loop() {
		if _, err := it.Next(); err != nil {
			b.Fatal(err)
		}
	}
	cpu := cputime.Process() - cpu0
	runtime.ReadMemStats(&ms1)
	n := float64(benchBatch * b.N)
	b.ReportMetric(n/b.Elapsed().Seconds(), "examples/s")
	b.ReportMetric(float64(cpu)/n, "cpu-ns/example")
	b.ReportMetric(float64(ms1.Mallocs-ms0.Mallocs)/n, "steady-allocs/example")
	b.ReportMetric(float64(ms1.TotalAlloc-ms0.TotalAlloc)/n, "steady-B/example")
}
