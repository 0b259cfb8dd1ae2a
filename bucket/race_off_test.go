//go:build !race

package bucket_test

const raceEnabled = false
