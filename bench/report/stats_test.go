package main

import (
	"strings"
	"testing"
)

func TestMedian(t *testing.T) {
	tests := []struct {
		in   []float64
		want float64
	}{
		{nil, 0},
		{[]float64{3}, 3},
		{[]float64{5, 1, 3}, 3},
		{[]float64{4, 1, 3, 2}, 2.5},
		{[]float64{9, 9, 1, 9, 1}, 9},
	}
	for _, tt := range tests {
		in := append([]float64(nil), tt.in...)
		if got := median(tt.in); got != tt.want {
			t.Errorf("median(%v) = %v, want %v", tt.in, got, tt.want)
		}
		for i := range in {
			if in[i] != tt.in[i] {
				t.Fatalf("median reordered its input: %v", tt.in)
			}
		}
	}
}

func TestSummarize(t *testing.T) {
	rs := []result{
		{System: "sluice", Workload: "mnist", Examples: 100, Bytes: 2e6, Seconds: 1, Check: 7, Cores: 2, MaxRSSKB: 10},
		{System: "sluice", Workload: "mnist", Examples: 300, Bytes: 6e6, Seconds: 1, Check: 7, Cores: 2, MaxRSSKB: 30},
		{System: "sluice", Workload: "mnist", Examples: 200, Bytes: 4e6, Seconds: 1, Check: 7, Cores: 2, MaxRSSKB: 20},
		{System: "sluice", Workload: "mnist", Examples: 50, Seconds: 1, Check: 7, Cores: 1},
		{System: "tf.data", Workload: "mnist", Examples: 10, Seconds: 1, Check: 7},
		{System: "tf.data", Workload: "mnist", Examples: 10, Seconds: 2, Check: 8},
	}
	got := summarize(rs)
	if len(got) != 3 {
		t.Fatalf("got %d summaries, want 3 (sluice, sluice at 1 core, tf.data): %+v", len(got), got)
	}
	s := got[0]
	if s.System != "sluice" || s.Runs != 3 || s.Median != 200 || s.Min != 100 || s.Max != 300 || s.MBps != 4 || s.MaxRSSKB != 30 || !s.ChecksAgree {
		t.Errorf("sluice summary = %+v", s)
	}
	if got[1].System != "sluice (1 core)" || got[1].Median != 50 {
		t.Errorf("one-core summary = %+v", got[1])
	}
	if tf := got[2]; tf.ChecksAgree || tf.Median != 7.5 || tf.Min != 5 || tf.Max != 10 {
		t.Errorf("tf.data summary = %+v, want checks disagreeing and median 7.5", tf)
	}
}

func TestRatio(t *testing.T) {
	for _, tt := range []struct {
		r    float64
		want string
	}{
		{2, "2.00×"},
		{0.5, "0.500×, sluice 2.0× faster"},
		{0.01, "0.010×, sluice 100× faster"},
	} {
		if got := ratio(tt.r); got != tt.want {
			t.Errorf("ratio(%v) = %q, want %q", tt.r, got, tt.want)
		}
	}
}

// The summary compares sluice with each peer's faster configuration on
// each workload, and names it.
func TestSummaryFastest(t *testing.T) {
	ss := summarize([]result{
		{System: "sluice", Workload: "mnist", Examples: 1000, Seconds: 1, Cores: 2},
		{System: "torch-w0", Workload: "mnist", Examples: 50, Seconds: 1},
		{System: "torch-w2", Workload: "mnist", Examples: 40, Seconds: 1},
		{System: "sluice", Workload: "seed", Examples: 1000, Seconds: 1, Cores: 2},
		{System: "torch-w0", Workload: "seed", Examples: 40, Seconds: 1},
		{System: "torch-w2", Workload: "seed", Examples: 50, Seconds: 1},
		{System: "tf-queue", Workload: "seed", Examples: 10, Seconds: 1},
		{System: "tf-queue-batched", Workload: "seed", Examples: 100, Seconds: 1},
	})
	var b strings.Builder
	write(&b, meta{}, "machine", ss)
	got := b.String()
	for _, want := range []string{
		"| mnist | 1 k; — | — | — | — | 50 (0.050×, sluice 20× faster); —; 0 workers | — |",
		"| seed | 1 k; — | — | 100 (0.100×, sluice 10× faster); —; batched | — | 50 (0.050×, sluice 20× faster); —; 2 workers | — |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("summary lacks %q:\n%s", want, got)
		}
	}
}
