package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"syscall"
	"time"
)

// A result is one run of one workload, the JSON line every system prints.
type result struct {
	System    string  `json:"system"`
	Workload  string  `json:"workload"`
	Run       int     `json:"run"`
	Examples  int64   `json:"examples"`
	Bytes     int64   `json:"bytes"`
	Seconds   float64 `json:"seconds"`
	Check     int64   `json:"check"` // per pass
	Passes    int64   `json:"passes,omitempty"`
	MaxRSSKB  int64   `json:"max_rss_kb"`
	Cores     int     `json:"cores"`
	Version   string  `json:"version"`
	GoVersion string  `json:"go_version,omitempty"`
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "sluicebench:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout io.Writer) error {
	if len(args) > 0 && args[0] == "gen" {
		fs := flag.NewFlagSet("gen", flag.ContinueOnError)
		data := fs.String("data", "build/bench-data", "directory to write the data sets to")
		quick := fs.Bool("quick", false, "a tenth of the records, for a quick run")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		return generate(*data, *quick)
	}
	fs := flag.NewFlagSet("sluicebench", flag.ContinueOnError)
	name := fs.String("workload", "", "workload to run (see -list)")
	data := fs.String("data", "build/bench-data", "directory written by sluicebench gen")
	runs := fs.Int("runs", 5, "timed runs")
	asJSON := fs.Bool("json", false, "print one JSON line per run instead of a summary")
	list := fs.Bool("list", false, "list the workloads")
	minTime := fs.Duration("min-time", 300*time.Millisecond,
		"repeat whole passes within a run until it lasts this long (a pass of sluice can take a few milliseconds)")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the runs to this file (go tool pprof reads it)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	if *list {
		for _, w := range workloads {
			fmt.Fprintln(stdout, w.name)
		}
		return nil
	}
	w, ok := lookupWorkload(*name)
	if !ok {
		return fmt.Errorf("unknown workload %q (sluicebench -list shows them)", *name)
	}
	files, err := filepath.Glob(filepath.Join(*data, w.data, "part-*"))
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return fmt.Errorf("no files in %s: run sluicebench gen -data %s first", filepath.Join(*data, w.data), *data)
	}
	version := "devel"
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				version = s.Value[:12]
			}
		}
	}
	enc := json.NewEncoder(stdout)
	for i := range *runs {
		runtime.GC() // start each run from the same heap, not the last run's garbage
		var t tally
		start := time.Now()
		passes := int64(0)
		for passes == 0 || time.Since(start) < *minTime {
			if err := w.run(ctx, files, &t); err != nil {
				return err
			}
			passes++
		}
		r := result{
			System: "sluice", Workload: w.name, Run: i + 1,
			Examples: t.examples.Load(), Bytes: t.bytes.Load(), Check: t.check.Load() / passes,
			Seconds: time.Since(start).Seconds(), MaxRSSKB: maxRSSKB(),
			Passes: passes, Cores: runtime.GOMAXPROCS(0), Version: version, GoVersion: runtime.Version(),
		}
		if *asJSON {
			if err := enc.Encode(r); err != nil {
				return err
			}
			continue
		}
		fmt.Fprintf(stdout, "%s run %d: %d examples in %.3fs: %.0f examples/s, %.1f MB/s (GOMAXPROCS %d, check %d)\n",
			r.Workload, r.Run, r.Examples, r.Seconds, float64(r.Examples)/r.Seconds,
			float64(r.Bytes)/1e6/r.Seconds, r.Cores, r.Check)
	}
	return nil
}

// maxRSSKB is the process's peak resident set so far, in KiB (Linux's unit
// for ru_maxrss).
func maxRSSKB() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return int64(ru.Maxrss)
}
