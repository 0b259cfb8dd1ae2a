//go:build !unix

package fifotest

import (
	"errors"
	"fmt"
)

// Make returns an error wrapping errors.ErrUnsupported: this system has
// no named pipes in its file system, and the tests that need one skip.
func Make(path string) error {
	return fmt.Errorf("named pipe %s: %w", path, errors.ErrUnsupported)
}
