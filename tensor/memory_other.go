//go:build !linux

package tensor

// PhysicalMemory returns 0: the machine's memory is not known, and only
// the Go memory limit and make's limit cap a padded batch.
func PhysicalMemory() uint64 { return 0 }
