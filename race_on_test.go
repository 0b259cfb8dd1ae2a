//go:build race

package sluice

// raceEnabled skips the allocation tests: the race detector allocates.
const raceEnabled = true
