//go:build !unix

package storage

import (
	"errors"
	"os"
)

// canLock reports whether this system has the advisory locks that tell a
// running writer's temporaries from a dead one's: not here, so leftovers
// are judged by their age alone.
const canLock = false

func tryLock(*os.File) (held bool, err error) { return false, errors.ErrUnsupported }
func tryLockShared(*os.File) (held bool, err error) {
	return false, errors.ErrUnsupported
}
func linked(*os.File) (bool, error) { return true, nil }
