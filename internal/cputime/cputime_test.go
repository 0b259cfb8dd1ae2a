package cputime

import (
	"runtime"
	"testing"
	"time"
)

var sink int

// TestProcessCountsWork spins until the process's CPU time has grown by a
// millisecond: a Process that did not count it would spin until the test's
// wall-clock limit. A loaded machine makes the spin slower, not wrong.
func TestProcessCountsWork(t *testing.T) {
	if runtime.GOOS == "js" || runtime.GOOS == "wasip1" || runtime.GOOS == "plan9" {
		t.Skip("no CPU time on", runtime.GOOS)
	}
	start := Process()
	if start <= 0 {
		t.Fatalf("Process() = %v at the start of a test: want the CPU time so far, which is more than 0", start)
	}
	deadline := time.Now().Add(30 * time.Second)
	for Process()-start < time.Millisecond {
		if time.Now().After(deadline) {
			t.Fatalf("30 s of spinning added %v of CPU time: want at least 1ms", Process()-start)
		}
		for i := range 100000 {
			sink += i
		}
	}
}
