package index

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sluiceml/sluice/internal/fifotest"
	"github.com/sluiceml/sluice/tfrecord"
)

// What stands beside a file as FILE.idx and cannot be its index is not
// read: a named pipe (whose open would wait for a writer where no context
// reaches), a device that never ends, a file longer than an index of the
// file can be. Load says so, naming it, and LoadOrBuild builds an index.
func TestLoadRefusesWhatCannotBeAnIndex(t *testing.T) {
	t.Setenv("SLUICE_INDEX_DIR", filepath.Join(t.TempDir(), "cache"))
	for _, tt := range []struct {
		name string
		make func(t *testing.T, idx string)
		why  string
	}{
		{"fifo", func(t *testing.T, idx string) {
			if err := fifotest.Make(idx); err != nil {
				t.Skip(err)
			}
		}, "not a regular file"},
		{"device", func(t *testing.T, idx string) {
			if _, err := os.Stat("/dev/zero"); err != nil {
				t.Skip(err)
			}
			if err := os.Symlink("/dev/zero", idx); err != nil {
				t.Fatal(err)
			}
		}, "not a regular file"},
		{"too long", func(t *testing.T, idx string) {
			f, err := os.Create(idx)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString(magic)
			f.Truncate(1 << 30) // sparse: a gigabyte beside a file of 20 records
			f.Close()
		}, "more than an index"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			name, _ := writeFile(t, t.TempDir(), "f.tfrecord", 20, tfrecord.None)
			idx := Beside(name)
			tt.make(t, idx)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			done := make(chan error, 1)
			go func() { _, err := Load(ctx, name); done <- err }()
			var err error
			select {
			case err = <-done:
			case <-time.After(5 * time.Second):
				t.Fatalf("Load of a file beside a %s: still reading after 5s", tt.name)
			}
			if !errors.Is(err, ErrNoIndex) || !strings.Contains(err.Error(), idx) || !strings.Contains(err.Error(), tt.why) {
				t.Errorf("Load: %v, want ErrNoIndex naming %s, %q", err, idx, tt.why)
			}
			x, err := LoadOrBuild(ctx, name)
			if err != nil || x.Len() != 20 {
				t.Errorf("LoadOrBuild: %v, %v; want an index of 20 records", x, err)
			}
		})
	}
}

// The bound on an index's size holds for the largest index a file of a
// given size can have: one of records of no data, each 16 bytes.
func TestMaxStored(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []int{0, 1, 1000} {
		var b strings.Builder
		w := tfrecord.NewWriter(&b)
		for range n {
			w.Write(nil)
		}
		w.Close()
		name := filepath.Join(dir, strings.Repeat("n", 200))
		os.WriteFile(name, []byte(b.String()), 0o644)
		x, err := Build(context.Background(), name)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := x.MarshalBinary()
		if limit := maxStored(x.Size); int64(len(data)) > limit {
			t.Errorf("%d empty records: an index of %d bytes, over the bound %d", n, len(data), limit)
		}
	}
}
