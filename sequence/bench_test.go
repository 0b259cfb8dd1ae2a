package sequence

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"

	"github.com/sluiceml/sluice/internal/cputime"
	"github.com/sluiceml/sluice/tensor"
)

// BenchmarkStateSaver moves segments through a state saver: 4 prefetch
// goroutines insert examples of 100 steps of 8 float32 features (5
// segments of num_unroll 20), and one consumer takes batches of 32 and
// saves an [8] float32 state for each, keeping each batch (next) or
// handing it back (nextinto). The producers make each Input with its key
// (sprintf, as a reader's step would) or take it from a ring made
// beforehand (prebuilt), so that what is left is the state saver's own.
// One iteration is one batch.
func BenchmarkStateSaver(b *testing.B) {
	for _, producers := range []string{"sprintf", "prebuilt"} {
		for _, into := range []bool{false, true} {
			name := producers + "/next"
			if into {
				name = producers + "/nextinto"
			}
			b.Run(name, func(b *testing.B) { benchStateSaver(b, producers == "prebuilt", into) })
		}
	}
}

func benchStateSaver(b *testing.B, prebuilt, into bool) {
	const batch, u, steps, features, prefetchers = 32, 20, 100, 8, 4
	s, err := NewStateSaver(batch, u, map[string]tensor.Tensor{"h": tensor.Zeros(tensor.Float32, tensor.Shape{features})},
		Capacity(4*batch))
	if err != nil {
		b.Fatal(err)
	}
	x := tensor.Zeros(tensor.Float32, tensor.Shape{steps, features})
	label := tensor.Scalar[int64](1)
	input := func(w, i int) Input {
		return Input{Key: fmt.Sprintf("%d_%d", w, i), Length: steps - i%u,
			Sequences: map[string]tensor.Tensor{"x": x}, Context: map[string]tensor.Tensor{"label": label}}
	}
	// A ring of inputs per producer, longer than the examples the state
	// saver holds (its capacity), so that keys in it at once differ.
	const ring = 8 * batch
	rings := make([][]Input, prefetchers)
	if prebuilt {
		for w := range rings {
			for i := range ring {
				rings[w] = append(rings[w], input(w, i))
			}
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for w := range prefetchers {
		wg.Go(func() {
			for i := 0; ; i++ {
				var in Input
				if prebuilt {
					in = rings[w][i%ring]
				} else {
					in = input(w, i)
				}
				if err := s.Prefetch(ctx, in); err != nil {
					return
				}
			}
		})
	}
	h := tensor.Zeros(tensor.Float32, tensor.Shape{batch, features})
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cputime.Process()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	var bt *Batch
	for b.Loop() {
		var err error
		if into {
			bt, err = s.NextInto(ctx, bt)
		} else {
			bt, err = s.Next(ctx)
		}
		if err != nil {
			b.Fatal(err)
		}
		// The model's new state, in memory of its own.
		if err := h.CopyRows(0, bt.State("h"), 0, batch); err != nil {
			b.Fatal(err)
		}
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
	b.ReportMetric(float64(cputime.Process()-cpu0)/float64(b.N*batch), "cpu-ns/segment")
	// allocs/op and B/op per segment, with the decimals the goal (0.05
	// an allocation a segment) needs.
	runtime.ReadMemStats(&m1)
	b.ReportMetric(float64(m1.Mallocs-m0.Mallocs)/float64(b.N*batch), "allocs/segment")
	b.ReportMetric(float64(m1.TotalAlloc-m0.TotalAlloc)/float64(b.N*batch), "B/segment")
	b.StopTimer()
	cancel()
	s.CloseNow(context.Background())
	wg.Wait()
}
