package input

import (
	"bytes"
	"os"
	"runtime"
	"strconv"
	"testing"

	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tensor"
)

// peakRSS returns the process's peak resident set size in bytes (Linux),
// or 0 where /proc is not available.
func peakRSS() int64 {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range bytes.Split(status, []byte("\n")) {
		if f := bytes.Fields(line); len(f) == 3 && string(f[0]) == "VmHWM:" {
			kb, _ := strconv.ParseInt(string(f[1]), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// A shuffle queue holding 10 000 MNIST-sized examples: the benchmark
// reports the peak RSS against the data's size (run it alone:
// go test -run '^$' -bench ShuffleQueueMemory ./input).
func BenchmarkShuffleQueueMemory(b *testing.B) {
	const n, size = 10000, 784
	for b.Loop() {
		q, _ := queue.NewRandomShuffle(n+1, n, []tensor.DType{tensor.Float32, tensor.Int64},
			queue.Shapes(tensor.Shape{size}, tensor.Shape{}))
		for i := range n {
			img := make([]float32, size)
			for j := range img {
				img[j] = float32(i + j) // touch every page
			}
			q.Enqueue(b.Context(), queue.Element{tensor.New(img), tensor.Scalar(int64(i))})
		}
		runtime.GC()
		b.ReportMetric(float64(peakRSS())/(1<<20), "peakRSS-MB")
		b.ReportMetric(float64(n*size*4)/(1<<20), "data-MB")
		q.CloseNow(b.Context())
	}
}
