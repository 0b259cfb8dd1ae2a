//go:build race

package pyserve

// raceEnabled skips the allocation tests: the race detector allocates.
const raceEnabled = true
