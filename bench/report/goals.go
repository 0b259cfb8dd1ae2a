package main

import (
	"fmt"
	"io"
)

// A goal is a target an issue set for a figure of this report. The report
// states each one met or missed, and by how much, from the same runs as
// the tables, so the claim cannot drift from the data; why a goal is
// missed is an analysis, kept in ARCHITECTURE.md where the figures'
// causes are measured.
type goal struct {
	issue  string // the issue that set it
	what   string
	target float64
	atMost bool // the figure must not exceed target (else: reach it)
	unit   string
	// value computes the figure from the summaries; ok is false when the
	// runs it needs are missing (a partial session).
	value func(find finder) (v float64, ok bool)
	why   string // where a miss is explained: a Markdown link
}

// finder looks up one system's summary on one workload.
type finder func(system, workload string) (summary, bool)

// finderOf returns a finder over ss.
func finderOf(ss []summary) finder {
	return func(system, workload string) (summary, bool) {
		for _, s := range ss {
			if s.System == system && s.Workload == workload {
				return s, true
			}
		}
		return summary{}, false
	}
}

// goals are issue 18's (engine speed) and issue 20's (Python) targets that
// bench/run.sh measures. The ones it cannot (old binary against new,
// allocations per example) are measured by go test and named in the
// issue notes.
var goals = []goal{
	{
		issue: "18", what: "seed: CPU per example, hand-tuned library path, 2 cores",
		target: 2500, atMost: true, unit: "ns",
		value: field("sluice-lib", "seed", func(s summary) float64 { return s.CPUNs }),
		why:   "[ARCHITECTURE.md, Memory](ARCHITECTURE.md#memory-recycled-elements)",
	},
	{
		issue: "18", what: "seed: examples/s on 2 cores over 1 core (headline rows)",
		target: 1.7, unit: "×",
		value: func(find finder) (float64, bool) {
			one, ok1 := find("sluice (1 core)", "seed")
			two, ok2 := find("sluice", "seed")
			if !ok1 || !ok2 || one.Median == 0 {
				return 0, false
			}
			return two.Median / one.Median, true
		},
		why: "[ARCHITECTURE.md, Memory](ARCHITECTURE.md#memory-recycled-elements) (a pass's fill and drain)",
	},
	{
		issue: "18", what: "seed: peak RSS of the library path, MB (the 10 000-example buffer holds 32 MB; +40 MB)",
		target: 72, atMost: true, unit: "MB",
		value: field("sluice-lib", "seed", func(s summary) float64 { return float64(s.MaxRSSKB) / 1024 }),
		why:   "[ARCHITECTURE.md, Memory](ARCHITECTURE.md#memory-recycled-elements) (a run is passes back to back, each a new pipeline)",
	},
	pythonOverGo("mnist", false),
	pythonOverGo("seed", false),
	pythonOverGo("small10", false),
	pythonOverGo("mnist", true),
	pythonOverGo("seed", true),
	pythonOverGo("small10", true),
	pythonOverTF("mnist"),
	pythonOverTF("seed"),
	pythonOverTF("small10"),
}

// field returns a goal's value function reading one summary.
func field(system, workload string, f func(summary) float64) func(finder) (float64, bool) {
	return func(find finder) (float64, bool) {
		s, ok := find(system, workload)
		if !ok {
			return 0, false
		}
		v := f(s)
		return v, v > 0
	}
}

// pythonOverGo is issue 20's hand-off goal: sluice from Python at ≥ 90 % of
// sluice from Go on the same workload, both reusing batch memory. With
// oneCore, the Go side is on one core in both (GOMAXPROCS=1) and the
// trainer on the other: the hand-off's own cost, where the two-core figure
// also counts the trainer's share of the cores the pipeline uses.
func pythonOverGo(workload string, oneCore bool) goal {
	what, py, gosys := "sluice from Python (views) over sluice from Go (batches reused)", "sluice-py", "sluice-reuse"
	if oneCore {
		what, py, gosys = "the same, the Go side on 1 core in both and the trainer on the other", "sluice-py (1 P)", "sluice-reuse (1 core)"
	}
	return goal{
		issue: "20", what: workload + ": " + what,
		target: 0.9, unit: "×",
		value: ratioOf(py, gosys, workload),
		why:   "[ARCHITECTURE.md, Python](ARCHITECTURE.md#python-a-go-process-beside-the-trainer)",
	}
}

// pythonOverTF is issue 20's other goal: sluice from Python ≥ 3× tf.data.
func pythonOverTF(workload string) goal {
	return goal{
		issue: "20", what: workload + ": sluice from Python (views) over tf.data",
		target: 3, unit: "×",
		value: ratioOf("sluice-py", "tf.data", workload),
	}
}

// ratioOf returns a value function dividing two systems' median examples/s.
func ratioOf(num, den, workload string) func(finder) (float64, bool) {
	return func(find finder) (float64, bool) {
		a, ok1 := find(num, workload)
		b, ok2 := find(den, workload)
		if !ok1 || !ok2 || b.Median == 0 {
			return 0, false
		}
		return a.Median / b.Median, true
	}
}

// met reports whether v reaches g's target, and by how much it misses:
// the shortfall as a fraction of the target.
func (g goal) met(v float64) (ok bool, miss float64) {
	if g.atMost {
		return v <= g.target, (v - g.target) / g.target
	}
	return v >= g.target, (g.target - v) / g.target
}

func (g goal) format(v float64) string {
	switch g.unit {
	case "ns":
		return cpuNs(v)
	case "MB":
		return fmt.Sprintf("%.0f MB", v)
	default:
		return fmt.Sprintf("%.2f%s", v, g.unit)
	}
}

// writeGoals writes the goals table; goals whose runs are absent are left
// out.
func writeGoals(w io.Writer, find finder) {
	fmt.Fprintf(w, "\n## Against the issues' goals\n\n")
	fmt.Fprintf(w, "From the medians above; the one peer in them, tf.data, has one configuration. The goals that need an old binary beside the new one, or allocation counts, are measured with `go test -bench` and reported in the issue notes.\n\n")
	fmt.Fprintf(w, "| issue | figure | goal | measured | status |\n|---|---|---:|---:|---|\n")
	for _, g := range goals {
		v, ok := g.value(find)
		if !ok {
			continue
		}
		bound := "≥ "
		if g.atMost {
			bound = "≤ "
		}
		status := "met"
		if met, miss := g.met(v); !met {
			status = fmt.Sprintf("missed by %.0f%%", 100*miss)
			if miss < 0.005 {
				status = "missed by under 1%"
			}
			if g.why != "" {
				status += "; why: " + g.why
			}
		}
		fmt.Fprintf(w, "| %s | %s | %s%s | %s | %s |\n", g.issue, g.what, bound, g.format(g.target), g.format(v), status)
	}
}
