// Command report turns the JSON lines of a bench/run.sh session into
// BENCHMARKS.md: the machine, the versions, and for each workload and
// system the median examples/s of the runs with their minimum and maximum,
// the ratio to sluice and the peak resident memory, then sluice's scaling
// with cores, record size and number of files.
//
//	go run ./bench/report -results build/bench-results -out BENCHMARKS.md
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
)

// meta is what run.sh knows about the session: written to meta.json.
type meta struct {
	Date      string `json:"date"`
	Commit    string `json:"commit"`
	Mode      string `json:"mode"`
	Runs      int    `json:"runs"`
	Python    string `json:"python"`
	GoVersion string `json:"go"`
	Kernel    string `json:"kernel"`
	CPU       string `json:"cpu"` // the model name in /proc/cpuinfo when the runs were made
}

func main() {
	results := flag.String("results", "build/bench-results", "directory of *.jsonl results and meta.json")
	out := flag.String("out", "BENCHMARKS.md", "Markdown file to write")
	flag.Parse()
	if err := run(*results, *out); err != nil {
		fmt.Fprintln(os.Stderr, "report:", err)
		os.Exit(1)
	}
}

func run(dir, out string) error {
	var m meta
	if b, err := os.ReadFile(filepath.Join(dir, "meta.json")); err == nil {
		if err := json.Unmarshal(b, &m); err != nil {
			return fmt.Errorf("meta.json: %w", err)
		}
	}
	rs, err := readResults(dir)
	if err != nil {
		return err
	}
	if len(rs) == 0 {
		return fmt.Errorf("no results in %s", dir)
	}
	var buf bytes.Buffer
	mach := machine()
	if m.CPU != "" {
		mach = m.CPU + strings.TrimPrefix(mach, cpuModel())
	}
	write(&buf, m, mach, summarize(rs))
	return os.WriteFile(out, buf.Bytes(), 0o644)
}

func readResults(dir string) ([]result, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	var rs []result
	for _, name := range names {
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		s := bufio.NewScanner(f)
		for line := 1; s.Scan(); line++ {
			if !bytes.HasPrefix(s.Bytes(), []byte("{")) {
				continue // a stray line of a library's logging
			}
			var r result
			if err := json.Unmarshal(s.Bytes(), &r); err != nil {
				f.Close()
				return nil, fmt.Errorf("%s:%d: %w", name, line, err)
			}
			rs = append(rs, r)
		}
		f.Close()
		if err := s.Err(); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	return rs, nil
}

// cpuModel is the first model name in /proc/cpuinfo.
func cpuModel() string {
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for line := range strings.Lines(string(b)) {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				return strings.TrimSpace(v)
			}
		}
	}
	return "unknown CPU"
}

// machine describes the CPU and memory from /proc, as Linux reports them.
func machine() string {
	cpu := cpuModel()
	mem := "unknown memory"
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		var kb int64
		if _, err := fmt.Sscanf(string(b), "MemTotal: %d kB", &kb); err == nil {
			mem = fmt.Sprintf("%.1f GiB memory", float64(kb)/(1<<20))
		}
	}
	return fmt.Sprintf("%s, %d cores, %s, %s/%s", cpu, runtime.NumCPU(), mem, runtime.GOOS, runtime.GOARCH)
}

// The workloads in the order of the issue, with what each measures.
var mainWorkloads = []struct{ name, what string }{
	{"framing-100B", "(1) TFRecord framing only, 100-byte records (records/s; MB/s of record data)"},
	{"framing-100KB", "(1) TFRecord framing only, 100 KB records"},
	{"mnist", "(2) MNIST-like Examples (784 float32 + int64 label) parsed to dense batches of 128"},
	{"small10", "(3) small Examples with 10 scalar features (5 float32, 5 int64), batches of 128"},
	{"csv", "(4) 5-column numeric CSV (4 float32 + int32), batches of 128"},
	{"cifar", "(5) CIFAR-10 fixed-length records (3073 bytes) to uint8 [32,32,3] image + label, batches of 128"},
	{"seed", "(6) the seed pipeline: MNIST-like files, num_epochs 2, shuffled, 2 readers, shuffle_batch 128 (min_after_dequeue 10000)"},
}

var systemOrder = []string{"sluice", "sluice (1 core)", "sluice-reuse", "sluice-lib", "sluice-py", "sluice-py-copy",
	"sluice-reuse (1 core)", "sluice-py (1 P)", "tf-queue", "tf-queue-batched", "tf.data", "torch-w0", "torch-w2", "grain-w0", "grain-w2"}

// A column of the summary table: sluice's headline rows, and each peer at
// its faster configuration on each workload (the one of its systems with
// the higher median examples/s), named in the cell.
type column struct {
	name    string
	systems []string
}

// summaryColumns is the columns of the summary table.
var summaryColumns = []column{
	{"sluice (2 cores)", []string{"sluice"}},
	{"sluice (1 core)", []string{"sluice (1 core)"}},
	{"TF 2.21 queues, the faster idiom", []string{"tf-queue", "tf-queue-batched"}},
	{"TF 2.21 tf.data AUTOTUNE", []string{"tf.data"}},
	{"PyTorch DataLoader, the faster of 0 and 2 workers", []string{"torch-w0", "torch-w2"}},
	{"Grain over ArrayRecord, the faster of in process and 2 workers", []string{"grain-w0", "grain-w2"}},
}

// configNames name the configuration a summary cell chose, where a
// column has more than one.
var configNames = map[string]string{
	"tf-queue": "per-record", "tf-queue-batched": "batched",
	"torch-w0": "0 workers", "torch-w2": "2 workers",
	"grain-w0": "in process", "grain-w2": "2 workers",
}

// fastest returns the summary of the system among systems with the
// highest median examples/s on workload.
func fastest(find finder, systems []string, workload string) (summary, bool) {
	var best summary
	found := false
	for _, sys := range systems {
		if s, ok := find(sys, workload); ok && (!found || s.Median > best.Median) {
			best, found = s, true
		}
	}
	return best, found
}

var systemNames = map[string]string{
	"sluice":          "sluice (2 cores)",
	"sluice (1 core)": "sluice (1 core)",
	"sluice-reuse":    "sluice, reusing batch memory",
	"sluice-lib":      "sluice, hand-tuned library path",
	"sluice-py":       "sluice from Python, NumPy views",
	"sluice-py-copy":  "sluice from Python, copy=True",
	// The hand-off when the trainer has a core of its own.
	"sluice-reuse (1 core)": "sluice, reusing batch memory (1 core)",
	"sluice-py (1 P)":       "sluice from Python, NumPy views, the server on 1 core (GOMAXPROCS=1), the trainer on the other",
	"tf-queue":              "TF 2.21 queues, the guide's per-record idiom",
	"tf-queue-batched":      "TF 2.21 queues, read_up_to + batched parse",
	"tf.data":               "TF 2.21 tf.data AUTOTUNE",
	"torch-w0":              "PyTorch DataLoader, 0 workers",
	"torch-w2":              "PyTorch DataLoader, 2 workers",
	"grain-w0":              "Grain over ArrayRecord, in process",
	"grain-w2":              "Grain over ArrayRecord, 2 workers",
}

func write(w io.Writer, m meta, mach string, ss []summary) {
	find := finderOf(ss)
	fmt.Fprintf(w, "# Benchmarks\n\n")
	fmt.Fprintf(w, "Written by `bash bench/run.sh%s` (see [bench/README.md](bench/README.md)); do not edit by hand.\n\n",
		map[bool]string{true: " --quick"}[m.Mode == "quick"])
	fmt.Fprintf(w, "- date: %s; sluice commit %s; %s mode, %d rounds of every system on each workload, each run in its own process\n", m.Date, m.Commit, m.Mode, m.Runs)
	fmt.Fprintf(w, "- machine: %s; %s\n", mach, m.Kernel)
	versions := map[string]string{}
	for _, s := range ss {
		versions[s.System] = s.Version
	}
	fmt.Fprintf(w, "- versions: %s, Python %s", m.GoVersion, m.Python)
	if v := versions["tf-queue"]; v != "" {
		fmt.Fprintf(w, ", TensorFlow %s", v)
	} else if v := versions["tf.data"]; v != "" {
		fmt.Fprintf(w, ", TensorFlow %s", v)
	}
	for _, sys := range []string{"torch-w0", "grain-w0"} {
		if v := versions[sys]; v != "" {
			fmt.Fprintf(w, ", %s", v)
		}
	}
	fmt.Fprintf(w, "\n\nThe systems are interleaved: each round runs every system once on each workload, "+
		"so a change in the machine's load falls on all of them. Every run of every system is one untimed "+
		"pass (page cache, code paths and worker processes warm) and then whole passes until it lasts 1 s. "+
		"Each figure is the median of the rounds, with the slowest and fastest; CPU/example is user + system "+
		"time of the process and its workers over the timed passes, divided by the examples — steadier than "+
		"wall clock on a shared machine. \"vs sluice\" is the system's median examples/s over sluice's "+
		"(2 cores, headline row), and the CPU ratio the system's CPU per example over sluice's. "+
		"The headline sluice rows read through the `sluice` package as a user writes it (framing: "+
		"`sluice.Records` in batches of 1024), every batch in memory of its own as every peer's is; two more "+
		"rows show sluice reusing batch memory (its default) and sluice's hand-tuned library path. "+
		"MB/s is of the records' bytes, the same bytes for every system: TFRecord records without their "+
		"16 bytes of framing, CSV lines without their newline, CIFAR-10's 3073-byte records (counted as they "+
		"are read where a system sees them, else the files' size less the framing of the records read). "+
		"Peak RSS is the peak of trainer + pipeline: the sum of the high-water marks (VmHWM) of every process "+
		"of the run, the trainer's and its children's (sluice-serve, the DataLoader's and Grain's workers), read "+
		"while each lives; a page two processes share counts in each, so for several processes it is at or "+
		"above their combined peak. PSS is the proportional set size of the whole process tree at the end of "+
		"a run (a page shared by n processes counts 1/n in each), so forked workers' shared pages are not "+
		"counted twice. A ✗ marks a run whose checksum (label sum, or byte count) differs from sluice's: a "+
		"wrong answer, not a slow one.\n\n")

	fmt.Fprintf(w, "## Summary (examples/s, median; CPU ns per example)\n\n")
	fmt.Fprintf(w, "Each peer in its faster configuration on each workload, named in the cell: the TF queues' "+
		"per-record or batched idiom, the DataLoader's 0 or 2 workers, Grain in process or with 2 workers "+
		"(every configuration is in the tables of each workload below).\n\n| workload |")
	for _, c := range summaryColumns {
		fmt.Fprintf(w, " %s |", c.name)
	}
	fmt.Fprintf(w, "\n|---|%s\n", strings.Repeat("---:|", len(summaryColumns)))
	for _, wl := range mainWorkloads {
		fmt.Fprintf(w, "| %s |", wl.name)
		base, _ := find("sluice", wl.name)
		for _, c := range summaryColumns {
			s, ok := fastest(find, c.systems, wl.name)
			config := ""
			if len(c.systems) > 1 {
				config = "; " + configNames[s.System]
			}
			switch {
			case !ok:
				fmt.Fprintf(w, " — |")
			case s.System == "sluice" || base.Median == 0:
				fmt.Fprintf(w, " %s; %s%s |", rate(s.Median), cpuNs(s.CPUNs), config)
			default:
				fmt.Fprintf(w, " %s (%s); %s%s |", rate(s.Median), ratio(s.Median/base.Median), cpuNs(s.CPUNs), config)
			}
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "\n— : the system does not apply (the torch rows read TFRecords only, Grain's Examples only).\n")

	writeGoals(w, find)

	fmt.Fprintf(w, "\n## Each workload\n")
	for _, wl := range mainWorkloads {
		fmt.Fprintf(w, "\n### %s\n\n%s.\n\n", wl.name, wl.what)
		fmt.Fprintf(w, "| system | examples/s | min – max | CPU/example | MB/s | vs sluice | CPU vs sluice | peak RSS, all processes | PSS | runs |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
		base, _ := find("sluice", wl.name)
		for _, sys := range systemOrder {
			s, ok := find(sys, wl.name)
			if !ok {
				continue
			}
			mark := ""
			if !s.ChecksAgree || (base.Runs > 0 && s.Check != base.Check) {
				mark = " ✗"
			}
			vs, cpuVs := "1×", "1×"
			if sys != "sluice" && base.Median > 0 {
				vs = ratio(s.Median / base.Median)
				cpuVs = "—"
				if base.CPUNs > 0 && s.CPUNs > 0 {
					cpuVs = fmt.Sprintf("%.2f×", s.CPUNs/base.CPUNs)
				}
			}
			mbps := "—"
			if s.MBps > 0 {
				mbps = fmt.Sprintf("%.0f", s.MBps)
			}
			pss := "—"
			if s.PSSKB > 0 {
				pss = fmt.Sprintf("%.0f MB", float64(s.PSSKB)/1024)
			}
			fmt.Fprintf(w, "| %s%s | %s | %s – %s | %s | %s | %s | %s | %.0f MB | %s | %d |\n", systemNames[sys], mark,
				rate(s.Median), rate(s.Min), rate(s.Max), cpuNs(s.CPUNs), mbps, vs, cpuVs, float64(s.MaxRSSKB)/1024, pss, s.Runs)
		}
	}

	fmt.Fprintf(w, "\n## Scaling of sluice\n\n### Cores (GOMAXPROCS 1 and 2)\n\n")
	fmt.Fprintf(w, "| workload | 1 core | 2 cores | speed-up |\n|---|---:|---:|---:|\n")
	for _, wl := range mainWorkloads {
		one, ok1 := find("sluice (1 core)", wl.name)
		two, ok2 := find("sluice", wl.name)
		if ok1 && ok2 && one.Median > 0 {
			fmt.Fprintf(w, "| %s | %s | %s | %.2f× |\n", wl.name, rate(one.Median), rate(two.Median), two.Median/one.Median)
		}
	}
	scale := func(title string, names []string) {
		fmt.Fprintf(w, "\n### %s\n\n| data | records/s (1 core) | MB/s (1 core) | records/s (2 cores) | MB/s (2 cores) |\n|---|---:|---:|---:|---:|\n", title)
		for _, n := range names {
			one, _ := find("sluice (1 core)", n)
			two, ok := find("sluice", n)
			if ok {
				fmt.Fprintf(w, "| %s | %s | %.0f | %s | %.0f |\n", n, rate(one.Median), one.MBps, rate(two.Median), two.MBps)
			}
		}
	}
	scale("Record size (TFRecord framing, about 100 MB in 4 files; 100 B: 50 MB)", []string{"framing-100B", "framing-1KB", "framing-10KB", "framing-100KB"})
	scale("Number of files (TFRecord framing, 100 000 records of 1 KB)", []string{"files-1", "files-4", "files-16"})
}

// rate formats examples/s with three significant digits.
func rate(x float64) string {
	switch {
	case x >= 1e6:
		return fmt.Sprintf("%.3g M", x/1e6)
	case x >= 1e3:
		return fmt.Sprintf("%.3g k", x/1e3)
	default:
		return fmt.Sprintf("%.3g", x)
	}
}

// cpuNs formats CPU time per example.
func cpuNs(ns float64) string {
	switch {
	case ns <= 0:
		return "—"
	case ns >= 1e4:
		return fmt.Sprintf("%.0f µs", ns/1e3)
	case ns >= 1e3:
		return fmt.Sprintf("%.2f µs", ns/1e3)
	default:
		return fmt.Sprintf("%.0f ns", ns)
	}
}

// ratio formats a system's speed over sluice's.
func ratio(r float64) string {
	if r >= 1 {
		return fmt.Sprintf("%.2f×", r)
	}
	if 1/r < 10 {
		return fmt.Sprintf("%.3f×, sluice %.1f× faster", r, 1/r)
	}
	return fmt.Sprintf("%.3f×, sluice %.0f× faster", r, 1/r)
}
