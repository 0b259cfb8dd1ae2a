package sequence

import (
	"context"
	"fmt"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sluiceml/sluice/tensor"
)

// BenchmarkStateSaver moves segments through a state saver: 4 prefetch
// goroutines insert examples of 100 steps of 8 float32 features (5
// segments of num_unroll 20), and one consumer takes batches of 32 and
// saves an [8] float32 state for each. One iteration is one batch.
func BenchmarkStateSaver(b *testing.B) {
	const batch, u, steps, features, prefetchers = 32, 20, 100, 8, 4
	s, err := NewStateSaver(batch, u, map[string]tensor.Tensor{"h": tensor.Zeros(tensor.Float32, tensor.Shape{features})},
		Capacity(4*batch))
	if err != nil {
		b.Fatal(err)
	}
	x := tensor.Zeros(tensor.Float32, tensor.Shape{steps, features})
	label := tensor.Scalar[int64](1)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for w := range prefetchers {
		wg.Go(func() {
			for i := 0; ; i++ {
				err := s.Prefetch(ctx, Input{Key: fmt.Sprintf("%d_%d", w, i), Length: steps - i%u,
					Sequences: map[string]tensor.Tensor{"x": x}, Context: map[string]tensor.Tensor{"label": label}})
				if err != nil {
					return
				}
			}
		})
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	for b.Loop() {
		bt, err := s.Next(ctx)
		if err != nil {
			b.Fatal(err)
		}
		h := bt.State("h").Clone()
		for i := range h.Float32s() {
			h.Float32s()[i] += 1
		}
		if err := bt.SaveState(ctx, "h", h); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*batch)/b.Elapsed().Seconds(), "segments/s")
	// CPU time of the whole process (the prefetching goroutines too) per
	// segment: steadier than wall time on a shared machine.
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N*batch), "cpu-ns/segment")
	b.StopTimer()
	cancel()
	s.CloseNow(context.Background())
	wg.Wait()
}

// cpuTime returns the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
