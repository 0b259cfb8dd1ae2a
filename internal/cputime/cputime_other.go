//go:build !unix && !windows

package cputime

import "time"

// Process returns 0: this system does not say how much CPU time the
// process has used.
func Process() time.Duration { return 0 }
