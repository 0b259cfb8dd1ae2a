"""Reading Parquet into training batches from Python, side by side:
sluice.examples(..., format="parquet") against pyarrow's own reader
(ParquetFile.iter_batches, the columns to NumPy), alternated rounds on
the file bench/py/parquetconvert.py generates (bench/parquet.sh --read).

    python bench/py/parquetread.py --file build/parquet-bench/rows-200000.parquet --rounds 3

Each run is a process of its own: rows/s is of its reading (imports
and start-up left out), its CPU time the whole process's, sluice's
server included.
Both read the same columns, 128 rows a batch, in file order, once, and
check the sum of i64.
"""
import argparse
import statistics
import subprocess
import sys
import time

COLUMNS = ["i64", "f32", "word", "ilist"]


def read_sluice(path):
    import sluice
    spec = {"i64": sluice.FixedLen([], "int64"), "f32": sluice.FixedLen([], "float32"),
            "word": sluice.FixedLen([], "bytes"), "ilist": sluice.VarLen("int64")}
    total = rows = 0
    with sluice.examples(path, spec, batch_size=128, format="parquet") as ds:
        for b in ds:
            total += int(b["i64"].sum())
            rows += len(b["i64"])
    return rows, total


def read_pyarrow(path):
    import numpy as np
    import pyarrow.parquet as pq
    total = rows = 0
    for batch in pq.ParquetFile(path).iter_batches(batch_size=128, columns=COLUMNS):
        i64 = batch.column("i64").to_numpy()
        batch.column("f32").to_numpy()
        batch.column("word").to_numpy(zero_copy_only=False)
        lists = batch.column("ilist")
        lists.values.to_numpy(), np.asarray(lists.offsets)
        total += int(i64.sum())
        rows += len(i64)
    return rows, total


def run(system, path):
    p = subprocess.run([sys.executable, __file__, "--file", path, "--system", system],
                       capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("%s: %s" % (system, p.stderr))
    rows, total, wall, cpu, rss = p.stdout.split()
    return int(rows), int(total), float(wall), float(cpu), float(rss)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--file", required=True)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--system")
    a = ap.parse_args()
    if a.system:
        import resource
        t0 = time.perf_counter()
        rows, total = {"sluice": read_sluice, "pyarrow": read_pyarrow}[a.system](a.file)
        me = resource.getrusage(resource.RUSAGE_SELF)
        kids = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime
        print(rows, total, time.perf_counter() - t0, cpu, max(me.ru_maxrss, kids.ru_maxrss) / 1024)
        return
    res = {"sluice": [], "pyarrow": []}
    for r in range(a.rounds):
        for system in res:
            rows, total, wall, cpu, rss = run(system, a.file)
            res[system].append((rows / wall, cpu / rows * 1e6, rss, total))
            print("round %d %-8s %9.0f rows/s %6.2f µs CPU a row %5.0f MB (i64 sum %d)" % (r, system, rows / wall, cpu / rows * 1e6, rss, total))
    for system, rs in res.items():
        print("median %-8s %9.0f rows/s %6.2f µs CPU a row %5.0f MB" % (
            system, statistics.median(x[0] for x in rs), statistics.median(x[1] for x in rs), statistics.median(x[2] for x in rs)))
    if len({x[3] for rs in res.values() for x in rs}) != 1:
        sys.exit("the systems' sums differ")


if __name__ == "__main__":
    main()
