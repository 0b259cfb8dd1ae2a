//go:build race

package queue

// raceEnabled: the race detector allocates, so allocation counts do not
// hold under it.
const raceEnabled = true
