"""Shared by the Python side of the side-by-side benchmark (bench/run.sh runs
these scripts; see bench/README.md). Each script times one system on one
workload for --runs runs and prints one JSON line per run, in the same form
as `sluicebench -json`, to standard output.

The data are the files `sluicebench gen` wrote; the workloads, their data
directories and their checks are the ones in bench/cmd/sluicebench.
"""
import argparse
import glob
import json
import os
import platform
import resource
import sys
import time

BATCH = 128          # the seed guide's batch size, for every decoded workload
FRAMING_BATCH = 1024  # framing only: records handed over per step
MIN_AFTER_DEQUEUE = 10000

# workload -> (data directory, kind)
WORKLOADS = {
    "framing-100B": ("framing-100B", "raw"),
    "framing-1KB": ("framing-1KB", "raw"),
    "framing-10KB": ("framing-10KB", "raw"),
    "framing-100KB": ("framing-100KB", "raw"),
    "mnist": ("mnist", "mnist"),
    "small10": ("small10", "small10"),
    "csv": ("csv", "csv"),
    "cifar": ("cifar", "cifar"),
    "seed": ("mnist", "seed"),
}

SMALL_FLOATS = ["f0", "f1", "f2", "f3", "f4"]
SMALL_INTS = ["f5", "f6", "f7", "f8", "f9"]
CIFAR_RECORD = 1 + 3 * 32 * 32


def args(description, extra=None):
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--workload", required=True, choices=sorted(WORKLOADS))
    p.add_argument("--data", default="build/bench-data")
    p.add_argument("--runs", type=int, default=1)
    p.add_argument("--min-time", type=float, default=1.0,
                   help="repeat whole passes within a run until it lasts this long, as sluicebench does")
    if extra:
        extra(p)
    a = p.parse_args()
    d, kind = WORKLOADS[a.workload]
    a.files = sorted(glob.glob(os.path.join(a.data, d, "part-*")))
    a.kind = kind
    if not a.files:
        sys.exit(f"no files in {os.path.join(a.data, d)}: run sluicebench gen first")
    return a


CLK_TCK = os.sysconf("SC_CLK_TCK")


def tree():
    """The pids of this process's descendants (DataLoader workers, Grain's
    processes), read from /proc."""
    out, todo = [], [os.getpid()]
    while todo:
        pid = todo.pop()
        try:
            tids = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for tid in tids:
            try:
                with open(f"/proc/{pid}/task/{tid}/children") as f:
                    kids = [int(k) for k in f.read().split()]
            except OSError:
                continue
            out += kids
            todo += kids
    return out


def children_cpu():
    """CPU seconds (user + system) used so far by the live descendants, plus
    those already reaped."""
    ticks = 0
    for pid in tree():
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            ticks += int(fields[11]) + int(fields[12])  # utime, stime
        except (OSError, IndexError, ValueError):
            pass
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ticks / CLK_TCK + ru.ru_utime + ru.ru_stime


def status_kb(pid, key):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


# The high-water mark (VmHWM) of every process of the tree seen so far, by
# pid, read after every pass and at the end of a run: a worker or server
# that exits takes its figure out of /proc with it.
_hwm = {}


def sample_hwm():
    """Reads the VmHWM of this process and each live descendant into _hwm."""
    for p in [os.getpid()] + tree():
        _hwm[p] = max(_hwm.get(p, 0), status_kb(p, "VmHWM"))


def memory_kb():
    """(peak RSS of the tree, PSS of the whole tree now). The peak is the sum
    of each process's own high-water mark, the trainer's and its children's
    (sluice-serve, DataLoader or Grain workers): the peak of trainer +
    pipeline, counting a page the processes share once in each, so never
    below their combined peak. PSS is summed over the tree at the end of the
    run, counting a page shared by N processes 1/N in each, so copy-on-write
    pages of forked workers are not counted N times."""
    sample_hwm()
    pids = [os.getpid()] + tree()
    peak = sum(_hwm.values())
    pss = 0
    for p in pids:
        try:
            with open(f"/proc/{p}/smaps_rollup") as f:
                for line in f:
                    if line.startswith("Pss:"):
                        pss += int(line.split()[1])
                        break
        except OSError:
            pass
    return peak, pss


# The bytes of framing around each record in a kind's files: a TFRecord's
# length and two CRCs, a CSV line's newline; fixed-length records have none.
FRAMING = {"csv": 1, "cifar": 0}


def record_bytes(a, examples, epochs=1):
    """The bytes of the records of a pass that read a's files epochs times and
    delivered examples records: the files' size less each record's framing.
    MB/s is of the records' bytes for every system (tf.data and the TF queues
    count them as they read them), for a system that does not see them."""
    size = sum(os.path.getsize(f) for f in a.files)
    return epochs * size - FRAMING.get(a.kind, 16) * examples


def measure(a, prepare):
    """Times one run as every system in bench/ is timed: prepare() builds
    the pipeline (untimed) and returns a function that runs one whole pass,
    returning (examples, bytes, check). One untimed pass warms the page
    cache, the code paths and any worker processes; then passes repeat until
    the run lasts --min-time. Returns examples, bytes and CPU seconds of the
    timed passes, their wall-clock seconds, the check of one pass and the
    number of passes."""
    prepare()()
    sample_hwm()
    examples = nbytes = check = passes = 0
    seconds = cpu = 0.0
    while passes == 0 or seconds < a.min_time:
        run = prepare()
        c0, k0, t0 = time.process_time(), children_cpu(), time.perf_counter()
        e, b, c = run()
        seconds += time.perf_counter() - t0
        cpu += time.process_time() - c0 + children_cpu() - k0
        sample_hwm()
        examples, nbytes, check, passes = examples + e, nbytes + b, c, passes + 1
    return examples, nbytes, cpu, seconds, check, passes


def emit(system, workload, run, measured, version):
    examples, nbytes, cpu, seconds, check, passes = measured
    peak, pss = memory_kb()
    print(json.dumps({
        "system": system, "workload": workload, "run": run,
        "examples": int(examples), "bytes": int(nbytes), "seconds": seconds, "cpu_seconds": cpu,
        "check": int(check), "passes": passes, "max_rss_kb": peak, "pss_kb": pss,
        "version": version, "python_version": platform.python_version(),
    }), flush=True)
