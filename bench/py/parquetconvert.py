"""Parquet to TFRecord side by side: `sluice convert --from parquet`
against the way a Python user converts without sluice, pyarrow's rows
made into tf.train.Example protos and written by tf.io.TFRecordWriter,
taken in alternated rounds on the same file (bench/parquet.sh runs it).
With --export, the other way: `sluice convert --to parquet` of the
TFRecord file sluice made of those rows, against TensorFlow's reader and
tf.train.Example in Python, the columns gathered and written by pyarrow.

    python bench/py/parquetconvert.py --sluice build/sluice --rows 200000 --rounds 3
    python bench/py/parquetconvert.py --sluice build/sluice --export --rows 200000 --rounds 3

Prints one line a run (system, rows/s, CPU µs a row, peak RSS of the
converting process) and the medians. The file (SNAPPY, one row group per 100 000 rows) has the
columns of parquet/testdata's table: ints, floats, a boolean, strings,
bytes, nulls, lists and a struct.
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq


def gen(path, n):
    rng = np.random.default_rng(7)
    words = np.array(["alpha", "beta", "gamma", "delta", "", "epsilon", "x" * 40])
    lens = rng.integers(0, 6, n)
    offsets = np.concatenate([[0], np.cumsum(lens)]).astype(np.int32)
    t = pa.table({
        "i32": pa.array(rng.integers(-(2**31), 2**31, n).astype(np.int32)),
        "i64": pa.array(rng.integers(-(2**62), 2**62, n)),
        "f32": pa.array(rng.standard_normal(n).astype(np.float32)),
        "f64": pa.array(rng.standard_normal(n)),
        "flag": pa.array(rng.integers(0, 2, n).astype(bool)),
        "word": pa.array(words[rng.integers(0, len(words), n)]),
        "opt": pa.array(np.where(np.arange(n) % 7 == 0, None, np.arange(n)).tolist(), pa.int64()),
        "ilist": pa.ListArray.from_arrays(pa.array(offsets), pa.array(rng.integers(-1000, 1000, int(offsets[-1])))),
        "flist": pa.ListArray.from_arrays(pa.array(offsets), pa.array(rng.standard_normal(int(offsets[-1])).astype(np.float32))),
    })
    pq.write_table(t, path, row_group_size=100_000)


def tf_convert(src, dst):
    """The usual Python conversion: batches of rows as Python values, one
    tf.train.Example each, written by TensorFlow's writer."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf

    def feature(v, typ):
        if pa.types.is_list(typ):
            vals, typ = v, typ.value_type
        else:
            vals = [v]
        if pa.types.is_floating(typ):
            return tf.train.Feature(float_list=tf.train.FloatList(value=vals))
        if pa.types.is_string(typ):
            return tf.train.Feature(bytes_list=tf.train.BytesList(value=[s.encode() for s in vals]))
        return tf.train.Feature(int64_list=tf.train.Int64List(value=[int(x) for x in vals]))

    f = pq.ParquetFile(src)
    types = {field.name: field.type for field in f.schema_arrow}
    n = 0
    with tf.io.TFRecordWriter(dst) as w:
        for batch in f.iter_batches(batch_size=4096):
            for row in batch.to_pylist():
                feats = {k: feature(v, types[k]) for k, v in row.items() if v is not None}
                w.write(tf.train.Example(features=tf.train.Features(feature=feats)).SerializeToString())
                n += 1
    return n


def tf_export(src, dst):
    """The usual Python way from TFRecord to Parquet: each record parsed by
    tf.train.Example, its features gathered a column each, and the columns
    written by pyarrow: a scalar column where every row holding the feature
    holds one value, else a list column, a missing feature a null, as
    sluice writes them."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf

    cols, n = {}, 0
    for raw in tf.data.TFRecordDataset(src).as_numpy_iterator():
        ex = tf.train.Example.FromString(raw)
        for name, f in ex.features.feature.items():
            kind = f.WhichOneof("kind")
            col = cols.setdefault(name, [kind, {}])
            col[1][n] = list(getattr(f, kind).value) if kind else []
        n += 1
    types = {"int64_list": pa.int64(), "float_list": pa.float32(), "bytes_list": pa.binary(), None: pa.binary()}
    arrays = {}
    for name in sorted(cols):
        kind, vals = cols[name]
        rows = [vals.get(i) for i in range(n)]
        if all(len(v) == 1 for v in vals.values()):
            arrays[name] = pa.array([None if r is None else r[0] for r in rows], types[kind])
        else:
            arrays[name] = pa.array(rows, pa.list_(types[kind]))
    pq.write_table(pa.table(arrays), dst)
    return n


def run(cmd):
    """Runs cmd; returns its wall time, CPU time and peak RSS (MB). The RSS
    is /usr/bin/time's where there is one: a child's own rusage counts the
    memory of this process, pyarrow and all, at the fork (Linux keeps the
    high-water mark across exec), which made sluice's figure this
    process's size."""
    timed = os.path.exists("/usr/bin/time")
    if timed:
        cmd = ["/usr/bin/time", "-f", "maxrss %M", *cmd]
    start = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - start
    p.returncode = os.waitstatus_to_exitcode(status)
    err = p.stderr.read()
    if p.returncode != 0:
        sys.exit("%s: exit %d: %s" % (cmd, p.returncode, err))
    rss = ru.ru_maxrss / 1024
    if timed:
        rss = int(err.rsplit("maxrss ", 1)[1].split()[0]) / 1024
    return wall, ru.ru_utime + ru.ru_stime, rss


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sluice", required=True)
    ap.add_argument("--rows", type=int, default=200_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--dir", default="build/parquet-bench")
    ap.add_argument("--export", action="store_true", help="TFRecord to Parquet instead")
    ap.add_argument("--tf-convert", nargs=2, help=argparse.SUPPRESS)
    ap.add_argument("--tf-export", nargs=2, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.tf_convert:
        tf_convert(*a.tf_convert)
        return
    if a.tf_export:
        tf_export(*a.tf_export)
        return
    os.makedirs(a.dir, exist_ok=True)
    src = os.path.join(a.dir, "rows-%d.parquet" % a.rows)
    if not os.path.exists(src):
        gen(src, a.rows)
    peer = "pyarrow+tf"
    systems = {
        "sluice": [a.sluice, "convert", "--from", "parquet", src, "--out", os.path.join(a.dir, "sluice")],
        peer: [sys.executable, __file__, "--sluice", a.sluice, "--tf-convert", src, os.path.join(a.dir, "tf.tfrecord")],
    }
    if a.export:
        records = os.path.join(a.dir, "rows-%d" % a.rows)
        if not os.path.exists(records + ".tfrecord"):
            subprocess.run([a.sluice, "convert", "--from", "parquet", src, "--out", records], check=True, stdout=subprocess.DEVNULL)
        peer = "tf+pyarrow"
        systems = {
            "sluice": [a.sluice, "convert", "--to", "parquet", records + ".tfrecord", "--out", os.path.join(a.dir, "export-sluice")],
            peer: [sys.executable, __file__, "--sluice", a.sluice, "--tf-export", records + ".tfrecord", os.path.join(a.dir, "export-tf.parquet")],
        }
    results = {k: [] for k in systems}
    for r in range(a.rounds):
        for name, cmd in systems.items():
            wall, cpu, rss = run(cmd)
            results[name].append((a.rows / wall, cpu / a.rows * 1e6, rss))
            print("round %d %-11s %9.0f rows/s %7.2f µs CPU a row %6.0f MB peak RSS" % (r, name, a.rows / wall, cpu / a.rows * 1e6, rss))
    sl = [x[0] for x in results["sluice"]]
    tf = [x[0] for x in results[peer]]
    ratios = [s / t for s, t in zip(sl, tf)]
    for name, rs in results.items():
        print("median %-11s %9.0f rows/s %7.2f µs CPU a row %6.0f MB peak RSS" % (
            name, statistics.median(x[0] for x in rs), statistics.median(x[1] for x in rs), statistics.median(x[2] for x in rs)))
    print("sluice / %s, round by round: median %.1f× (%.1f–%.1f)" % (peer, statistics.median(ratios), min(ratios), max(ratios)))


if __name__ == "__main__":
    main()
