// Command disjoint reads the raw `go test -bench` output of two binaries
// run in alternation (tools/benchcmp/run.sh writes build/benchcmp/old.txt
// and new.txt) and lists the benchmarks whose new runs all lie above, or
// all below, the old runs: the rows a noisy machine cannot explain away,
// which benchstat's table leaves to the reader to find among the rest.
//
//	go run ./tools/benchcmp/disjoint build/benchcmp/old.txt build/benchcmp/new.txt
package main

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// procSuffix is the -GOMAXPROCS suffix go test appends to a benchmark name.
var procSuffix = regexp.MustCompile(`-\d+$`)

// runs holds, per package and benchmark, each unit's values across runs.
type runs map[string]map[string][]float64

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: disjoint OLD.txt NEW.txt")
		os.Exit(2)
	}
	old, err := load(os.Args[1])
	if err == nil {
		var cur runs
		if cur, err = load(os.Args[2]); err == nil {
			report(os.Stdout, old, cur)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "disjoint:", err)
		os.Exit(1)
	}
}

func load(name string) (runs, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return parse(f)
}

// parse reads benchmark lines ("BenchmarkX-2  N  V unit  V unit ..."),
// naming each by its package (the "pkg:" line before it) and name without
// the GOMAXPROCS suffix, so that runs of the same benchmark gather.
func parse(r io.Reader) (runs, error) {
	out := runs{}
	pkg := ""
	s := bufio.NewScanner(r)
	for s.Scan() {
		line := s.Text()
		if p, ok := strings.CutPrefix(line, "pkg: "); ok {
			pkg = strings.TrimSpace(p)
			continue
		}
		f := strings.Fields(line)
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		name := pkg + " " + procSuffix.ReplaceAllString(f[0], "")
		if out[name] == nil {
			out[name] = map[string][]float64{}
		}
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				continue
			}
			out[name][f[i+1]] = append(out[name][f[i+1]], v)
		}
	}
	return out, s.Err()
}

func median(v []float64) float64 {
	s := slices.Sorted(slices.Values(v))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// report prints how many benchmarks got faster or slower at the median,
// and every one whose ranges of ns/op do not overlap, slowest first.
func report(w io.Writer, old, cur runs) {
	type row struct {
		name                 string
		ratio                float64
		oldLo, oldHi         float64
		newLo, newHi         float64
		oldAllocs, newAllocs float64
	}
	var common []row
	for name, c := range cur {
		o, ok := old[name]
		if !ok || len(o["ns/op"]) == 0 || len(c["ns/op"]) == 0 {
			continue
		}
		r := row{
			name:  name,
			ratio: median(c["ns/op"]) / median(o["ns/op"]),
			oldLo: slices.Min(o["ns/op"]), oldHi: slices.Max(o["ns/op"]),
			newLo: slices.Min(c["ns/op"]), newHi: slices.Max(c["ns/op"]),
			oldAllocs: math.NaN(), newAllocs: math.NaN(),
		}
		if a := o["allocs/op"]; len(a) > 0 {
			r.oldAllocs = median(a)
		}
		if a := c["allocs/op"]; len(a) > 0 {
			r.newAllocs = median(a)
		}
		common = append(common, r)
	}
	slices.SortFunc(common, func(a, b row) int {
		if c := cmp.Compare(b.ratio, a.ratio); c != 0 {
			return c
		}
		return strings.Compare(a.name, b.name)
	})
	var faster, slower, fasterApart, slowerApart int
	logSum := 0.0
	for _, r := range common {
		if r.ratio < 1 {
			faster++
		} else if r.ratio > 1 {
			slower++
		}
		if r.newHi < r.oldLo {
			fasterApart++
		}
		if r.newLo > r.oldHi {
			slowerApart++
		}
		logSum += math.Log(r.ratio)
	}
	fmt.Fprintf(w, "%d benchmarks in both; median ns/op faster in %d, slower in %d; ranges apart: %d faster, %d slower; geomean new/old %.3f\n",
		len(common), faster, slower, fasterApart, slowerApart, math.Exp(logSum/float64(max(len(common), 1))))
	for _, apart := range []struct {
		title string
		keep  func(row) bool
	}{
		{"slower, ranges apart", func(r row) bool { return r.newLo > r.oldHi }},
		{"faster, ranges apart", func(r row) bool { return r.newHi < r.oldLo }},
	} {
		fmt.Fprintf(w, "\n%s (new/old median; ns/op old range, new range; allocs/op old, new):\n", apart.title)
		for _, r := range common {
			if apart.keep(r) {
				fmt.Fprintf(w, "  %.2f× %s  old %.4g–%.4g  new %.4g–%.4g  allocs %g → %g\n",
					r.ratio, r.name, r.oldLo, r.oldHi, r.newLo, r.newHi, r.oldAllocs, r.newAllocs)
			}
		}
	}
}
