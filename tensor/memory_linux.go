package tensor

import "syscall"

// PhysicalMemory returns the machine's memory in bytes, or 0 if it is not
// known.
func PhysicalMemory() uint64 {
	var info syscall.Sysinfo_t
	if syscall.Sysinfo(&info) != nil {
		return 0
	}
	return uint64(info.Totalram) * uint64(info.Unit)
}
