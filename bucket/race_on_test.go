//go:build race

package bucket_test

// raceEnabled: the race detector allocates, so allocation counts do not
// hold under it.
const raceEnabled = true
