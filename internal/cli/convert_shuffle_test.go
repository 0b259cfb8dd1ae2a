package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/sluiceml/sluice/tfrecord"
)

// shuffleAll runs records through a shuffler and returns them in the
// order it emits them, and the shuffler.
func shuffleAll(t *testing.T, recs []string, mem int64, seed uint64) ([]string, *shuffler) {
	t.Helper()
	var expected int64
	for _, r := range recs {
		expected += int64(len(r))
	}
	dir := t.TempDir()
	s, err := newShuffler(dir, expected, mem, seed)
	if err != nil {
		t.Fatal(err)
	}
	defer s.remove()
	for _, r := range recs {
		if err := s.add([]byte(r)); err != nil {
			t.Fatal(err)
		}
	}
	// The buckets have no names: a process killed now leaves nothing.
	if left, _ := os.ReadDir(dir); runtime.GOOS != "windows" && len(left) != 0 {
		t.Errorf("%d named temporary files while shuffling", len(left))
	}
	var out []string
	if err := s.emit(context.Background(), func(rec []byte) error {
		out = append(out, string(rec))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("%d temporary files left after emit", len(left))
	}
	for _, b := range s.buckets {
		if b.f != nil {
			t.Errorf("bucket %s still open after emit", b.name)
		}
	}
	return out, s
}

func numbered(n int) []string {
	recs := make([]string, n)
	for i := range recs {
		recs[i] = fmt.Sprintf("record %05d", i)
	}
	return recs
}

// Every record comes out exactly once, whatever the memory bound, and the
// bound holds: a bucket larger than it is split until the pieces fit.
func TestShufflerPermutes(t *testing.T) {
	recs := numbered(5000) // 12 bytes + overhead each: about 220 KB held in all
	for _, mem := range []int64{1 << 30, 64 << 10, 2000, 400} {
		t.Run(strconv.FormatInt(mem, 10), func(t *testing.T) {
			out, s := shuffleAll(t, recs, mem, 1)
			if !slices.Equal(slices.Sorted(slices.Values(out)), recs) {
				t.Fatalf("%d records out, not a permutation of the %d in", len(out), len(recs))
			}
			if slices.Equal(out, recs) {
				t.Fatal("records came out in input order")
			}
			if limit := max(mem, 12+recordOverhead); s.maxHeld > limit {
				t.Errorf("held %d bytes at once, bound %d", s.maxHeld, limit)
			}
			if mem < 64<<10 && s.depth < 2 {
				t.Errorf("no bucket was split with %d bytes of memory", mem)
			}
		})
	}
}

// Records larger than the memory bound are held one at a time, not split
// for ever: a bucket of one record over the bound split again would hold
// it alone once more (audit 51: the disk filled with copies of it).
func TestShufflerRecordsOverBound(t *testing.T) {
	var recs []string
	for i := range 6 {
		recs = append(recs, fmt.Sprintf("%d%s", i, strings.Repeat("x", 999)))
	}
	for _, mem := range []int64{400, 1500} {
		out, s := shuffleAll(t, recs, mem, 2)
		if !slices.Equal(slices.Sorted(slices.Values(out)), recs) {
			t.Fatalf("memory %d: %d records out, not a permutation of the %d in", mem, len(out), len(recs))
		}
		if limit := max(mem, 1000+recordOverhead); s.maxHeld > limit {
			t.Errorf("memory %d: held %d bytes at once, bound %d", mem, s.maxHeld, limit)
		}
	}
}

// All 24 orders of 4 records are equally likely, with and without
// splitting: a chi-squared test over 2400 seeded shuffles (fixed seeds, so
// the test is deterministic; the bound is the 0.1% critical value for 23
// degrees of freedom).
func TestShufflerUniform(t *testing.T) {
	recs := numbered(4)
	for _, mem := range []int64{1 << 20, 100} {
		t.Run(strconv.FormatInt(mem, 10), func(t *testing.T) {
			const runs = 2400
			counts := map[string]int{}
			for seed := range uint64(runs) {
				out, _ := shuffleAll(t, recs, mem, seed)
				counts[strings.Join(out, ",")]++
			}
			if len(counts) != 24 {
				t.Fatalf("%d distinct orders, want all 24", len(counts))
			}
			const want = runs / 24.0
			chi2 := 0.0
			for _, c := range counts {
				chi2 += (float64(c) - want) * (float64(c) - want) / want
			}
			if chi2 > 49.7 {
				t.Errorf("chi-squared %.1f over 24 orders: not uniform", chi2)
			}
		})
	}
}

// convert --shuffle: the same records in another order, the same order for
// the same seed, another for another seed; and the flag checks.
func TestConvertShuffle(t *testing.T) {
	dir := t.TempDir()
	var recs [][]byte
	for _, r := range numbered(2000) {
		recs = append(recs, []byte(r))
	}
	in := writeRecords(t, dir, "in.tfrecord", tfrecord.None, recs...)
	convert := func(out string, args ...string) []string {
		t.Helper()
		code, stdout, stderr := run(t, append([]string{"convert", in, "--out", filepath.Join(dir, out), "--shards", "3"}, args...)...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if want := "(shuffled, seed "; slices.Contains(args, "--shuffle") != strings.Contains(stdout, want) {
			t.Errorf("output %q", stdout)
		}
		var all []string
		names, _, err := outputNames(filepath.Join(dir, out), 3, tfrecord.None, false)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range names {
			all = append(all, readFileStrings(t, name)...)
		}
		return all
	}
	plain := convert("plain")
	a := convert("a", "--shuffle", "--seed", "7")
	b := convert("b", "--shuffle", "--seed", "7")
	c := convert("c", "--shuffle", "--seed", "8", "--shuffle-memory", "1")
	if !slices.Equal(slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(plain))) || len(a) != 2000 {
		t.Fatalf("shuffled output holds %d records, not the input's", len(a))
	}
	if slices.Equal(a, plain) {
		t.Error("--shuffle kept the round-robin order")
	}
	if !slices.Equal(a, b) {
		t.Error("the same seed gave two orders")
	}
	if slices.Equal(a, c) || !slices.Equal(slices.Sorted(slices.Values(c)), slices.Sorted(slices.Values(plain))) {
		t.Error("seed 8 gave seed 7's order, or lost records")
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--seed", "3"}, "--seed and --shuffle-memory go with --shuffle"},
		{[]string{"--shuffle", "--shuffle-memory", "0"}, "--shuffle-memory must be at least 1 (MiB), not 0"},
	} {
		code, _, stderr := run(t, append([]string{"convert", in, "--out", filepath.Join(dir, "bad")}, tc.args...)...)
		if code == 0 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: exit %d, %q; want %q", tc.args, code, stderr, tc.want)
		}
	}
}

func readFileStrings(t *testing.T, name string) []string {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for rec, err := range tfrecord.NewReader(bytes.NewReader(data)).All() {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(rec))
	}
	return out
}

// A cancelled context ends an emit within a few hundred records, inside a
// bucket too (audit 57: a bucket of up to --shuffle-memory was read and
// written whole after a signal, seconds of it).
func TestShufflerEmitCancelled(t *testing.T) {
	recs := numbered(20000)
	for _, mem := range []int64{1 << 30, 64 << 10} { // one bucket; buckets split
		s, err := newShuffler(t.TempDir(), int64(len(recs)*len(recs[0])), mem, 1)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			if err := s.add([]byte(r)); err != nil {
				t.Fatal(err)
			}
		}
		ctx, cancel := context.WithCancel(t.Context())
		written := 0
		err = s.emit(ctx, func([]byte) error {
			if written++; written == 10 {
				cancel()
			}
			return nil
		})
		s.remove()
		if !errors.Is(err, context.Canceled) || written > 10+256 {
			t.Errorf("memory %d: emit cancelled after 10 records = %v, after %d records", mem, err, written)
		}
	}
}
