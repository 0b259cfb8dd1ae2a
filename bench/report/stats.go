package main

import (
	"cmp"
	"slices"
)

// A result is one JSON line of sluicebench or a bench/py script.
type result struct {
	System   string  `json:"system"`
	Workload string  `json:"workload"`
	Run      int     `json:"run"`
	Examples int64   `json:"examples"`
	Bytes    int64   `json:"bytes"`
	Seconds  float64 `json:"seconds"`
	CPU      float64 `json:"cpu_seconds"` // user + system, worker processes included
	Check    int64   `json:"check"`
	MaxRSSKB int64   `json:"max_rss_kb"`
	PSSKB    int64   `json:"pss_kb"`
	Cores    int     `json:"cores"`
	Version  string  `json:"version"`
}

// system names a row: sluice at one core is a system of its own, and so
// is sluice reusing batch memory at one core, the Go side of the Python
// hand-off with the server on one P.
func (r result) system() string {
	if (r.System == "sluice" || r.System == "sluice-reuse") && r.Cores == 1 {
		return r.System + " (1 core)"
	}
	return r.System
}

// A summary is the runs of one system on one workload.
type summary struct {
	System, Workload string
	Runs             int
	Median, Min, Max float64 // examples/s
	MBps             float64 // median MB/s
	CPUNs            float64 // median CPU time per example, in ns; 0 if not measured
	MaxRSSKB         int64   // peak RSS: the sum of the run's processes' high-water marks, largest run
	PSSKB            int64   // proportional set size of the process tree, largest run
	Check            int64
	ChecksAgree      bool // every run gave the same check
	Version          string
}

// summarize groups results by system and workload; the groups come back in
// first-seen order.
func summarize(rs []result) []summary {
	type key struct{ system, workload string }
	var order []key
	groups := map[key][]result{}
	for _, r := range rs {
		k := key{r.system(), r.Workload}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], r)
	}
	out := make([]summary, 0, len(order))
	for _, k := range order {
		g := groups[k]
		rates := make([]float64, len(g))
		mbps := make([]float64, len(g))
		var cpu []float64
		s := summary{System: k.system, Workload: k.workload, Runs: len(g), Check: g[0].Check, ChecksAgree: true, Version: g[0].Version}
		for i, r := range g {
			if r.Seconds > 0 {
				rates[i] = float64(r.Examples) / r.Seconds
				mbps[i] = float64(r.Bytes) / 1e6 / r.Seconds
			}
			if r.CPU > 0 && r.Examples > 0 {
				cpu = append(cpu, r.CPU*1e9/float64(r.Examples))
			}
			s.PSSKB = max(s.PSSKB, r.PSSKB)
			s.MaxRSSKB = max(s.MaxRSSKB, r.MaxRSSKB)
			s.ChecksAgree = s.ChecksAgree && r.Check == s.Check
		}
		s.Median, s.Min, s.Max = median(rates), slices.Min(rates), slices.Max(rates)
		s.MBps = median(mbps)
		s.CPUNs = median(cpu)
		out = append(out, s)
	}
	return out
}

// median returns the middle value of xs, or the mean of the two middle
// values when there is an even number; 0 for none. xs is not modified.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.SortFunc(s, cmp.Compare)
	m := len(s) / 2
	if len(s)%2 == 1 {
		return s[m]
	}
	return (s[m-1] + s[m]) / 2
}
