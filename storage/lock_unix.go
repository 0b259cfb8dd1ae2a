//go:build unix

package storage

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// canLock reports whether this system has the advisory locks (flock(2))
// that tell a running writer's temporaries from a dead one's.
const canLock = true

// tryLock takes an exclusive advisory lock on f if no one holds one:
// held reports that someone does. An error means the file system has no
// such locks.
func tryLock(f *os.File) (held bool, err error) {
	for {
		err = unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if err != unix.EINTR {
			break
		}
	}
	if errors.Is(err, unix.EWOULDBLOCK) {
		return true, nil
	}
	return false, err
}

// tryLockShared takes a shared advisory lock on f if no one holds an
// exclusive one: held reports that someone does. Shared locks do not
// exclude each other. An error means the file system has no such locks.
func tryLockShared(f *os.File) (held bool, err error) {
	for {
		err = unix.Flock(int(f.Fd()), unix.LOCK_SH|unix.LOCK_NB)
		if err != unix.EINTR {
			break
		}
	}
	if errors.Is(err, unix.EWOULDBLOCK) {
		return true, nil
	}
	return false, err
}

// linked reports whether the file f is open on still has a name.
func linked(f *os.File) (bool, error) {
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		return false, err
	}
	return st.Nlink > 0, nil
}
