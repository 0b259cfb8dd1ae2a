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
	"runtime/trace"
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
	CPU       float64 `json:"cpu_seconds"` // user + system time of the timed passes
	Check     int64   `json:"check"`       // per pass
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
	minTime := fs.Duration("min-time", time.Second,
		"repeat whole passes within a run until it lasts this long (every system in bench/ does the same, after one untimed pass)")
	mode := fs.String("mode", "api", "api: the sluice package, a batch's memory its own (the headline rows); "+
		"api-reuse: the sluice package reusing batch memory (its default); lib: the hand-tuned library path")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the runs to this file (go tool pprof reads it)")
	fs.BoolVar(&deterministic, "deterministic", false, "-mode api or api-reuse, Examples workloads (mnist, small10, seed): read the data set Deterministic()")
	fs.BoolVar(&phaseLog, "phases", false, "seed workload: print each pass's fill, full-queue and drain times, wall and CPU, to stderr")
	fillProf := fs.String("fillprofile", "", "seed workload: write a CPU profile of each timed pass's fill (to the first batch) to this file name with .N appended")
	traceFile := fs.String("trace", "", "write an execution trace of the runs to this file (go tool trace reads it)")
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
	system, pass := "", w.run
	switch *mode {
	case "api":
		system, pass = "sluice", func(ctx context.Context, files []string, t *tally) error { return w.api(ctx, files, true, t) }
	case "api-reuse":
		system, pass = "sluice-reuse", func(ctx context.Context, files []string, t *tally) error { return w.api(ctx, files, false, t) }
	case "lib":
		system = "sluice-lib"
	default:
		return fmt.Errorf("unknown -mode %q (api, api-reuse or lib)", *mode)
	}
	// One untimed pass, as every system in bench/ makes: the files are in
	// the page cache and the code paths warm before any run is timed.
	var warm tally
	if err := pass(ctx, files, &warm); err != nil {
		return err
	}
	if *fillProf != "" && *cpuProfile != "" {
		return fmt.Errorf("-fillprofile and -cpuprofile cannot be used together (one CPU profile at a time)")
	}
	fillProfile = *fillProf // the timed passes only
	if *traceFile != "" {
		// Started after the untimed pass, so that the trace shows the
		// timed runs only.
		f, err := os.Create(*traceFile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := trace.Start(f); err != nil {
			return err
		}
		defer trace.Stop()
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
		cpu0 := cpuSeconds()
		start := time.Now()
		passes := int64(0)
		for passes == 0 || time.Since(start) < *minTime {
			if err := pass(ctx, files, &t); err != nil {
				return err
			}
			passes++
		}
		r := result{
			System: system, Workload: w.name, Run: i + 1,
			Examples: t.examples.Load(), Bytes: t.bytes.Load(), Check: t.check.Load() / passes,
			Seconds: time.Since(start).Seconds(), CPU: cpuSeconds() - cpu0, MaxRSSKB: maxRSSKB(),
			Passes: passes, Cores: runtime.GOMAXPROCS(0), Version: version, GoVersion: runtime.Version(),
		}
		if *asJSON {
			if err := enc.Encode(r); err != nil {
				return err
			}
			continue
		}
		fmt.Fprintf(stdout, "%s %s run %d: %d examples in %.3fs: %.0f examples/s, %.0f CPU-ns/example, %.1f MB/s (GOMAXPROCS %d, check %d)\n",
			r.System, r.Workload, r.Run, r.Examples, r.Seconds, float64(r.Examples)/r.Seconds,
			r.CPU*1e9/float64(r.Examples), float64(r.Bytes)/1e6/r.Seconds, r.Cores, r.Check)
	}
	return nil
}
