package sluice

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sluiceml/sluice/storage"
)

// droppingFS serves local files under the scheme "dropping", and fails
// what a store that closes connections before answering fails: its opens
// (open), or its reads from the second half of a file on, with the error
// Go's HTTP client gives then, which wraps io.EOF.
type droppingFS struct {
	dir  string
	open bool
}

func closedConn(op, name string) error {
	return fmt.Errorf("store: %s %s: %w", op, name, &url.Error{Op: op, URL: "http://store/" + name, Err: io.EOF})
}

func (d droppingFS) Open(ctx context.Context, name string) (storage.File, error) {
	if d.open {
		return nil, closedConn("Head", name)
	}
	b, err := os.ReadFile(filepath.Join(d.dir, strings.TrimPrefix(name, "dropping://")))
	if err != nil {
		return nil, err
	}
	return &droppingFile{Reader: bytes.NewReader(b), name: name}, nil
}

func (droppingFS) Create(context.Context, string) (io.WriteCloser, error) {
	return nil, errors.ErrUnsupported
}

func (d droppingFS) Glob(ctx context.Context, pattern string) ([]string, error) {
	names, err := filepath.Glob(filepath.Join(d.dir, strings.TrimPrefix(pattern, "dropping://")))
	for i, n := range names {
		names[i] = "dropping://" + filepath.Base(n)
	}
	return names, err
}

type droppingFile struct {
	*bytes.Reader
	name string
}

func (f *droppingFile) Read(p []byte) (int, error) {
	if f.Reader.Len() < int(f.Size()/2) {
		return 0, closedConn("Get", f.name)
	}
	return f.Reader.Read(p[:min(len(p), 512)])
}

func (f *droppingFile) ReadAt(p []byte, off int64) (int, error) {
	if off+int64(len(p)) > f.Size()/2 {
		return 0, closedConn("Get", f.name)
	}
	return f.Reader.ReadAt(p, off)
}

func (f *droppingFile) Close() error { return nil }
func (f *droppingFile) Name() string { return f.name }

// A store's failure that wraps io.EOF (a connection closed before the
// answer) fails the iteration; taken for the end of the input, it ended
// the iteration early without a word (audit 61: records lost, whole files
// of them, with every engine but the deterministic one).
func TestStoreFailureWrappingEOFIsNoEnd(t *testing.T) {
	dir := t.TempDir()
	writeExamples(t, dir, 2, 200)
	for _, open := range []bool{true, false} {
		for _, tc := range []struct {
			name string
			opts []ExampleOption
		}{
			{"default", nil},
			{"shuffle", []ExampleOption{Shuffle(50)}},
			{"deterministic", []ExampleOption{Deterministic()}},
		} {
			t.Run(fmt.Sprintf("open=%v/%s", open, tc.name), func(t *testing.T) {
				storage.Register("dropping", droppingFS{dir: dir, open: open})
				defer storage.Unregister("dropping")
				n := 0
				var err error
				for b, e := range Examples("dropping://train-*", testSpec, tc.opts...).Batches(t.Context(), 4) {
					if e != nil {
						err = e
						break
					}
					n += b.Len()
				}
				if err == nil || !strings.Contains(err.Error(), "EOF") {
					t.Errorf("%d records of 400 and %v; want the store's error", n, err)
				}
			})
		}
	}
}
