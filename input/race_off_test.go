//go:build !race

package input

const raceEnabled = false
