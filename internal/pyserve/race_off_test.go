//go:build !race

package pyserve

const raceEnabled = false
