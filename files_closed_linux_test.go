package sluice

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/sluiceml/sluice/decode"
	"github.com/sluiceml/sluice/tensor"
)

// openIn returns the files under dir this process holds open.
func openIn(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip(err)
	}
	var open []string
	for _, e := range entries {
		if target, err := os.Readlink("/proc/self/fd/" + e.Name()); err == nil && strings.HasPrefix(target, dir) {
			open = append(open, target)
		}
	}
	return open
}

// An iteration ended early, by a break, Close or its context, closes the
// files its readers were inside by the time it returns, in the default
// engine as in the others: they stayed open until a garbage collection
// found them, and a program of many short iterations ran out of
// descriptors (audit 52: 361 open after 200 loops broken off after a
// batch).
func TestIterationClosesItsFiles(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1)) // no finalizer closes them
	dir := t.TempDir()
	writeExamples(t, dir, 3, 200)
	var csv strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&csv, "%d,%d\n", i, 2*i)
	}
	for _, name := range []string{"a.csv", "b.csv"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(csv.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "c.bin"), make([]byte, 8000), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, src := range []struct {
		name string
		ds   *Dataset
	}{
		{"Examples", Examples(filepath.Join(dir, "train-*"), testSpec, Readers(3))},
		{"CSV", CSV(filepath.Join(dir, "*.csv"), []Column{Col("a", decode.Int64Column(0)), Col("b", decode.Int64Column(0))}, Readers(2))},
		{"FixedLengthRecords", FixedLengthRecords(filepath.Join(dir, "c.bin"), 8, []Field{{Name: "r", Offset: 0, Size: 8, DType: tensor.Uint8, Shape: []int{8}}}, Readers(1))},
	} {
		for _, end := range []string{"break", "Close", "cancel"} {
			t.Run(src.name+"/"+end, func(t *testing.T) {
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				switch end {
				case "break":
					for _, err := range src.ds.Batches(ctx, 2) {
						if err != nil {
							t.Fatal(err)
						}
						break
					}
				default:
					it, err := src.ds.Iterator(ctx, 2)
					if err != nil {
						t.Fatal(err)
					}
					if _, err := it.Next(); err != nil {
						t.Fatal(err)
					}
					if end == "cancel" {
						cancel()
						for {
							if _, err := it.Next(); err != nil {
								break
							}
						}
					}
					it.Close()
				}
				if open := openIn(t, dir); len(open) > 0 {
					t.Errorf("still open after the iteration ended: %q", open)
				}
			})
		}
	}
}
