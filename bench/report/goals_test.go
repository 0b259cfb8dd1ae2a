package main

import (
	"strings"
	"testing"
)

func TestGoals(t *testing.T) {
	ss := summarize([]result{
		{System: "sluice-lib", Workload: "seed", Examples: 1000, Seconds: 1, CPU: 0.002, MaxRSSKB: 80 * 1024, Cores: 2},
		{System: "sluice", Workload: "seed", Examples: 1700, Seconds: 1, Cores: 2},
		{System: "sluice", Workload: "seed", Examples: 1000, Seconds: 1, Cores: 1},
		{System: "sluice-py", Workload: "mnist", Examples: 800, Seconds: 1},
		{System: "sluice-reuse", Workload: "mnist", Examples: 1000, Seconds: 1},
		{System: "tf.data", Workload: "mnist", Examples: 100, Seconds: 1},
		// One core each: a row of its own, not mixed into the two-core
		// one above.
		{System: "sluice-py (1 P)", Workload: "mnist", Examples: 570, Seconds: 1},
		{System: "sluice-reuse", Workload: "mnist", Examples: 600, Seconds: 1, Cores: 1},
	})
	var b strings.Builder
	writeGoals(&b, finderOf(ss))
	got := b.String()
	for _, want := range []string{
		"| 18 | seed: CPU per example, hand-tuned library path, 2 cores | ≤ 2.50 µs | 2.00 µs | met |",
		"| 18 | seed: examples/s on 2 cores over 1 core (headline rows) | ≥ 1.70× | 1.70× | met |",
		"| ≤ 72 MB | 80 MB | missed by 11%; why:",
		"| 20 | mnist: sluice from Python (views) over sluice from Go (batches reused) | ≥ 0.90× | 0.80× | missed by 11%; why:",
		"| 20 | mnist: sluice from Python (views) over tf.data | ≥ 3.00× | 8.00× | met |",
		"| 20 | mnist: the same, the Go side on 1 core in both and the trainer on the other | ≥ 0.90× | 0.95× | met |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("goals table lacks %q:\n%s", want, got)
		}
	}
	// Workloads without runs are left out rather than reported as missed.
	if strings.Contains(got, "small10") {
		t.Errorf("goals table reports small10, which has no runs:\n%s", got)
	}
}
