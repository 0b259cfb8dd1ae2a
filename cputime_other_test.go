//go:build !unix

package sluice

import "time"

// cpuTime returns the process's CPU time, which this system does not
// give: 0.
func cpuTime() time.Duration { return 0 }
