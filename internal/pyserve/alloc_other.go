//go:build !linux

package pyserve

import "os"

// allocate sizes f; other systems have no fallocate.
func allocate(f *os.File, size int) error { return f.Truncate(int64(size)) }
