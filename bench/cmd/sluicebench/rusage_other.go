//go:build !unix

package main

// cpuSeconds is the process's CPU time, which this system does not give:
// 0, and no CPU figures.
func cpuSeconds() float64 { return 0 }

// maxRSSKB is the process's peak resident set, which this system does not
// give: 0.
func maxRSSKB() int64 { return 0 }
