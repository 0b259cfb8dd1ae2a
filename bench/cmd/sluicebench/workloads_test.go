package main

import (
	"context"
	"testing"

	"go.uber.org/goleak"
)

// The seed workload runs a pipeline's goroutines; none may outlive it.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// Every workload, on data sets a thousandth of the full run's, delivers
// every example once (the seed pipeline twice, for its two epochs), and
// the checksums the report compares across systems agree wherever two
// workloads read the same data.
func TestWorkloads(t *testing.T) {
	root := t.TempDir()
	sets := divided(1000)
	if err := generateSets(root, sets); err != nil {
		t.Fatal(err)
	}
	byDir := map[string]dataset{}
	for _, d := range sets {
		byDir[d.Dir] = d
	}
	checks := map[string]int64{}
	for _, w := range workloads {
		d := byDir[w.data]
		var got tally
		if err := w.run(context.Background(), d.fileNames(root), &got); err != nil {
			t.Fatalf("%s: %v", w.name, err)
		}
		want := int64(d.Records)
		if w.name == "seed" {
			want *= 2
		}
		if n := got.examples.Load(); n != want {
			t.Errorf("%s: %d examples, want %d", w.name, n, want)
		}
		if d.Kind == "raw" {
			if b := got.bytes.Load(); b != int64(d.Records*d.Size) {
				t.Errorf("%s: %d bytes, want %d", w.name, b, d.Records*d.Size)
			}
		}
		if got.check.Load() == 0 {
			t.Errorf("%s: checksum 0", w.name)
		}
		checks[w.name] = got.check.Load()
		// The front door reads the same examples and sums the same
		// checks, with batch memory of its own and reused.
		for _, keep := range []bool{true, false} {
			var api tally
			if err := w.api(context.Background(), d.fileNames(root), keep, &api); err != nil {
				t.Fatalf("%s through the sluice package (keep %v): %v", w.name, keep, err)
			}
			if api.examples.Load() != got.examples.Load() || api.check.Load() != got.check.Load() {
				t.Errorf("%s through the sluice package (keep %v): %d examples, check %d; library path: %d, %d",
					w.name, keep, api.examples.Load(), api.check.Load(), got.examples.Load(), got.check.Load())
			}
			// MB/s counts the same bytes, the records', in every row.
			if api.bytes.Load() != got.bytes.Load() {
				t.Errorf("%s through the sluice package (keep %v): %d bytes; library path: %d",
					w.name, keep, api.bytes.Load(), got.bytes.Load())
			}
		}
	}
	if checks["seed"] != 2*checks["mnist"] {
		t.Errorf("seed checksum %d, want twice mnist's %d", checks["seed"], checks["mnist"])
	}
	if checks["files-4"] != checks["framing-1KB"] {
		t.Errorf("files-4 checksum %d, framing-1KB's %d: the same files", checks["files-4"], checks["framing-1KB"])
	}
}
