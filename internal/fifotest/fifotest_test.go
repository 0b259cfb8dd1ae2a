package fifotest

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestMake(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pipe")
	err := Make(path)
	if errors.Is(err, errors.ErrUnsupported) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Type() != os.ModeNamedPipe {
		t.Fatalf("Make(%s) made a file of mode %v: want a named pipe", path, fi.Mode())
	}
}
