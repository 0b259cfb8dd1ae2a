//go:build !linux

package pyserve

import (
	"errors"
	"os"
)

func memFile(string) (*os.File, string, error) { return nil, "", errors.ErrUnsupported }

// memFiles reports false: only Linux has memfd_create; slots are files in
// a directory.
func memFiles() bool { return false }
